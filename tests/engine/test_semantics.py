"""PyTorch's autograd semantics at the Python API: the seed cases' behaviour, the
errors with PyTorch's wording, hooks, retain_grad, grad modes, in-place checks.

Expected values are PyTorch's (from ../shared/seed-cases/expected.json).
"""
import numpy as np
import pytest

import gradcli as torch
from gradcli import autograd
from gradcli.errors import AutogradError
from gradcli._tensor import Tensor
from gradcli import dtypes


def t(data, requires_grad=False):
    return Tensor(data, requires_grad=requires_grad)


def test_e01_linear_gradients_and_no_grad_for_data():
    x = t(3.0)
    w = t(2.0, True)
    b = t(1.0, True)
    y = x * w + b
    y.backward()
    assert y.item() == 7.0
    assert w.grad.item() == 3.0 and b.grad.item() == 1.0
    assert x.grad is None


def test_s01_create_graph_then_second_derivative_accumulates():
    x = t(2.0, True)
    y = t(3.0, True)
    z = x * x * y
    (gx,) = autograd.grad(z, x, create_graph=True)
    (gxx,) = autograd.grad(gx, x)
    assert gx.item() == 12.0 and gxx.item() == 6.0
    assert gx.grad_fn is not None
    z = x * x * y
    z.backward(create_graph=True)
    assert x.grad.item() == 12.0
    x.grad.backward()
    assert x.grad.item() == 18.0
    x.grad = None
    z = x * x * y
    z.backward(create_graph=True)
    x.grad.data.zero_()
    x.grad.backward()
    assert x.grad.item() == 6.0


def test_s02_gradients_accumulate_until_zeroed():
    x = torch.arange(4.0, requires_grad=True) if "arange" in dir(torch) else t([0., 1., 2., 3.], True)
    y = 2 * (x * x).sum()
    y.backward()
    assert x.grad.tolist() == [0.0, 4.0, 8.0, 12.0]
    x.sum().backward()
    assert x.grad.tolist() == [1.0, 5.0, 9.0, 13.0]
    x.grad.zero_()
    y = x * x
    y.sum().backward(retain_graph=True)
    assert x.grad.tolist() == [0.0, 2.0, 4.0, 6.0]
    x.grad.zero_()
    y.backward(gradient=t([1.0, 1.0, 1.0, 1.0]))
    assert x.grad.tolist() == [0.0, 2.0, 4.0, 6.0]


def test_s03_a_node_that_saved_nothing_runs_twice_a_product_does_not():
    a1 = t([1.0], True)
    a3 = a1.sum()
    a3.backward()
    a1.grad.zero_()
    a3.backward()
    assert a1.grad.tolist() == [1.0]
    v1 = t([1.0, 2.0], True)
    v3 = (v1 * v1).sum()
    v3.backward()
    assert v1.grad.tolist() == [2.0, 4.0]
    with pytest.raises(AutogradError, match="Trying to backward through the graph a second time"):
        v3.backward()


def test_retain_graph_allows_a_second_backward():
    v = t([1.0, 2.0], True)
    s = (v * v).sum()
    s.backward(retain_graph=True)
    s.backward()
    assert v.grad.tolist() == [4.0, 8.0]


def test_s04_no_grad_in_place_on_leaf_and_decorator():
    x = t([2.0, 3.0], True)
    with torch.no_grad():
        x += 1
        y = x * x
    assert x.tolist() == [3.0, 4.0] and x.requires_grad and not y.requires_grad

    @torch.no_grad()
    def doubler(v):
        return v * 2

    assert not doubler(x).requires_grad
    with torch.set_grad_enabled(False):
        w = x * 2
    assert not w.requires_grad
    with torch.no_grad():
        with torch.enable_grad():
            assert (x * 2).requires_grad


