"""Factories: shapes, dtypes, values, seeds, leaves, limits; clone and zero_ as ops."""
import numpy as np
import pytest

import gradcli as g
from gradcli.limits import element_limit
from gradcli.errors import AutogradError, LimitError, ProgramTypeError, ProgramValueError


@pytest.fixture
def small_limit():
    with element_limit(100):
        yield


def test_tensor_from_nested_lists():
    t = g.tensor([[1, 2], [3, 4.5]])
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.5]]
    assert t._data.dtype == np.float64 and str(t.dtype) == "torch.float64"
    assert t.is_leaf and not t.requires_grad and t.grad_fn is None
    assert tuple(g.tensor(3).shape) == () and g.tensor(3).item() == 3.0
    assert tuple(g.tensor([]).shape) == (0,)
    assert tuple(g.tensor([[]]).shape) == (1, 0)
    assert g.tensor(2.0, requires_grad=True).requires_grad


def test_tensor_from_tensors_copies():
    a = g.tensor([1.0, 2.0], requires_grad=True)
    b = g.tensor(a)
    assert b.tolist() == [1.0, 2.0] and not b.requires_grad
    assert not np.shares_memory(a._data, b._data)
    stacked = g.tensor([g.tensor(1.0), g.tensor(2.0)])
    assert stacked.tolist() == [1.0, 2.0]
    assert g.tensor([a, a]).tolist() == [[1.0, 2.0], [1.0, 2.0]]


def test_bool_tensors():
    assert str(g.tensor(True).dtype) == "torch.bool"
    assert g.tensor([True, False]).tolist() == [True, False]
    assert g.tensor([1.0, 0.0], dtype="torch.bool").tolist() == [True, False]
    assert str(g.tensor([True, 2]).dtype) == "torch.int64"  # promoted, as PyTorch
    assert str(g.full((2,), True).dtype) == "torch.bool"
    with pytest.raises(AutogradError, match="Only Tensors of floating point and complex dtype can require gradients"):
        g.tensor([True], requires_grad=True)


@pytest.mark.parametrize("data, message", [
    ([[1, 2], [3, 4, 5]], "expected sequence of length 2 at dim 1 (got 3)"),
    ([[[1, 2], [3, 4]], [[1, 2], [3]]], "expected sequence of length 2 at dim 2 (got 1)"),
    ([[1, 2], 3], "expected sequence of length 2 at dim 1 (got a number)"),
    ([1, [2, 3]], "expected a number at dim 1 (got a sequence of length 2)"),
])
def test_ragged_data_is_an_error(data, message):
    with pytest.raises(ProgramValueError) as info:
        g.tensor(data)
    assert str(info.value) == message


def test_invalid_data_type():
    with pytest.raises(ProgramTypeError, match="new\\(\\): invalid data type 'str'"):
        g.tensor(["a"])


@pytest.mark.parametrize("call, shape", [
    (lambda: g.zeros(2, 3), (2, 3)), (lambda: g.zeros((2, 3)), (2, 3)), (lambda: g.zeros([2, 3]), (2, 3)),
    (lambda: g.zeros(g.zeros(4, 1).shape), (4, 1)), (lambda: g.zeros(2.0), (2,)), (lambda: g.zeros(()), ()),
    (lambda: g.ones(3), (3,)), (lambda: g.empty(2, 2), (2, 2)), (lambda: g.full((2, 2), 7.0), (2, 2)),
    (lambda: g.full(3, 7.0), (3,)), (lambda: g.rand(2, 3), (2, 3)), (lambda: g.randn((4,)), (4,)),
    (lambda: g.eye(3), (3, 3)), (lambda: g.eye(2, 4), (2, 4)), (lambda: g.arange(5.0), (5,)),
    (lambda: g.linspace(0, 1, 7), (7,)), (lambda: g.zeros_like(g.ones(2, 5)), (2, 5)),
    (lambda: g.ones_like(g.ones(3)), (3,)), (lambda: g.full_like(g.ones(2), 4.0), (2,)),
])
def test_shapes_and_leaves(call, shape):
    t = call()
    assert tuple(t.shape) == shape
    assert t._data.dtype == np.float64
    assert t.is_leaf and not t.requires_grad


