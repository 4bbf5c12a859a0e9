"""Shape ops and indexing: values, PyTorch's node names and edges, errors, gradients.

The expected graphs and values were taken from PyTorch 2 (float64) for the same
expressions. Gradients of the compositions (getitem chains, assignment, cat and
stack of other lengths than the table's) are checked here at orders 1 and 2;
the single ops are checked by test_op_table.
"""
import numpy as np
import pytest

import gradcli as g
from gradcli.autograd import gradcheck, gradgradcheck
from gradcli.errors import AutogradError, ProgramError, ProgramValueError, ShapeError
from gradcli.ops.shape import ProgramIndexError
from gradcli._tensor import Tensor, no_grad


def names(t):
    """(node name, [(next name or None, output_nr)]) of a tensor's grad_fn."""
    fn = t.grad_fn
    return fn.name(), [(n.name() if n is not None else None, k) for n, k in fn.next_functions]


@pytest.fixture
def a():
    return g.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]],
                    requires_grad=True)


LEAF = [("AccumulateGrad", 0)]

# expression -> (node, next_functions, shape), as PyTorch records them
GRAPHS = {
    "a[0]": ("SelectBackward0", LEAF, (4,)),
    "a[:, 1]": ("SelectBackward0", LEAF, (3,)),
    "a[-1]": ("SelectBackward0", LEAF, (4,)),
    "a[..., 1]": ("SelectBackward0", LEAF, (3,)),
    "a[0, :]": ("SelectBackward0", LEAF, (4,)),
    "a[0:9, 0]": ("SelectBackward0", LEAF, (3,)),
    "a[0, 1]": ("SelectBackward0", [("SelectBackward0", 0)], ()),
    "a[-9:, 0]": ("SelectBackward0", [("SliceBackward0", 0)], (3,)),
    "a[1:3]": ("SliceBackward0", LEAF, (2, 4)),
    "a[:]": ("SliceBackward0", LEAF, (3, 4)),
    "a[:, ::2]": ("SliceBackward0", LEAF, (3, 2)),
    "a[...]": ("AliasBackward0", LEAF, (3, 4)),
    "a[:, :]": ("AliasBackward0", LEAF, (3, 4)),
    "a[..., ...]": ("AliasBackward0", LEAF, (3, 4)),
    "a[None]": ("UnsqueezeBackward0", LEAF, (1, 3, 4)),
    "a[:, None]": ("UnsqueezeBackward0", LEAF, (3, 1, 4)),
    "a[1:, None, 0]": ("SelectBackward0", [("UnsqueezeBackward0", 0)], (2, 1)),
    "a[[0, 2]]": ("IndexBackward0", LEAF, (2, 4)),
    "a[a > 6]": ("IndexBackward0", LEAF, (6,)),
    "a[:, [0, 1]]": ("IndexBackward0", LEAF, (3, 2)),
    "a[0, [0, 1]]": ("IndexBackward0", [("SelectBackward0", 0)], (2,)),
    "a.reshape(12)": ("ViewBackward0", LEAF, (12,)),
    "a.view(2, 6)": ("ViewBackward0", LEAF, (2, 6)),
    "a.flatten()": ("ViewBackward0", LEAF, (12,)),
    "a.unsqueeze(0)": ("UnsqueezeBackward0", LEAF, (1, 3, 4)),
    "a[0:1].squeeze()": ("SqueezeBackward0", [("SliceBackward0", 0)], (4,)),
    "a[0:1].squeeze(0)": ("SqueezeBackward1", [("SliceBackward0", 0)], (4,)),
    "a[0:1, None].squeeze((0, 1))": ("SqueezeBackward2", [("UnsqueezeBackward0", 0)], (4,)),
    "a[:, 0:1].expand(3, 5)": ("ExpandBackward0", [("SliceBackward0", 0)], (3, 5)),
    "a[:, 0:1].expand((3, 5))": ("ExpandBackward0", [("SliceBackward0", 0)], (3, 5)),
    "a[:, 0:1].expand(-1, 5)": ("ExpandBackward0", [("SliceBackward0", 0)], (3, 5)),
    "a.expand(2, -1, -1)": ("ExpandBackward0", LEAF, (2, 3, 4)),
    "a[:, 0:1].expand_as(a)": ("ExpandBackward0", [("SliceBackward0", 0)], (3, 4)),
    "g.cat([a, a, a])": ("CatBackward0", LEAF * 3, (9, 4)),
    "g.cat([a, a], 1)": ("CatBackward0", LEAF * 2, (3, 8)),
    "g.stack([a, a])": ("StackBackward0", LEAF * 2, (2, 3, 4)),
    "g.stack([a, a, a, a], dim=-1)": ("StackBackward0", LEAF * 4, (3, 4, 4)),
    "a.narrow(0, 1, 2)": ("SliceBackward0", LEAF, (2, 4)),
    "a.chunk(2)[1]": ("SplitBackward0", LEAF, (1, 4)),
    "a.split(2)[1]": ("SplitBackward0", LEAF, (1, 4)),
    "a.split([1, 2])[1]": ("SplitWithSizesBackward0", LEAF, (2, 4)),
    "a.unbind(1)[3]": ("UnbindBackward0", LEAF, (3,)),
    "a.repeat(2, 1)": ("RepeatBackward0", LEAF, (6, 4)),
    "a.clone()": ("CloneBackward0", LEAF, (3, 4)),
}