def test_in_place_on_a_leaf_that_requires_grad_is_an_error():
    x = t([2.0, 3.0], True)
    with pytest.raises(AutogradError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        x += 1


def test_s05_data_hides_an_in_place_change_detach_reports_it():
    x = t([1.0, 2.0], True)
    y = x.sigmoid()
    y.data.zero_()
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]

    x = t([1.0, 2.0], True)
    y = x.sigmoid()
    y.detach().zero_()
    with pytest.raises(AutogradError) as err:
        y.sum().backward()
    msg = str(err.value)
    assert "one of the variables needed for gradient computation has been modified by an inplace operation" in msg
    assert "is at version 1; expected version 0 instead" in msg
    assert "which is output 0 of Sigmoid," in msg  # PyTorch 2.13 names the op, not the node
    assert msg.endswith("set_detect_anomaly(True, check_nan=False).")


def test_saved_input_modified_in_place_is_detected():
    a = t([1.0, 2.0], True)
    b = a * 1.0
    c = b * b
    with torch.no_grad():
        b.mul_(2.0)
    with pytest.raises(AutogradError, match="modified by an inplace operation"):
        c.sum().backward()


def test_s06_hooks_and_retain_grad():
    a = t([1.0, 2.0], True)
    b = t([1.0, 2.0], True)
    c = 2 * a + 3 * b + 1
    d = 2 * c + 1
    seen = []
    handle = c.register_hook(lambda g: seen.append(g.tolist()))
    c.retain_grad()
    d.backward(t([1.0, 1.0]), retain_graph=True)
    assert seen == [[2.0, 2.0]]
    assert a.grad.tolist() == [4.0, 4.0] and b.grad.tolist() == [6.0, 6.0] and c.grad.tolist() == [2.0, 2.0]
    assert not c.is_leaf and a.is_leaf
    handle.remove()
    d2 = 2 * c + 1
    d2.backward(t([1.0, 1.0]))
    assert seen == [[2.0, 2.0]]


def test_hook_may_replace_the_gradient_on_leaf_and_non_leaf():
    x = t(3.0, True)
    x.register_hook(lambda g: g * 10)
    y = x * 2
    y.register_hook(lambda g: g + 1)
    (y * 1.0).backward()
    assert x.grad.item() == 40.0


def test_e06_unbind_output_indices():
    a = t([2.0, 3.0, 4.0], True)
    b, c, d = a.unbind()
    e = b * c * d
    (left, _), (right, idx) = e.grad_fn.next_functions
    assert idx == 2 and right.name() == "UnbindBackward0"
    assert [nr for _, nr in left.next_functions] == [0, 1]
    e.backward()
    assert a.grad.tolist() == [12.0, 8.0, 6.0]


def test_e08_detach_makes_a_constant():
    x = t([0.0, 1.0, 2.0, 3.0], True)
    y = x * x
    u = y.detach()
    u.requires_grad_()
    z = (u * x).sum()
    z.backward()
    assert x.grad.tolist() == [0.0, 1.0, 4.0, 9.0]
    assert u.grad.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_e09_grad_of_intermediate_tensors():
    a = t([1.0, 2.0], True)
    b = t([1.0, 2.0], True)
    c = 2 * a + 3 * b + 1
    d = 2 * c + 1
    ga, gb, gc = autograd.grad(d, (a, b, c), grad_outputs=t([1.0, 1.0]))
    assert ga.tolist() == [4.0, 4.0] and gb.tolist() == [6.0, 6.0] and gc.tolist() == [2.0, 2.0]


def test_e10_only_leaves_keep_grad_unless_retain_grad():
    a = t(2.0, True)
    b = t(3.0)
    c = a * b
    c.retain_grad()
    d = t(4.0, True)
    e = c * d
    e.retain_grad()
    e.backward()
    assert (a.grad.item(), d.grad.item(), c.grad.item(), e.grad.item()) == (12.0, 6.0, 4.0, 1.0)
    assert b.grad is None


def test_e12_custom_function_values_node_and_gradcheck(seed_e12):
    Func, x, y, z = (seed_e12[name] for name in ("Func", "x", "y", "z"))
    assert (x.tolist(), y.tolist()) == ([1.0, 2.0], [3.0, 4.0])
    assert z.grad_fn.name() == "FuncBackward"
    assert [n.name() for n, _ in z.grad_fn.next_functions] == ["AccumulateGrad", "AccumulateGrad"]
    z.backward(t([1.0, 1.0]))
    np.testing.assert_allclose(x.grad.tolist(), [5.718281828459045, 10.38905609893065], rtol=1e-12)
    np.testing.assert_allclose(y.grad.tolist(), [22.085536923187668, 56.598150033144236], rtol=1e-12)
    assert autograd.gradcheck(Func.apply, (t([0.3, -0.2], True), t([0.1, 0.5], True)))


