"""The in-place Tensor methods (`x.exp_()`): each is its op written into x, recorded
under the op's node name, differentiable at first and second order, and a result
the op saved is checked for later in-place changes, as in PyTorch."""
import numpy as np
import pytest

from gradcli import autograd
from gradcli.errors import AutogradError
from gradcli.ops import FUNCTIONS, METHODS
from gradcli.ops.tensor_methods import INPLACE
from gradcli._tensor import Tensor

# arguments after self, on a domain where each op is smooth
ARGS = {"add": (0.5,), "sub": (0.5,), "mul": (1.5,), "div": (1.5,), "pow": (2.0,),
        "atan2": (Tensor([0.7, 1.3]),), "clamp_min": (0.45,), "clamp_max": (0.55,), "clip": (0.1, 0.9),
        "masked_fill": (Tensor([True, False]), 2.0), "cumsum": (0,), "cumprod": (0,),
        "tril": (), "triu": (), "floor_divide": (0.25,), "remainder": (0.25,), "fmod": (0.25,)}
NO_DERIVATIVE = {"floor_divide"}   # PyTorch records NotImplemented (tests/ops/test_division.py)
SQUARE = {"tril", "triu"}   # need a matrix
AVAILABLE = [name for name in INPLACE if name in FUNCTIONS]


def _input(name, requires_grad=False):
    data = [[0.3, 0.6], [0.2, 0.4]] if name in SQUARE else [0.3, 0.6]
    return Tensor(data, requires_grad=requires_grad)


@pytest.mark.parametrize("name", AVAILABLE)
def test_in_place_method_matches_the_op(name):
    args = ARGS.get(name, ())
    expected = FUNCTIONS[name](_input(name, True) * 1, *args)
    x = _input(name, True) * 1
    y = getattr(x, name + "_")(*args)
    assert y is x and x._version == 1
    assert np.allclose(x._data, expected._data)
    assert x.grad_fn.name() == expected.grad_fn.name()
    assert name + "_" in METHODS


@pytest.mark.parametrize("name", [name for name in AVAILABLE if name not in NO_DERIVATIVE])
def test_in_place_method_gradients_first_and_second_order(name):
    args = ARGS.get(name, ())

    def f(a):
        y = a * 1
        getattr(y, name + "_")(*args)
        return y * a

    a = _input(name, True)
    assert autograd.gradcheck(f, (a,))
    assert autograd.gradgradcheck(f, (a,))


def test_a_result_saved_by_an_in_place_op_is_checked():
    """ExpBackward0 saved y itself; changing y again breaks its backward (PyTorch's message)."""
    x = Tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.exp_()
    y.mul_(2)
    with pytest.raises(AutogradError, match="which is output 0 of Exp, is at version 2; expected version 1"):
        y.sum().backward()


def test_in_place_on_a_leaf_that_requires_grad_is_refused():
    with pytest.raises(AutogradError, match="^a leaf Variable that requires grad is being used in an in-place"):
        Tensor([1.0], requires_grad=True).exp_()


@pytest.mark.parametrize("change", [lambda y: y.zero_(), lambda y: y.fill_(0.5), lambda y: y.exp_(),
                                    lambda y: y[0].zero_(), lambda y: y.copy_(Tensor([1.0, 2.0]))])
def test_an_in_place_op_bumps_the_version_once(change):
    """Found by benchmarks/compare_views.py: zero_ on a recorded tensor bumped it twice."""
    y = Tensor([1.0, 2.0], requires_grad=True) * 1
    change(y)
    assert y._version == 1