@pytest.mark.parametrize("expr", list(GRAPHS))
def test_node_names_and_edges_are_pytorchs(expr, a):
    node, edges, shape = GRAPHS[expr]
    out = eval(expr)
    assert names(out) == (node, edges)
    assert tuple(out.shape) == shape


def test_unbind_outputs_are_reached_with_their_index():
    # seed e06: b, c, d = a.unbind(); e = b * c * d
    a = g.tensor([2.0, 3.0, 4.0], requires_grad=True)
    b, c, d = a.unbind()
    e = b * c * d
    assert names(e) == ("MulBackward0", [("MulBackward0", 0), ("UnbindBackward0", 2)])
    bc = e.grad_fn.next_functions[0][0]
    assert [(n.name(), k) for n, k in bc.next_functions] == [("UnbindBackward0", 0), ("UnbindBackward0", 1)]
    assert e.grad_fn.next_functions[1][0] is b.grad_fn is bc.next_functions[0][0]
    e.backward()
    assert e.item() == 24.0
    assert a.grad.tolist() == [12.0, 8.0, 6.0]


def test_unbind_gradient_of_unused_outputs_is_zero():
    a = g.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    first, _ = a.unbind(1)
    (first * 3.0).sum().backward()
    assert a.grad.tolist() == [[3.0, 0.0], [3.0, 0.0]]


def test_iterating_a_tensor_unbinds_it():
    a = g.tensor([1.0, 2.0, 3.0], requires_grad=True)
    items = list(a)
    assert [t.item() for t in items] == [1.0, 2.0, 3.0]
    assert {t.grad_fn for t in items} == {items[0].grad_fn}
    assert [t._output_nr for t in items] == [0, 1, 2]


def test_cat_and_stack_values_and_gradients():
    x = g.tensor([1.0, 2.0], requires_grad=True)
    y = g.tensor([3.0], requires_grad=True)
    z = g.cat([x, y, x])
    assert z.tolist() == [1.0, 2.0, 3.0, 1.0, 2.0]
    (z * g.tensor([1.0, 2.0, 3.0, 4.0, 5.0])).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0]
    assert y.grad.tolist() == [3.0]
    s = g.stack([x, x * 2.0], dim=1)
    assert s.tolist() == [[1.0, 2.0], [2.0, 4.0]]


def test_cat_with_a_constant_has_a_none_edge():
    x = g.tensor([1.0, 2.0], requires_grad=True)
    c = g.tensor([0.0])
    assert names(g.cat([c, x])) == ("CatBackward0", [(None, 0), ("AccumulateGrad", 0)])


