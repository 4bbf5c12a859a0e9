"""The nn functions: values against numpy and PyTorch, node names and edges, errors, SymPy.

Values marked "PyTorch 2.13" were computed by PyTorch 2.13 (float64) for the
same inputs and are hard-coded, so the tests never need torch.
"""
import numpy as np
import pytest

import gradcli
from gradcli.autograd import gradgradcheck
from gradcli.errors import ProgramTypeError, ProgramValueError, ShapeError
from gradcli.ops import FUNCTIONS, NN_FUNCTIONS, nn
from gradcli._tensor import Tensor

from test_linalg import check_sympy, edges, edges_of, sympy_cases

F = gradcli.ops.nn
RNG = np.random.default_rng(11)


def leaf(*shape, lo=-2.0, hi=2.0):
    return Tensor(RNG.uniform(lo, hi, shape), requires_grad=True)


def T(v, requires_grad=False):
    return Tensor(np.array(v, dtype=float), requires_grad=requires_grad)


def grad(y, *xs):
    return [g._data for g in gradcli.autograd.grad(y.sum(), xs)]


X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# -- the F. namespace -------------------------------------------------------------------


def innermost(fn):
    while getattr(fn, "__wrapped__", None) is not None:
        fn = fn.__wrapped__
    return fn


def test_nn_functions_are_published():
    # torch.softmax takes out= (ops/keywords.py), F.softmax does not; vmap guards the functions
    # that read their arguments' values (ops/batching_rules.py): the same function inside
    for name in ("softmax", "log_softmax", "mse_loss", "binary_cross_entropy", "cross_entropy",
                 "nll_loss", "linear", "relu", "sigmoid", "tanh", "softplus"):
        assert innermost(NN_FUNCTIONS[name]) is innermost(FUNCTIONS[name])
    x = leaf(2, 3)
    np.testing.assert_allclose(x.softmax(1)._data, np_softmax(x._data, 1))
    np.testing.assert_allclose(x.log_softmax(0)._data, np.log(np_softmax(x._data, 0)))


# -- softmax, log_softmax ---------------------------------------------------------------


@pytest.mark.parametrize("shape, dim", [((2, 3), 1), ((2, 3), 0), ((2, 3), -1), ((3,), 0),
                                        ((2, 3, 2), 2)])
def test_softmax_values(shape, dim):
    x = leaf(*shape)
    np.testing.assert_allclose(F.softmax(x, dim)._data, np_softmax(x._data, dim), rtol=1e-12)
    np.testing.assert_allclose(F.log_softmax(x, dim)._data, np.log(np_softmax(x._data, dim)), rtol=1e-12)


def test_softmax_is_stable_and_handles_0d_and_the_implicit_dim():
    big = T([1000.0, 1001.0, 999.0])
    np.testing.assert_allclose(F.softmax(big, 0)._data, np_softmax(big._data, 0))
    np.testing.assert_allclose(F.log_softmax(big, 0)._data, np.log(np_softmax(big._data - 1000, 0)))
    assert F.softmax(T(2.0), 0).item() == 1.0
    assert F.log_softmax(T(2.0), -1).item() == 0.0
    x = leaf(2, 3)  # PyTorch's implicit choice: dim 1 for 2-D, 0 for 1-D and 3-D
    np.testing.assert_allclose(F.softmax(x)._data, np_softmax(x._data, 1))
    y = leaf(2, 3, 2)
    np.testing.assert_allclose(F.softmax(y)._data, np_softmax(y._data, 0))