def test_values():
    assert g.ones(2).tolist() == [1.0, 1.0]
    assert g.full((2,), 3.5).tolist() == [3.5, 3.5]
    assert g.zeros_like(g.ones(2)).tolist() == [0.0, 0.0]
    assert g.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert g.arange(4).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert g.arange(1, 2, 0.25).tolist() == [1.0, 1.25, 1.5, 1.75]
    assert g.arange(5, 0, -2).tolist() == [5.0, 3.0, 1.0]
    # PyTorch's values (float64), both ends exact
    assert g.linspace(0, 1, 7).tolist() == [0.0, 0.16666666666666666, 0.3333333333333333, 0.5,
                                            0.6666666666666667, 0.8333333333333334, 1.0]
    assert g.linspace(2, 3, 1).tolist() == [2.0]
    assert g.linspace(2, 3, 0).tolist() == []


def test_requires_grad_argument():
    for t in (g.zeros(2, requires_grad=True), g.ones(2, requires_grad=True),
              g.rand(2, requires_grad=True), g.arange(3.0, requires_grad=True),
              g.full((1,), 2.0, requires_grad=True), g.zeros_like(g.ones(1), requires_grad=True)):
        assert t.requires_grad and t.is_leaf


@pytest.mark.parametrize("call, message", [
    (lambda: g.zeros(-1), "zeros: Dimension size must be non-negative."),
    (lambda: g.arange(0, 5, 0), "step must be nonzero"),
    (lambda: g.arange(5, 0), "upper bound and lower bound inconsistent with step sign"),
    (lambda: g.linspace(0, 1, -1), "number of steps must be non-negative"),
    (lambda: g.eye(-1), "n must be greater or equal to 0, got -1"),
])
def test_argument_errors(call, message):
    with pytest.raises(ProgramValueError) as info:
        call()
    assert str(info.value) == message


def test_a_non_integral_size_is_an_error():
    with pytest.raises(ProgramTypeError):
        g.zeros(2.5)


@pytest.mark.parametrize("call", [
    lambda: g.zeros(11, 10), lambda: g.ones(101), lambda: g.full((20, 20), 1.0), lambda: g.rand(101),
    lambda: g.randn(11, 11), lambda: g.eye(11), lambda: g.arange(101), lambda: g.linspace(0, 1, 101),
    lambda: g.tensor([0.0] * 101),
])
def test_element_limit(call, small_limit):
    with pytest.raises(LimitError, match="exceeds the limit of 100 elements"):
        call()


def test_the_limit_is_checked_before_allocating():
    with pytest.raises(LimitError):
        g.zeros(10**6, 10**6)      # 8 TB: would fail in numpy if it were allocated first


def test_seeds_are_reproducible():
    assert g.rand(3, seed=1).tolist() == g.rand(3, seed=1).tolist()
    assert g.randn(2, 2, seed=7).tolist() == g.randn(2, 2, seed=7).tolist()
    assert g.rand(3, seed=1).tolist() != g.rand(3, seed=2).tolist()
    g.manual_seed(42)
    first = g.rand(4).tolist() + g.randn(2).tolist()
    g.manual_seed(42)
    again = g.rand(4).tolist() + g.randn(2).tolist()
    assert first == again
    assert g.rand(4).tolist() != first[:4]           # the global generator moves on
    values = g.rand(1000, seed=0)._data
    assert values.min() >= 0.0 and values.max() < 1.0


def test_clone_is_an_op():
    x = g.tensor([1.0, 2.0], requires_grad=True)
    y = x.clone()
    assert y.grad_fn.name() == "CloneBackward0"
    assert not np.shares_memory(x._data, y._data)
    (y * 3.0).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    assert g.clone(g.ones(1)).grad_fn is None


def test_zero_on_a_graph_tensor_records_zerobackward():
    x = g.tensor([1.0, 2.0], requires_grad=True)
    y = x.clone()
    y.zero_()
    assert y.tolist() == [0.0, 0.0]
    assert y.grad_fn.name() == "ZeroBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "CloneBackward0"
    (y * 5.0 + x).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
