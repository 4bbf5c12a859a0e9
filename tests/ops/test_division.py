"""`//`, `%`, torch.fmod and div's rounding modes (issue 12): values, dtypes, node names
and edges, gradients and errors, each as PyTorch 2.13 gives them for the same expression.
(The gradient checks at first and second order are the op table's: tests/ops/test_op_table.py.)
"""
import numpy as np
import pytest

import gradcli as g
from typer.testing import CliRunner

from gradcli.cli.app import app
from gradcli import dtypes
from gradcli.errors import AutogradError, ProgramError, ProgramTypeError


@pytest.fixture(autouse=True)
def float32_default():
    with dtypes.default_dtype(dtypes.float32):
        yield


def values(t):
    return t._data.tolist()


A = lambda: g.tensor([5, -7, 3])   # noqa: E731


@pytest.mark.parametrize("compute, expected, dtype", [
    (lambda: A() // 2, [2, -4, 1], "int64"),
    (lambda: A() % 2, [1, 1, 1], "int64"),
    (lambda: A() % -3, [-1, -1, 0], "int64"),
    (lambda: 7 // A(), [1, -1, 2], "int64"),
    (lambda: A() // 2.5, [2.0, -3.0, 1.0], "float32"),
    (lambda: A() % 2.5, [0.0, 0.5, 0.5], "float32"),
    (lambda: g.floor_divide(A(), 2), [2, -4, 1], "int64"),
    (lambda: g.remainder(A(), 3), [2, 2, 0], "int64"),
    (lambda: g.fmod(A(), 3), [2, -1, 0], "int64"),
    (lambda: g.div(A(), 2, rounding_mode="floor"), [2, -4, 1], "int64"),
    (lambda: g.div(A(), 2, rounding_mode="trunc"), [2, -3, 1], "int64"),
    (lambda: g.div(A(), 2.0, rounding_mode="trunc"), [2.0, -3.0, 1.0], "float32"),
    (lambda: g.div(A(), 2), [2.5, -3.5, 1.5], "float32"),
    (lambda: g.tensor([250], dtype=g.uint8) // 3, [83], "uint8"),
    (lambda: g.tensor([-7], dtype=g.int8) % 3, [2], "int8"),
    (lambda: g.tensor([-2 ** 63]) // -1, [-2 ** 63], "int64"),
    (lambda: g.tensor([True, False]) // 2, [0, 0], "int64"),
    (lambda: g.tensor([1, 2]) % True, [0, 0], "int64"),
    (lambda: g.fmod(g.tensor([7.0, -7.0]), -3), [1.0, -1.0], "float32"),
])
def test_values_and_dtypes(compute, expected, dtype):
    out = compute()
    assert values(out) == pytest.approx(expected) and str(out.dtype) == f"torch.{dtype}"


def test_float_division_by_zero_is_inf_and_nan():
    out = g.tensor([1.0, -1.0, 0.0]) // 0
    assert np.isinf(out._data[:2]).all() and out._data[0] > 0 > out._data[1] and np.isnan(out._data[2])
    assert np.isnan((g.tensor([1.0, -1.0]) % 0)._data).all()


@pytest.mark.parametrize("compute", [
    lambda: A() // 0, lambda: A() % 0, lambda: A() // g.tensor([2, 2, 0]), lambda: g.fmod(A(), 0),
    lambda: g.div(A(), 0, rounding_mode="floor"), lambda: 3 // g.tensor([True, False]),
])
def test_integer_division_by_zero_is_pytorchs_error(compute):
    with pytest.raises(ProgramError, match="^ZeroDivisionError$"):
        compute()


@pytest.mark.parametrize("compute, kernel", [
    (lambda t: t // t, "div_floor"), (lambda t: t % t, "remainder"), (lambda t: g.fmod(t, t), "fmod"),
    (lambda t: g.div(t, t, rounding_mode="trunc"), "div_trunc"),
])
def test_bool_by_bool_is_refused_with_the_kernels_name(compute, kernel):
    with pytest.raises(ProgramError, match=f'"{kernel}_cpu" not implemented for \'Bool\''):
        compute(g.tensor([True, False]))


def test_an_unknown_rounding_mode_is_pytorchs_error():
    with pytest.raises(ProgramError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                                           "but found 'x'"):
        g.div(A(), 2, rounding_mode="x")


def edges(t):
    return [None if n is None else n.name() for n, _ in t.grad_fn.next_functions]


@pytest.mark.parametrize("compute, node, n_edges", [
    (lambda x, y: x // y, "NotImplemented", 2),
    (lambda x, y: x // 2, "NotImplemented", 1),
    (lambda x, y: 7 // x, "NotImplemented", 1),
    (lambda x, y: 7 % x, "NotImplemented", 1),
    (lambda x, y: x % y, "RemainderBackward1", 2),
    (lambda x, y: x % 2, "RemainderBackward0", 1),
    (lambda x, y: g.fmod(x, y), "FmodBackward1", 2),
    (lambda x, y: g.fmod(x, 2.0), "FmodBackward0", 1),
    (lambda x, y: g.div(x, y, rounding_mode="floor"), "DivBackward2", 2),
    (lambda x, y: g.div(x, y, rounding_mode="trunc"), "DivBackward2", 2),
    (lambda x, y: x / y, "DivBackward0", 2),
])
def test_node_names_and_edges(compute, node, n_edges):
    x = g.tensor([1.5, -2.5, 3.7], requires_grad=True)
    y = g.tensor([1.0, 2.0, -1.5], requires_grad=True)
    out = compute(x, y)
    assert out.grad_fn.name() == node and edges(out) == ["AccumulateGrad"] * n_edges


@pytest.mark.parametrize("compute, aten", [
    (lambda x, y: x // y, "floor_divide"), (lambda x, y: x // 2, "floor_divide"),
    (lambda x, y: 7 // x, "floor_divide"), (lambda x, y: 7 % x, "remainder"),
])
def test_backward_through_a_form_without_derivative_is_pytorchs_error(compute, aten):
    x = g.tensor([1.5, -2.5, 3.7], requires_grad=True)
    y = g.tensor([1.0, 2.0, -1.5], requires_grad=True)
    out = compute(x, y)
    assert values(out) == pytest.approx(values(compute(x.detach(), y.detach())))
    with pytest.raises(AutogradError, match=f"^derivative for aten::{aten} is not implemented$") as caught:
        out.sum().backward()
    assert "no derivative" in caught.value.hint


@pytest.mark.parametrize("compute, gx, gy", [
    (lambda x, y: x % y, [1, 1, 1], [-1, 2, 3]),
    (lambda x, y: g.fmod(x, y), [1, 1, 1], [-1, 1, 2]),
    (lambda x, y: x % 2, [1, 1, 1], None),
    (lambda x, y: g.div(x, y, rounding_mode="floor"), [0, 0, 0], [0, 0, 0]),
])
def test_gradients(compute, gx, gy):
    x = g.tensor([1.5, -2.5, 3.7], requires_grad=True)
    y = g.tensor([1.0, 2.0, -1.5], requires_grad=True)
    compute(x, y).sum().backward()
    assert values(x.grad) == pytest.approx(gx)
    assert (y.grad is None) if gy is None else values(y.grad) == pytest.approx(gy)


def test_in_place_forms():
    a = g.tensor([5, 7])
    a //= 2
    assert values(a) == [2, 3]
    x = g.tensor([5.0, 7.0])
    x //= 2
    x %= 2
    assert values(x) == [0.0, 1.0]
    b = g.tensor([5, 7])
    with pytest.raises(ProgramTypeError, match="result type Float can't be cast to the desired output type Long"):
        b %= 2.5
    c = g.tensor([5.0, -7.0])
    c.fmod_(3)
    assert values(c) == [2.0, -1.0]


def test_the_language_routes_floor_division_and_remainder_to_the_ops():
    result = CliRunner().invoke(app, ["run", "-e", (
        "import torch\na = torch.tensor([5, -7, 3])\na //= 2\nprint(a, 7 // a, a % 2, 7.5 // 2)\n"
        "x = torch.tensor([1.5, -2.5], requires_grad=True)\ny = (x % 1.0).sum()\ny.backward()\n"
        "print(x.grad)\nz = (x // 1.0).sum()\nz.backward()\n")], catch_exceptions=False)
    assert result.stdout == "tensor([ 2, -4,  1]) tensor([ 3, -2,  7]) tensor([0, 0, 1]) 3.0\ntensor([1., 1.])\n"
    assert result.exit_code == 4 and "derivative for aten::floor_divide is not implemented" in result.stderr
    assert "<expr>:10:3: error:" in result.stderr and "hint: PyTorch gives `//` no derivative" in result.stderr