def test_softmax_dim_out_of_range():
    with pytest.raises(ShapeError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        F.softmax(leaf(2, 3), 2)


# -- mse_loss --------------------------------------------------------------------------


def test_mse_loss_values():
    x, t = leaf(2, 3), leaf(2, 3)
    d = x._data - t._data
    assert F.mse_loss(x, t).item() == pytest.approx(np.mean(d * d))
    assert F.mse_loss(x, t, reduction="sum").item() == pytest.approx(np.sum(d * d))
    np.testing.assert_allclose(F.mse_loss(x, t, reduction="none")._data, d * d)


def test_mse_loss_broadcasts_and_weights_as_pytorch():
    x, t = T(X, True), T([0.0, 1.0, 1.0], True)
    loss = F.mse_loss(x, t)
    assert loss.item() == pytest.approx(1.8541666666666667, rel=1e-12)  # PyTorch 2.13
    gx, gt = grad(loss, x, t)
    np.testing.assert_allclose(gx, [[0.16666666666666666, -0.6666666666666666, 0.3333333333333333],
                                    [0.5, -0.25, -0.5833333333333333]])
    np.testing.assert_allclose(gt, [-0.6666666666666666, 0.9166666666666666, 0.25])
    v = T([1.0, -2.0, 0.5], True)
    loss = F.mse_loss(v, t, weight=T([1.0, 2.0, 3.0]))
    assert loss.item() == pytest.approx(3.2916666666666665, rel=1e-12)  # PyTorch 2.13
    np.testing.assert_allclose(grad(loss, v, t), [[1 / 3, -2.0, -0.5], [-1 / 3, 2.0, 0.5]])
    assert gradgradcheck(lambda a, b: F.mse_loss(a, b, weight=T([1.0, 2.0, 3.0])), (v, t))


# -- binary_cross_entropy -----------------------------------------------------------------


def test_binary_cross_entropy_values():
    p, t = leaf(2, 3, lo=0.05, hi=0.95), leaf(2, 3, lo=0, hi=1)
    w = T([0.5, 1.0, 2.0])
    loss = -(t._data * np.log(p._data) + (1 - t._data) * np.log(1 - p._data))
    assert F.binary_cross_entropy(p, t).item() == pytest.approx(loss.mean())
    assert F.binary_cross_entropy(p, t, reduction="sum").item() == pytest.approx(loss.sum())
    np.testing.assert_allclose(F.binary_cross_entropy(p, t, weight=w, reduction="none")._data,
                               loss * w._data)


def test_binary_cross_entropy_at_0_and_1_as_pytorch():
    p, t = T([0.0, 0.3, 1.0], True), T([0.0, 0.5, 1.0])
    loss = F.binary_cross_entropy(p, t)
    assert loss.item() == pytest.approx(0.2601079580441114, rel=1e-12)  # PyTorch 2.13
    np.testing.assert_allclose(grad(loss, p)[0], [0.0, -0.3174603174603175, 0.0])
    # the logs floored at -100; the gradient divided by max(x (1 - x), float32(1e-12))
    p, t = T([0.0, 0.3, 1.0], True), T([1.0, 0.5, 0.0])
    loss = F.binary_cross_entropy(p, t, reduction="sum")
    assert loss.item() == pytest.approx(200.78032387413234, rel=1e-12)  # PyTorch 2.13
    np.testing.assert_allclose(grad(loss, p)[0], [-1000000003995.8029, -0.9523809523809524,
                                                  1000000003995.8029], rtol=1e-12)


def test_binary_cross_entropy_gradient_of_the_target():
    p, t = T([0.2, 0.7], True), T([0.1, 0.9], True)
    loss = F.binary_cross_entropy(p, t, weight=T([2.0, 0.5]))
    assert loss.item() == pytest.approx(0.47212416992056205, rel=1e-12)  # PyTorch 2.13
    gp, gt = grad(loss, p, t)
    np.testing.assert_allclose(gp, [0.6249999999999999, -0.23809523809523817])
    np.testing.assert_allclose(gt, [1.3862943611198906, -0.21182446509680086])


# -- nll_loss, cross_entropy --------------------------------------------------------------


def np_cross_entropy(x, t):
    logp = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    return -logp[np.arange(len(t)), t]


def test_cross_entropy_with_class_indices():
    x = leaf(4, 3)
    t = np.array([0, 2, 1, 2])
    target = T(t)
    assert F.cross_entropy(x, target).item() == pytest.approx(np_cross_entropy(x._data, t).mean())
    assert F.cross_entropy(x, target, reduction="sum").item() == pytest.approx(np_cross_entropy(x._data, t).sum())
    np.testing.assert_allclose(F.cross_entropy(x, target, reduction="none")._data, np_cross_entropy(x._data, t))
    logp = F.log_softmax(x, 1)
    np.testing.assert_allclose(F.nll_loss(logp, target)._data, np_cross_entropy(x._data, t).mean())
    assert gradgradcheck(lambda a: F.cross_entropy(a, target), (x,))


# (call, value, gradient) from PyTorch 2.13 at X
PYTORCH_CE = [
    (lambda x: F.cross_entropy(x, T([2, 0])), 0.28599195303219055,
     [[0.08764519607001835, 0.019556286635343725, -0.10720148270536206],
      [-0.14077982942446754, 0.10291830199882578, 0.03786152742564176]]),
    (lambda x: F.cross_entropy(x, T([2, 0]), weight=T([1.0, 2.0, 0.5])), 0.30088550515720175,
     [[0.05843013071334556, 0.013037524423562482, -0.07146765513690803],
      [-0.18770643923262337, 0.13722440266510103, 0.05048203656752234]]),
    (lambda x: F.cross_entropy(x, T([2, 0]), label_smoothing=0.1), 0.4193252863655239,
     [[0.07097852940335168, 0.0028896199686770582, -0.07386814937202874],
      [-0.10744649609113421, 0.08625163533215911, 0.02119486075897509]]),
    (lambda x: F.cross_entropy(x, T([2, -100]), weight=T([1.0, 2.0, 0.5]), label_smoothing=0.2),
     1.3056609757657323,
     [[0.08870116337737981, -0.21712407385712923, 0.12842291047974938], [0.0, 0.0, 0.0]]),
    (lambda x: F.cross_entropy(x, T([2, 1]), label_smoothing=0.1, reduction="none"),
     [0.391311296657157, 1.5723392760738908],
     [[0.14195705880670337, 0.0057792399373541165, -0.14773629874405747],
      [0.6851070078177316, -0.7274967293356818, 0.04238972151795018]]),
    (lambda x: F.cross_entropy(x, T([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])), 1.2859919530321906,
     [[-0.012354803929981659, -0.13044371336465627, 0.14279851729463794],
      [0.05922017057553247, 0.05291830199882577, -0.11213847257435824]]),
    (lambda x: F.cross_entropy(x, T([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]), weight=T([1.0, 2.0, 0.5]),
                               label_smoothing=0.3), 1.795602727710674,
     [[-0.024904962264030092, -0.28878142900065207, 0.3136863912646822],
      [0.10460847313416541, -0.06553792347119183, -0.03907054966297362]]),
    (lambda x: F.cross_entropy(x, T([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]), reduction="none"),
     [1.441311296657157, 1.1306726094072241],
     [[-0.024709607859963317, -0.26088742672931253, 0.2855970345892759],
      [0.11844034115106494, 0.10583660399765155, -0.2242769451487165]]),
    (lambda x: F.cross_entropy(x[0], T(1)), 3.241311296657157,
     [[0.1752903921400367, -0.9608874267293126, 0.7855970345892759], [0.0, 0.0, 0.0]]),
    (lambda x: F.nll_loss(x, T([2, 0]), weight=T([1.0, 2.0, 0.5])), -1.6666666666666667,
     [[0.0, 0.0, -1 / 3], [-2 / 3, 0.0, 0.0]]),
    (lambda x: F.nll_loss(x, T([-100, 1]), reduction="none"), [0.0, -0.25],
     [[0.0, 0.0, 0.0], [0.0, -1.0, 0.0]]),
]


@pytest.mark.parametrize("call, value, gradient", PYTORCH_CE)
def test_cross_entropy_and_nll_as_pytorch(call, value, gradient):
    x = T(X, True)
    out = call(x)
    np.testing.assert_allclose(out._data, value, rtol=1e-12)
    np.testing.assert_allclose(grad(out, x)[0], gradient, rtol=1e-10, atol=1e-15)


def test_cross_entropy_over_extra_dims_as_pytorch():
    k = T([[[0.5, -1.0], [2.0, 1.5], [0.25, -0.75]]], True)  # (N=1, C=3, d=2)
    out = F.cross_entropy(k, T([[2, 0]]))
    assert out.item() == pytest.approx(2.378047702246997, rel=1e-12)  # PyTorch 2.13
    np.testing.assert_allclose(grad(out, k)[0], [[[0.07986595485458689, -0.4654374361270744],
                                                  [0.3579343769639154, 0.42105822564834444],
                                                  [-0.43780033181850225, 0.04437921047873001]]])


def test_cross_entropy_composed_forms_pass_gradient_checks():
    x = leaf(3, 4)
    probs = Tensor(np_softmax(RNG.uniform(-1, 1, (3, 4)), 1), requires_grad=True)
    w = T([0.5, 1.0, 2.0, 1.5])
    assert gradgradcheck(lambda a, p: F.cross_entropy(a, p, weight=w, label_smoothing=0.1), (x, probs))
    assert gradgradcheck(lambda a: F.cross_entropy(a, T([0, 3, -100]), weight=w, label_smoothing=0.2), (x,))
    assert gradgradcheck(lambda a: F.cross_entropy(a, T([1, 1, 2]), reduction="none", label_smoothing=0.3), (x,))


def test_all_targets_ignored_gives_nan_as_pytorch():
    assert np.isnan(F.nll_loss(T(X), T([-100, -100])).item())


# -- linear ------------------------------------------------------------------------------


def test_linear_values_and_graphs():
    W, b = T([[1.0, 0.5, -1.0], [0.0, 2.0, 1.0]], True), T([0.1, -0.2], True)
    x = T(X, True)
    out = F.linear(x, W, b)
    np.testing.assert_allclose(out._data, [[-1.9, -0.2], [2.475, -0.45]])  # PyTorch 2.13
    np.testing.assert_allclose(grad(out, x)[0], [[1.0, 2.5, 0.0], [1.0, 2.5, 0.0]])
    assert out.grad_fn.name() == "AddmmBackward0"
    assert edges(out) == [("AccumulateGrad", 0), ("AccumulateGrad", 0), ("TBackward0", 0)]
    out = F.linear(x, W)
    assert out.grad_fn.name() == "MmBackward0"
    assert edges(out) == [("AccumulateGrad", 0), ("TBackward0", 0)]
    v = T([1.0, 2.0, 3.0], True)
    out = F.linear(v, W, b)
    np.testing.assert_allclose(out._data, W._data @ v._data + b._data)
    assert out.grad_fn.name() == "ViewBackward0"
    assert edges_of(out.grad_fn.next_functions[0][0]) == [("AccumulateGrad", 0), ("ViewBackward0", 0),
                                                         ("TBackward0", 0)]
    assert F.linear(v, W).grad_fn.name() == "SqueezeBackward4"
    c = leaf(2, 2, 3)
    np.testing.assert_allclose(F.linear(c, W, b)._data, c._data @ W._data.T + b._data)
    assert F.linear(c, W).grad_fn.name() == "UnsafeViewBackward0"
    for args in ((x, W, b), (v, W, b), (c, W, b), (c, W), (v, W)):
        assert gradgradcheck(F.linear, args)


# -- node names and edges -------------------------------------------------------------


def test_node_names_and_edges():
    a, t = leaf(2, 3), leaf(2, 3)
    p = leaf(3)
    const = Tensor(np.ones((2, 3)))
    one = [("AccumulateGrad", 0)]
    cases = {
        "softmax": (F.softmax(a, 1), "SoftmaxBackward0", one),
        "log_softmax": (F.log_softmax(a, 1), "LogSoftmaxBackward0", one),
        "mse constant target": (F.mse_loss(a, const), "MseLossBackward0", [("AccumulateGrad", 0), (None, 0)]),
        "mse target with grad": (F.mse_loss(a, t), "MseLossBackward0", [("AccumulateGrad", 0)] * 2),
        "mse broadcast target": (F.mse_loss(a, p), "MseLossBackward0", [("AccumulateGrad", 0),
                                                                        ("ExpandBackward0", 0)]),
        "bce": (F.binary_cross_entropy(gradcli.sigmoid(p), Tensor([0.0, 1.0, 0.5]), weight=Tensor([1.0, 2.0, 3.0])),
                "BinaryCrossEntropyBackward0", [("SigmoidBackward0", 0), (None, 0)]),
        "cross_entropy": (F.cross_entropy(a, Tensor([0.0, 2.0])), "NllLossBackward0", [("LogSoftmaxBackward0", 0)]),
        "nll_loss": (F.nll_loss(a, Tensor([0.0, 2.0])), "NllLossBackward0", one),
    }
    for form, (out, name, expected) in cases.items():
        assert out.grad_fn.name() == name, form
        assert edges(out) == expected, form


# -- errors ------------------------------------------------------------------------------

ERRORS = [
    (lambda: F.mse_loss(T([1.0]), T([1.0]), reduction="foo"), ProgramValueError,
     "foo is not a valid value for reduction"),
    (lambda: F.mse_loss(T(np.ones((2, 3))), T(np.ones(4))), ShapeError,
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    (lambda: F.binary_cross_entropy(T([0.5, 0.5, 0.5]), T([0.5] * 4)), ProgramValueError,
     "Using a target size (torch.Size([4])) that is different to the input size (torch.Size([3])) is "
     "deprecated. Please ensure they have the same size."),
    (lambda: F.binary_cross_entropy(T([1.5]), T([0.5])), ProgramValueError,
     "all elements of input should be between 0 and 1"),
    (lambda: F.cross_entropy(T(X), T([0, 3])), ProgramValueError, "Target 3 is out of bounds."),
    (lambda: F.nll_loss(T(X), T([0, -1])), ProgramValueError, "Target -1 is out of bounds."),
    (lambda: F.cross_entropy(T(X), T([0, 1, 2])), ProgramValueError,
     "Expected input batch_size (2) to match target batch_size (3)."),
    (lambda: F.nll_loss(T(np.ones((2, 3, 4))), T([[0, 1, 2], [0, 1, 2]])), ShapeError,
     "Expected target size [2, 4], got [2, 3]"),
    (lambda: F.nll_loss(T(1.0), T(0)), ProgramValueError, "Expected 1 or more dimensions (got 0)"),
    (lambda: F.cross_entropy(T(X), T([0, 1]), label_smoothing=1.5), ProgramValueError,
     "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
    (lambda: F.cross_entropy(T(X), T([0.5, 1.0])), ProgramTypeError,
     "nll_loss: the target must hold class indices (integers), or have the input's shape for class "
     "probabilities"),
    (lambda: F.linear(T(X), T(np.ones((4, 2)))), ShapeError,
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)"),
    (lambda: F.linear(T(X), T(np.ones((4, 3))), T(np.ones(3))), ShapeError,
     "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  "
     "Target sizes: [2, 4].  Tensor sizes: [3]"),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=[m[:40] for _, _, m in ERRORS])
def test_errors_have_pytorchs_messages(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


# -- SymPy counterparts ------------------------------------------------------------------


@pytest.mark.parametrize("op, inputs, params", list(sympy_cases(nn)))
def test_sympy_counterpart(op, inputs, params):
    check_sympy(op, inputs, params)