@pytest.mark.parametrize("n", [1, 3])
def test_cat_and_stack_of_other_lengths_pass_gradcheck(n):
    rng = np.random.default_rng(n)
    xs = tuple(Tensor(rng.uniform(-1, 1, (2, k + 1)), requires_grad=True) for k in range(n))
    assert gradcheck(lambda *t: g.cat(list(t), 1), xs)
    assert gradgradcheck(lambda *t: g.cat(list(t), 1), xs)
    same = tuple(Tensor(rng.uniform(-1, 1, (2, 2)), requires_grad=True) for _ in range(n))
    assert gradcheck(lambda *t: g.stack(list(t)), same)
    assert gradgradcheck(lambda *t: g.stack(list(t), -1), same)


@pytest.mark.parametrize("index", [
    0, -1, (slice(None), 1), slice(1, 3), (Ellipsis, 2), (None, 1), (1, slice(None, None, 2)),
    [0, 2, 0], (slice(None), [3, 0]), ([0, 2], [1, 1]), (0, [1, 3]), (slice(0, 2), None, [0, 1]),
])
def test_getitem_passes_gradcheck_and_gradgradcheck(index):
    x = Tensor(np.random.default_rng(0).uniform(-1, 1, (3, 4)), requires_grad=True)
    f = lambda t: (t * t)[index] * 1.5  # noqa: E731
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_second_order_nodes_are_pytorchs():
    x = g.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 1.0
    go = g.ones(2, requires_grad=True)
    (gx,) = g.autograd.grad(x[0], x, go, create_graph=True)
    assert names(gx) == ("SelectBackwardBackward0", LEAF)
    (gx,) = g.autograd.grad(x[0:1], x, g.ones(1, 2, requires_grad=True), create_graph=True)
    assert names(gx)[0] == "SliceBackwardBackward0"
    (gx,) = g.autograd.grad(x[[0, 0]], x, g.ones(2, 2, requires_grad=True), create_graph=True)
    assert names(gx) == ("IndexPutImplBackward0", [(None, 0), ("AccumulateGrad", 0)])


# Values against numpy, where numpy's indexing agrees with PyTorch's.
@pytest.mark.parametrize("index", [
    1, -3, (2, 3), slice(None, None, 2), (slice(1, None), slice(None, -1)), (Ellipsis, None),
    [2, 0], (slice(None), [True, False, True, False]), ([0, 1], [3, 2]), (),
])
def test_getitem_values_match_numpy(index, a):
    expected = a._data[index if not isinstance(index, list) else np.array(index)]
    assert np.array_equal(a[index]._data, expected)


def test_mixed_int_and_tensor_index_applies_the_int_first():
    # PyTorch: select, then index; numpy would move the advanced dims to the front.
    x = g.tensor(np.arange(24.0).reshape(2, 3, 4))
    assert tuple(x[0, :, [1, 2]].shape) == (3, 2)
    assert x[0, :, [1, 2]].tolist() == [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]


def test_bool_mask_and_index_tensors():
    x = g.tensor([1.0, -2.0, 3.0, -4.0], requires_grad=True)
    pos = x[x > 0]
    assert pos.tolist() == [1.0, 3.0]
    picked = x[g.tensor([3.0, 3.0, 0.0])]      # float64 index tensors with integral values
    assert picked.tolist() == [-4.0, -4.0, 1.0]
    (pos.sum() + picked.sum()).backward()
    assert x.grad.tolist() == [2.0, 0.0, 1.0, 2.0]
    assert tuple(x[True].shape) == (1, 4) and tuple(x[False].shape) == (0, 4)
    assert x[g.tensor(2.0)].item() == 3.0


