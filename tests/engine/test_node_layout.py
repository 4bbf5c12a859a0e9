"""How a node holds its edges and what it saves: few objects per op for the collector,
and the same graph as PyTorch's, whatever the layout."""
import gc
import weakref

import pytest

import gradcli
from gradcli.graph.nodes import MANY_INPUTS, ONE_INPUT, accumulate_grad


def leaf(value=0.5):
    return gradcli.tensor(value, requires_grad=True, dtype=gradcli.float64)


def test_edges_of_one_two_and_three_inputs_read_as_next_functions():
    x, w, b = leaf(1.0), leaf(2.0), leaf(3.0)
    one = gradcli.sin(x)
    two = one * w
    three = gradcli.cat([one.reshape(1), two.reshape(1), b.reshape(1)])
    assert one.grad_fn.next1 is ONE_INPUT
    assert one.grad_fn.next_functions == ((x.grad_fn or accumulate_grad(x), 0),)
    assert two.grad_fn.next_nodes == (one.grad_fn, accumulate_grad(w))
    assert three.grad_fn.next1 is MANY_INPUTS
    assert [n.name() for n in three.grad_fn.next_nodes] == ["ViewBackward0"] * 3
    three.sum().backward()
    assert (x.grad.item(), w.grad.item(), b.grad.item()) == pytest.approx(
        (gradcli.cos(x).item() * (1 + w.item()), gradcli.sin(x).item(), 1.0))


def test_a_number_operand_leaves_an_edge_to_nothing():
    x = leaf()
    y = x * 2.0
    assert y.grad_fn.next_functions == ((accumulate_grad(x), 0), (None, 0))


def test_setting_next_functions_round_trips_for_every_arity():
    node = gradcli.sin(leaf()).grad_fn
    for edges in [(), ((None, 0),), ((None, 0), (None, 1)), ((None, 0), (None, 0), (None, 2))]:
        node.next_functions = edges
        assert node.next_functions == edges


def test_a_node_that_saves_only_a_number_does_not_keep_its_tensor_input():
    x = leaf()
    u = x * 3.0          # u is an intermediate: y's node needs only the 2.0 to differentiate
    ref = weakref.ref(u)
    y = u * 2.0
    del u
    assert ref() is None
    y.backward()
    assert x.grad.item() == 6.0


def test_a_node_that_saves_its_tensor_input_keeps_it_until_backward():
    x = leaf()
    u = x * 3.0
    ref = weakref.ref(u)
    y = gradcli.sin(u)
    del u
    assert ref() is not None
    assert y.grad_fn.saved_value("_saved_self") is ref()
    y.backward()
    assert ref() is None   # freed with the graph's saved tensors
    assert x.grad.item() == pytest.approx(3 * gradcli.cos(gradcli.tensor(1.5, dtype=gradcli.float64)).item())


def test_what_a_node_did_not_save_reads_as_none_as_in_pytorch():
    x, w = leaf(), gradcli.tensor(2.0, dtype=gradcli.float64)
    y = x * w            # only x requires grad: x's gradient needs w, not x
    assert y.grad_fn.saved_value("_saved_self") is None
    assert y.grad_fn.saved_value("_saved_other") is w


def test_the_scalar_chain_leaves_at_most_one_and_a_half_tracked_objects_per_op():
    # y * c + d and sin(y * c): the nodes, plus the tensor and tuple sin saves every other step
    def chain(x, steps):
        y = x
        for i in range(steps):
            y = y * 1.0001 + 0.0001 if i % 2 == 0 else gradcli.sin(y * 1.0001)
        return y

    chain(leaf(), 20).backward()   # first use: whatever the ops cache is made before counting
    x = leaf()
    gc.collect()
    before = len(gc.get_objects())
    y = chain(x, 2000)
    gc.collect()
    per_op = (len(gc.get_objects()) - before) / 4000
    assert per_op <= 1.51
    y.backward()
    assert x.grad is not None
