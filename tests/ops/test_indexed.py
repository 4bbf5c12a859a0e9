"""index_select, index_add(_), scatter_add(_), all/any and the functional in-place forms
(ops/indexed.py). The op table checks the derivatives against finite differences at first
and second order; this file pins values, node names and errors. Expected values were
produced by PyTorch 2.13 on the same inputs and are written out here."""
import numpy as np
import pytest

import gradcli
from gradcli import Tensor
from gradcli.autograd import grad
from gradcli.errors import ProgramError, ShapeError
from gradcli.ops import FUNCTIONS

X = [[1., 2., 3.], [4., 5., 6.]]
W = np.arange(6.).reshape(2, 3)


def leaf(data):
    return Tensor(np.array(data, dtype=np.float64), requires_grad=True)


def index(values):
    return gradcli.tensor(values)


def test_index_select_value_node_and_gradient():
    x = leaf(X)
    y = FUNCTIONS["index_select"](x, 1, index([2, 0, 2]))
    assert y.tolist() == [[3., 1., 3.], [6., 4., 6.]]
    assert y.grad_fn.name() == "IndexSelectBackward0"
    g, = grad((y * gradcli.tensor(X)).sum(), x)
    assert g.tolist() == [[2., 0., 4.], [5., 0., 10.]]


def test_index_add_with_alpha_and_its_gradient():
    s = leaf([[1., 2.], [3., 4.]])
    z = gradcli.zeros(2, 3).index_add(1, index([2, 2]), s, alpha=3)
    assert z.tolist() == [[0., 0., 9.], [0., 0., 21.]]
    assert z.grad_fn.name() == "IndexAddBackward0"
    g, = grad((z * gradcli.tensor(W)).sum(), s)
    assert g.tolist() == [[6., 6.], [15., 15.]]


def test_index_add_in_place():
    w = leaf([1., 1., 1.]).clone()
    out = w.index_add_(0, index([0, 0]), gradcli.tensor([1., 2.]))
    assert out is w and w.tolist() == [4., 1., 1.]
    assert w.grad_fn.name() == "IndexAddBackward0"


def test_scatter_add_public_and_its_gradient():
    src = leaf([[1., 2.], [3., 4.]])
    out = gradcli.zeros(2, 3).scatter_add(1, index([[0, 0], [2, 1]]), src)
    assert out.tolist() == [[3., 0., 0.], [0., 4., 3.]]
    assert out.grad_fn.name() == "ScatterAddBackward0"
    g, = grad((out * gradcli.tensor(W)).sum(), src)
    assert g.tolist() == [[0., 0.], [5., 4.]]
    y = gradcli.zeros(2, 3)
    y.scatter_add_(1, index([[0, 0], [2, 1]]), gradcli.ones(2, 2))
    assert y.tolist() == [[2., 0., 0.], [0., 1., 1.]]


def test_gather_still_differentiates_twice_through_scatter_add():
    x = leaf([[1., 2.], [3., 4.]])
    y = x.gather(1, index([[1, 0], [0, 0]]))
    g, = grad((y ** 2).sum(), x, create_graph=True)
    gg, = grad(g.sum(), x)
    assert g.tolist() == [[2., 4.], [12., 0.]] and gg.tolist() == [[2., 2.], [4., 0.]]


@pytest.mark.parametrize("call, kind, message", [
    (lambda: FUNCTIONS["index_select"](gradcli.tensor(X), 0, index([2])), IndexError,
     "index out of range in self"),
    (lambda: FUNCTIONS["index_select"](gradcli.tensor(X), 0, index([[0]])), IndexError,
     "index_select(): Index is supposed to be a vector"),
    (lambda: gradcli.zeros(3).index_add(0, index([0]), gradcli.ones(2)), RuntimeError,
     "index_add_(): Number of indices (1) should be equal to source.size(dim): (2), for dim: 0"),
    (lambda: gradcli.zeros(3, 2).index_add_(0, index([5]), gradcli.ones(1, 2)), RuntimeError,
     "index 5 is out of bounds for dimension 0 with size 3"),
])
def test_errors_have_pytorchs_words_and_types(call, kind, message):
    with pytest.raises(ProgramError) as info:
        call()
    assert isinstance(info.value, kind) and str(info.value) == message


def test_all_and_any():
    x = gradcli.tensor([[1., 0.], [2., 3.]])
    assert x.all().item() is False and x.any().item() is True
    assert x.all(dim=1).tolist() == [False, True]
    assert x.any(1, keepdim=True).tolist() == [[True], [True]]
    assert gradcli.tensor([[0., 1.], [0., 0.]]).any(0).tolist() == [False, True]
    assert gradcli.tensor([]).all().item() is True
    assert gradcli.tensor([1., float("nan")]).all().item() is True
    with pytest.raises(ShapeError, match="Dimension out of range"):
        x.all(dim=2)


@pytest.mark.parametrize("name", ["sin_", "exp_", "relu_", "neg_", "zero_", "clamp_"])
def test_functional_in_place_forms_write_into_their_argument(name):
    t = gradcli.tensor([0.5])
    before = t._version
    args = (0.0, 0.2) if name == "clamp_" else ()
    out = FUNCTIONS[name](t, *args)
    assert out is t and t._version > before


def test_torch_exp_underscore_value():
    t = gradcli.tensor([0.5])
    assert round(FUNCTIONS["exp_"](t).item(), 4) == 1.6487
    assert "add_" not in FUNCTIONS  # torch has no torch.add_