@pytest.mark.parametrize("expr, message", [
    ("a[3]", "index 3 is out of bounds for dimension 0 with size 3"),
    ("a[-4]", "index -4 is out of bounds for dimension 0 with size 3"),
    ("a[0, 4]", "index 4 is out of bounds for dimension 1 with size 4"),
    ("a[0, 0, 0]", "too many indices for tensor of dimension 2"),
    ("a[[5]]", "index 5 is out of bounds for dimension 0 with size 3"),
    ("a[:, [7]]", "index 7 is out of bounds for dimension 0 with size 4"),
    ("a[[0], [7]]", "index 7 is out of bounds for dimension 1 with size 4"),
    ("g.tensor(1.0)[0]", "invalid index of a 0-dim tensor. Use `tensor.item()` in Python"),
    ("a[g.tensor([True, False])]", "The shape of the mask [2] at index 0 does not match the shape of "
                                   "the indexed tensor [3, 4] at index 0"),
    ("a[..., ..., 0]", "too many indices for tensor of dimension 2"),
    ("a[1.5]", "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables"),
    ("a[g.tensor([0.5])]", "tensors used as indices must be long, int, byte or bool tensors"),
    ("a[[0, 1], [0, 1, 2]]", "shape mismatch: indexing tensors could not be broadcast together"),
    ("g.tensor(1.0).unbind()", "Dimension specified as 0 but tensor has no dimensions"),
])
def test_index_errors_are_pytorchs_and_typed(expr, message, a):
    with pytest.raises(ProgramIndexError) as info:
        eval(expr)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, IndexError) and isinstance(info.value, ProgramError)


@pytest.mark.parametrize("expr, error, message", [
    ("a[::-1]", ProgramValueError, "step must be greater than zero"),
    ("a[::0]", ProgramValueError, "slice step cannot be zero"),
    ("g.cat([])", ProgramValueError, "torch.cat(): expected a non-empty list of Tensors"),
    ("g.cat([a, g.zeros(3, 5)])", ShapeError, "Sizes of tensors must match except in dimension 0. "
     "Expected size 4 but got size 5 for tensor number 1 in the list."),
    ("g.cat([a, a[0]])", ShapeError, "Tensors must have same number of dimensions: got 2 and 1"),
    ("g.cat([g.tensor(1.0)])", ShapeError, "zero-dimensional tensor (at position 0) cannot be concatenated"),
    ("g.cat([a, 1.0])", TypeError, "expected Tensor as element 1 in argument 0, but got float"),
    ("g.stack([a, a[:2]])", ShapeError, "stack expects each tensor to be equal size, but got [3, 4] at "
     "entry 0 and [2, 4] at entry 1"),
    ("g.stack([])", ShapeError, "stack expects a non-empty TensorList"),
    ("a.expand(2)", ShapeError, "expand: the number of sizes provided (1) must be greater or equal"),
    ("a.repeat(2)", ShapeError, "Number of dimensions of repeat dims can not be smaller"),
    ("a.narrow(0, 2, 2)", ShapeError, "start (2) + length (2) exceeds dimension size (3)."),
    ("a.squeeze(5)", ShapeError, "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    ("a.split([1, 1])", ShapeError, "split_with_sizes expects split_sizes to sum exactly to 3"),
])
def test_shape_errors(expr, error, message, a):
    with pytest.raises(error) as info:
        eval(expr)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, ProgramError)


def test_split_chunk_narrow_repeat_values(a):
    assert [t.tolist() for t in a.split(2)] == [a[0:2].tolist(), a[2:3].tolist()]
    assert [tuple(t.shape) for t in a.chunk(3, dim=1)] == [(3, 2), (3, 2)]
    assert a.narrow(1, -2, 2).tolist() == a._data[:, 2:].tolist()
    assert np.array_equal(a.repeat(2, 1, 2)._data, np.tile(a._data, (2, 1, 2)))
    a.repeat(2, 3).sum().backward()
    assert np.all(a.grad._data == 6.0)


def test_basic_indexing_gives_views_with_the_base_version_counter():
    x = g.tensor([[1.0, 2.0], [3.0, 4.0]])
    row = x[0]
    with no_grad():
        row.mul_(10.0)
    assert x.tolist() == [[10.0, 20.0], [3.0, 4.0]]
    assert x._version == 1 and row._counter is x._counter
    picked = x[[0]]
    assert not np.shares_memory(picked._data, x._data)