def test_custom_function_saved_tensors_freed_after_backward(seed_e12):
    x = t([1.0, 2.0], True)
    y = t([3.0, 4.0], True)
    z = seed_e12["Func"].apply(x, y).sum()
    z.backward()
    with pytest.raises(AutogradError, match="Trying to backward through the graph a second time"):
        z.backward()


def test_errors_with_pytorch_wording():
    with pytest.raises(AutogradError, match="grad can be implicitly created only for scalar outputs"):
        (t([1.0, 2.0], True) * 2).backward()
    with pytest.raises(AutogradError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        t(1.0).backward()
    x = t(1.0, True)
    y = t(2.0, True)
    with pytest.raises(AutogradError, match="The differentiated Tensor at index 1 appears to not have been used in the graph"):
        autograd.grad(x * 2, (x, y))
    assert autograd.grad(x * 2, (x, y), allow_unused=True)[1] is None
    with pytest.raises(AutogradError, match="only change requires_grad flags of leaf variables"):
        (x * 2).requires_grad_(False)


def test_backward_inputs_accumulates_only_there():
    x = t(2.0, True)
    y = t(3.0, True)
    (x * y).backward(inputs=[x])
    assert x.grad.item() == 3.0 and y.grad is None


def test_grad_does_not_touch_dot_grad():
    x = t(2.0, True)
    autograd.grad(x * x, x)
    assert x.grad is None


def test_shared_gradient_array_is_not_aliased_between_leaves():
    a = t(1.0, True)
    b = t(1.0, True)
    (a + b).backward()
    (a * 3).backward()
    assert a.grad.item() == 4.0 and b.grad.item() == 1.0


def test_repr_as_pytorch():
    assert repr(t(12.0)) == "tensor(12.)"
    assert repr(t([4.0, 6.0], True)) == "tensor([4., 6.], requires_grad=True)"
    x = t(4.0, True)
    assert repr(x * 7) == "tensor(28., grad_fn=<MulBackward0>)"
    assert f"{t(1.23456):.3f}" == "1.235"


def test_a_chain_of_a_million_nodes_runs_forward_and_backward():
    x = t(0.5, True)
    y = x
    for _ in range(10**6):
        y = y * 1.0
    y.backward()
    assert x.grad.item() == 1.0


def test_an_op_refuses_a_python_list_before_numpy_sees_it():
    """Found by the fuzzer: a list holding range(10**12) reached numpy (MemoryError, exit 70)."""
    from gradcli.errors import ProgramTypeError

    with pytest.raises(ProgramTypeError, match=r"logsumexp\(\): argument 'input' \(position 1\) must be Tensor, not list"):
        torch.logsumexp([range(10**12), 1.0], 0)
    with pytest.raises(ProgramTypeError, match="must be Tensor, not range"):
        torch.sin(range(10**12))


def test_inference_mode_records_no_graph():
    x = t([1.0, 2.0], True)
    with torch.inference_mode():
        assert not (x * 2).requires_grad
        with torch.inference_mode(False):
            assert (x * 2).grad_fn.name() == "MulBackward0"
    assert torch.is_grad_enabled()


def test_a_zero_dim_comparison_is_a_bool_tensor():
    x = t([1.0, 2.0], True)
    for result in (x.norm() > 0, x.sum() <= 0, t(2.0) == 2.0):
        assert str(result.dtype) == "torch.bool" and not result.requires_grad
    assert str(x.norm() > 0) == "tensor(True)"


def test_float_of_a_bool_tensor_gives_numbers():
    mask = t([1.0, 2.0]) > 1
    for converted, name in ((mask.float(), "torch.float32"), (mask.double(), "torch.float64"),
                            (mask.to(dtype=dtypes.float32), "torch.float32")):
        assert str(converted.dtype) == name and converted.tolist() == [0.0, 1.0]
    x = t([1.0], True)
    assert x.double() is x and x.to("cpu") is x