# -- assignment -----------------------------------------------------------------------


def test_setitem_outside_a_graph_writes_in_place_and_bumps_the_version():
    y = g.zeros(3)
    alias = y.data
    y[1] = 4.0
    y[g.tensor([0.0, 2.0])] = g.tensor([7.0, 8.0])
    assert y.tolist() == [7.0, 4.0, 8.0]
    assert alias.tolist() == [7.0, 4.0, 8.0]
    assert y._version == 2
    assert y.grad_fn is None and not y.requires_grad


def test_setitem_into_an_expanded_tensor_is_refused():
    y = g.tensor([[1.0, 2.0]]).expand(3, 2)
    with pytest.raises(ShapeError, match="more than one element of the written-to tensor refers to a single"):
        y[:, 0] = 5.0


def test_setitem_on_a_leaf_that_requires_grad():
    w = g.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(AutogradError, match="a view of a leaf Variable that requires grad is being used"):
        w[0] = 5.0
    with no_grad():
        w[0] = 5.0
    assert w.tolist() == [5.0, 2.0] and w._version == 1 and w.is_leaf


def test_setitem_records_copyslices_and_rebases():
    # numbers from PyTorch 2 for the same program
    x = g.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    v = g.tensor([10.0, 20.0, 30.0], requires_grad=True)
    y = x * 2.0
    y[0] = v * v
    assert names(y) == ("CopySlices", [("MulBackward0", 0), ("MulBackward0", 0)])
    y[:, 1] = 7.0
    assert names(y) == ("CopySlices", [("CopySlices", 0), (None, 0)])
    assert y.tolist() == [[100.0, 7.0, 900.0], [8.0, 7.0, 12.0]]
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [2.0, 0.0, 2.0]]
    assert v.grad.tolist() == [20.0, 0.0, 60.0]


def test_setitem_with_tensor_indices_records_index_put():
    x = g.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    v = g.tensor([10.0, 20.0, 30.0], requires_grad=True)
    y = x * 1.0
    y[[0, 1], [2, 0]] = v[:2]
    assert names(y) == ("IndexPutBackward0", [("MulBackward0", 0), ("SliceBackward0", 0)])
    (y * y).sum().backward()
    assert x.grad.tolist() == [[2.0, 4.0, 0.0], [0.0, 10.0, 12.0]]
    assert v.grad.tolist() == [20.0, 40.0, 0.0]


def test_setitem_into_a_constant_tensor():
    a = g.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = g.zeros(3)
    z[1] = a[1]
    assert names(z) == ("CopySlices", [(None, 0), ("SelectBackward0", 0)])
    assert z.requires_grad and not z.is_leaf


def test_setitem_value_shapes():
    y = g.zeros(3, 4)
    y[0] = g.ones(1, 4)                       # leading 1s are dropped, as in PyTorch
    y[:, 0] = 2.0
    assert y[0].tolist() == [2.0, 1.0, 1.0, 1.0]
    with pytest.raises(ShapeError, match=r"The expanded size of the tensor \(4\) must match the existing "
                                         r"size \(5\) at non-singleton dimension 0"):
        y[0] = g.ones(5)
    with pytest.raises(ShapeError, match="the number of sizes provided"):
        y[0] = g.ones(2, 4)


@pytest.mark.parametrize("index", [0, (slice(None), 1), slice(0, 2), ([0, 2],), (1, [0, 2])])
def test_setitem_passes_gradcheck_and_gradgradcheck(index):
    rng = np.random.default_rng(1)
    x = Tensor(rng.uniform(-1, 1, (3, 4)), requires_grad=True)
    v = Tensor(rng.uniform(-1, 1, tuple(x.detach()[index].shape)), requires_grad=True)

    def f(x, v):
        y = x * x
        y[index] = v * v * v
        return y

    assert gradcheck(f, (x, v))
    assert gradgradcheck(f, (x, v))
