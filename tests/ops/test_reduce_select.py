"""Reductions (reduce.py) and selections (select.py): values, conventions, nodes, errors.

The op table test checks every op's derivatives against finite differences;
this file pins what finite differences cannot see: PyTorch's choices at ties,
bounds and zeros, the node names and edges of each form, keepdim shapes,
negative dims, error messages, and that each op's SymPy counterpart agrees
with its forward and its backward. Expected values were produced by PyTorch
2.13 (float64) on the same inputs and are written out here.
"""
import math

import numpy as np
import pytest

import gradcli
from gradcli import Tensor
from gradcli.autograd import grad
from gradcli.errors import ProgramTypeError, ProgramValueError, ShapeError
from gradcli.ops import OPS, apply

inf, nan = math.inf, math.nan
TIES = [[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]]
R = [[0.3, -1.2, 2.0], [1.5, -0.7, 0.4]]


def leaf(data):
    return Tensor(np.array(data, dtype=np.float64), requires_grad=True)


def grads(out, *inputs, seed=None):
    """d(sum(out * seed))/d inputs as arrays (seed: ones)."""
    seed = Tensor(np.ones(out.shape) if seed is None else np.asarray(seed, dtype=np.float64))
    return [g._data for g in grad(out, list(inputs), seed)]


def second(f, x, v):
    """d/dx of <df/dx, v> (a Hessian-vector product) through create_graph."""
    (g,) = grad(f(x), [x], create_graph=True)
    (h,) = grad((g * Tensor(np.asarray(v, dtype=np.float64))).sum(), [x], allow_unused=True)
    return np.zeros(x.shape) if h is None else h._data


# -- forward values ---------------------------------------------------------------

@pytest.mark.parametrize("expr, expected", [
    (lambda a: a.max(), 3.0),
    (lambda a: a.min(), 0.0),
    (lambda a: a.max(1)[0], [3.0, 2.0]),
    (lambda a: a.min(0)[0], [1.0, 0.0, 2.0]),
    (lambda a: a.amax(0), [2.0, 3.0, 3.0]),
    (lambda a: gradcli.amin(a, (0, 1)), 0.0),
    (lambda a: a.prod(), 0.0),
    (lambda a: a.prod(1), [9.0, 0.0]),
    (lambda a: a.norm(), math.sqrt(27.0)),
    (lambda a: a.norm(1, 1), [7.0, 4.0]),
    (lambda a: a.norm(inf), 3.0),
    (lambda a: a.norm(-inf), 0.0),
    (lambda a: a.norm(0), 5.0),
    (lambda a: a.norm(3, 0), [9.0 ** (1 / 3), 3.0, 35.0 ** (1 / 3)]),
    (lambda a: a.logsumexp(1), [3.7586236756795133, 2.7586236756795133]),
    (lambda a: a.var(), 1.3666666666666667),
    (lambda a: a.var(1), [1.3333333333333333, 1.3333333333333333]),
    (lambda a: a.var(1, False), [0.8888888888888888, 0.8888888888888888]),
    (lambda a: a.var(correction=0), 1.1388888888888888),
    (lambda a: a.std(), 1.1690451944500122),
    (lambda a: a.std(0), [0.7071067811865476, 2.1213203435596424, 0.7071067811865476]),
    (lambda a: a.clamp(0.5, 2.5), [[1.0, 2.5, 2.5], [2.0, 0.5, 2.0]]),
    (lambda a: a.clamp(max=1.0), [[1.0, 1.0, 1.0], [1.0, 0.0, 1.0]]),
    (lambda a: a.clamp(2.0, 1.0), [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]),
    (lambda a: gradcli.clip(a, min=1.5), [[1.5, 3.0, 3.0], [2.0, 1.5, 2.0]]),
    (lambda a: a.clamp_min(1.5), [[1.5, 3.0, 3.0], [2.0, 1.5, 2.0]]),
    (lambda a: a.clamp_max(1.5), [[1.0, 1.5, 1.5], [1.5, 0.0, 1.5]]),
    (lambda a: gradcli.maximum(a, Tensor([2.0, 2.0, 2.0])), [[2.0, 3.0, 3.0], [2.0, 2.0, 2.0]]),
    (lambda a: gradcli.minimum(a, Tensor([[2.0], [1.0]])), [[1.0, 2.0, 2.0], [1.0, 0.0, 1.0]]),
    (lambda a: gradcli.atan2(a, Tensor([1.0, -1.0, 0.0])),
     [[0.7853981633974483, 1.892546881191539, 1.5707963267948966],
      [1.1071487177940904, math.pi, 1.5707963267948966]]),
])
def test_forward_values(expr, expected):
    out = expr(leaf(TIES))
    out = out[0] if isinstance(out, tuple) else out
    np.testing.assert_allclose(out._data, expected, rtol=1e-12, atol=1e-15)


def test_logsumexp_is_stable():
    x = leaf([1000.0, 1001.0, -1000.0])
    out = gradcli.logsumexp(x, 0)
    assert out.item() == pytest.approx(1001.3132616875182, rel=1e-15)
    np.testing.assert_allclose(grads(out, x)[0], [0.2689414213699995, 0.7310585786300168, 0.0])
    assert gradcli.logsumexp(Tensor([-inf, -inf]), 0).item() == -inf
    assert gradcli.logsumexp(leaf(R)).item() == pytest.approx(gradcli.logsumexp(leaf(R), (0, 1)).item())


def test_var_std_overloads_and_corrections():
    a = leaf(R)
    assert a.var(False).item() == pytest.approx(a.var(correction=0).item())
    assert a.var(unbiased=False).item() == pytest.approx(a.var(correction=0).item())
    assert a.var(1, True, True).shape == (2, 1)
    assert a.std(()).item() == pytest.approx(a.std().item())
    with pytest.raises(ProgramTypeError):
        a.var(unbiased=True, correction=1)
    # n - correction <= 0: PyTorch divides by max(0, n - correction)
    x = leaf([1.0, 2.0])
    assert x.var(correction=3).item() == inf
    np.testing.assert_array_equal(grads(x.var(correction=2), x)[0], [inf, inf])
    np.testing.assert_array_equal(grads(x.var(0, correction=2), x)[0], [-inf, inf])
    np.testing.assert_array_equal(grads(x.var(0, correction=3), x)[0], [1.0, -1.0])
    assert math.isnan(gradcli.var(Tensor(2.0)).item())


# -- conventions at ties, bounds and zeros -------------------------------------------

def test_max_and_min_of_all_split_ties_evenly():
    a = leaf(TIES)
    np.testing.assert_array_equal(grads(a.max(), a)[0], [[0, 0.5, 0.5], [0, 0, 0]])
    b = leaf([[1.0, 0.0, 3.0], [0.0, 5.0, 0.0]])
    np.testing.assert_allclose(grads(b.min(), b)[0], [[0, 1 / 3, 0], [1 / 3, 0, 1 / 3]])


def test_max_of_all_with_nan_sends_the_gradient_to_the_nan():
    a = leaf([1.0, nan, 3.0])
    assert math.isnan(a.max().item())
    np.testing.assert_array_equal(grads(a.max(), a)[0], [0.0, 1.0, 0.0])


def test_max_dim_routes_the_gradient_to_the_returned_index():
    a = leaf(TIES)
    values, indices = a.max(1)
    np.testing.assert_array_equal(indices._data, [1, 0])  # the first maximum, as PyTorch
    np.testing.assert_array_equal(grads(values, a, seed=[10.0, 20.0])[0], [[0, 10, 0], [20, 0, 0]])
    values, indices = a.min(0)
    np.testing.assert_array_equal(indices._data, [0, 1, 1])
    np.testing.assert_array_equal(grads(values, a)[0], [[1, 0, 0], [0, 1, 1]])


def test_amax_splits_ties_along_dim():
    a = leaf(TIES)
    np.testing.assert_array_equal(grads(gradcli.amax(a, 1), a)[0], [[0, 0.5, 0.5], [0.5, 0, 0.5]])
    np.testing.assert_array_equal(grads(a.amin(), a)[0], [[0, 0, 0], [0, 1, 0]])


def test_maximum_and_minimum_split_ties_evenly_with_broadcasting():
    a = leaf([1.0, 2.0, 3.0])
    b = leaf([1.0, 3.0, 0.0])
    ga, gb = grads(gradcli.maximum(a, b), a, b)
    np.testing.assert_array_equal(ga, [0.5, 0.0, 1.0])
    np.testing.assert_array_equal(gb, [0.5, 1.0, 0.0])
    ga, gb = grads(gradcli.minimum(a, b), a, b)
    np.testing.assert_array_equal(ga, [0.5, 1.0, 0.0])
    np.testing.assert_array_equal(gb, [0.5, 0.0, 1.0])
    m = leaf(TIES)
    s = leaf(2.0)
    gm, gs = grads(gradcli.maximum(m, s), m, s)
    np.testing.assert_array_equal(gm, [[0, 1, 1], [0.5, 0, 0.5]])
    assert gs == pytest.approx(3.0)  # 1 + 1 + 0.5 + 0.5 summed back to the 0-d shape
    assert gradcli.max(a, b).grad_fn.name() == "MaximumBackward0"
    assert gradcli.min(a, other=b).grad_fn.name() == "MinimumBackward0"


def test_clamp_passes_the_gradient_at_its_bounds():
    x = leaf([-1.0, 0.0, 0.5, 1.0, 2.0])
    np.testing.assert_array_equal(grads(x.clamp(0.0, 1.0), x)[0], [0, 1, 1, 1, 0])
    np.testing.assert_array_equal(grads(x.clamp(min=0.0), x)[0], [0, 1, 1, 1, 1])
    np.testing.assert_array_equal(grads(x.clamp_min(0.0), x)[0], [0, 1, 1, 1, 1])
    np.testing.assert_array_equal(grads(x.clamp_max(1.0), x)[0], [1, 1, 1, 1, 0])
    np.testing.assert_array_equal(grads(gradcli.clip(x, 0.0, 1.0), x)[0], [0, 1, 1, 1, 0])
    np.testing.assert_array_equal(grads(x.clamp(1.0, 0.0), x)[0], [0, 0, 0, 0, 0])  # min > max


def test_clamp_with_tensor_bounds():
    x = leaf([0.3, -1.2, 2.0])
    lo = leaf([-0.7, 0.0, 0.5])
    hi = leaf([0.4, 0.4, 0.4])
    gx, glo, ghi = grads(gradcli.clamp(x, lo, hi), x, lo, hi)
    np.testing.assert_array_equal(gx, [1, 0, 0])
    np.testing.assert_array_equal(glo, [0, 1, 0])   # lo[2] > hi[2]: max wins
    np.testing.assert_array_equal(ghi, [0, 0, 1])
    out = gradcli.clamp(x, min=lo)
    assert out.grad_fn.name() == "ClampBackward0"
    assert out.grad_fn.next_functions[2] == (None, 0)


def test_atan2_has_gradient_zero_at_the_origin():
    y = leaf([0.0, 1.0])
    x = leaf([0.0, 0.0])
    gy, gx = grads(gradcli.atan2(y, x), y, x)
    np.testing.assert_array_equal(gy, [0.0, 0.0])
    np.testing.assert_array_equal(gx, [0.0, -1.0])


def _prod(x):
    return x.prod()


@pytest.mark.parametrize("data, first, hessian", [
    # one zero: only its own derivative survives; second derivatives pair it with the rest
    ([1.5, 0.0, 2.0], [0.0, 3.0, 0.0], [[0, 2, 0], [2, 0, 1.5], [0, 1.5, 0]]),
    # two zeros: every first derivative is 0, but d2/dx0dx1 is the remaining element
    ([0.0, 0.0, 3.0], [0.0, 0.0, 0.0], [[0, 3, 0], [3, 0, 0], [0, 0, 0]]),
    # three zeros: the Hessian vanishes too
    ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [[0, 0, 0], [0, 0, 0], [0, 0, 0]]),
])
def test_prod_with_zeros_first_and_second_order(data, first, hessian):
    x = leaf(data)
    np.testing.assert_array_equal(grads(x.prod(), x)[0], first)
    for k, row in enumerate(hessian):
        v = np.zeros(3)
        v[k] = 1.0
        np.testing.assert_array_equal(second(_prod, x, v), row)


def test_prod_with_zeros_along_a_dim():
    x = leaf([[1.5, 0.0, 2.0], [0.0, 0.0, 0.5]])
    np.testing.assert_array_equal(grads(x.prod(1), x)[0], [[0, 3, 0], [0, 0, 0]])
    np.testing.assert_array_equal(grads(x.prod(0, keepdim=True), x)[0], [[0, 0, 0.5], [1.5, 0, 2]])
    h = second(lambda t: t.prod(1).sum(), x, [[0, 0, 0], [1, 0, 0]])
    np.testing.assert_array_equal(h, [[0, 0, 0], [0, 0.5, 0]])
    z = leaf(0.0)
    assert grads(z.prod(), z)[0] == 1.0


@pytest.mark.parametrize("p", [2.0, 3.0, 1.5, 0.5, 1.0, inf])
def test_norm_at_zero_has_gradient_zero(p):
    x = leaf([0.0, 0.0, 0.0])
    assert gradcli.norm(x, p).item() == 0.0
    np.testing.assert_array_equal(grads(gradcli.norm(x, p), x)[0], [0.0, 0.0, 0.0])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_norm_second_order_at_zero_is_nan_as_in_pytorch():
    x = leaf([0.0, 0.0])
    assert np.isnan(second(lambda t: t.norm(), x, [1.0, 1.0])).all()


def test_norm_of_a_zero_row_along_dim():
    x = leaf([[0.0, 0.0], [3.0, 4.0]])
    np.testing.assert_allclose(grads(x.norm(dim=1), x)[0], [[0, 0], [0.6, 0.8]])


def test_norm_zero_is_a_count_with_no_gradient():
    x = leaf([0.3, 0.0, 2.0])
    assert gradcli.norm(x, 0).item() == 2.0
    np.testing.assert_array_equal(grads(gradcli.norm(x, 0) + x.sum(), x)[0], [1, 1, 1])


def test_std_at_zero_has_gradient_zero():
    x = leaf([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]])
    np.testing.assert_allclose(grads(x.std(1), x)[0], [[0, 0, 0], [-0.5, 0, 0.5]])
    y = leaf([2.0, 2.0])
    np.testing.assert_array_equal(grads(y.std(), y)[0], [0, 0])


# -- node names and edges ------------------------------------------------------------

FORMS = [
    ("a.max()", lambda a, b: a.max(), "MaxBackward1", 1),
    ("a.max(0)[0]", lambda a, b: a.max(0)[0], "MaxBackward0", 1),
    ("a.max(dim=1, keepdim=True).values", lambda a, b: a.max(dim=1, keepdim=True).values, "MaxBackward0", 1),
    ("a.min()", lambda a, b: a.min(), "MinBackward1", 1),
    ("a.min(1)[0]", lambda a, b: a.min(1)[0], "MinBackward0", 1),
    ("amax(a, 1)", lambda a, b: gradcli.amax(a, 1), "AmaxBackward0", 1),
    ("a.amin()", lambda a, b: a.amin(), "AminBackward0", 1),
    ("a.prod()", lambda a, b: a.prod(), "ProdBackward0", 1),
    ("a.prod(1)", lambda a, b: a.prod(1), "ProdBackward1", 1),
    ("a.norm()", lambda a, b: a.norm(), "LinalgVectorNormBackward0", 1),
    ("norm(a, 1, dim=1)", lambda a, b: gradcli.norm(a, 1, dim=1), "LinalgVectorNormBackward0", 1),
    ("logsumexp(a, 1)", lambda a, b: gradcli.logsumexp(a, 1), "LogsumexpBackward0", 1),
    ("a.var()", lambda a, b: a.var(), "VarBackward0", 1),
    ("a.var(1)", lambda a, b: a.var(1), "VarBackward0", 1),
    ("a.std()", lambda a, b: a.std(), "StdBackward0", 1),
    ("a.std(0)", lambda a, b: a.std(0), "StdBackward0", 1),
    ("maximum(a, b)", lambda a, b: gradcli.maximum(a, b), "MaximumBackward0", 2),
    ("minimum(a, b)", lambda a, b: gradcli.minimum(a, b), "MinimumBackward0", 2),
    ("max(a, b)", lambda a, b: gradcli.max(a, b), "MaximumBackward0", 2),
    ("atan2(a, b)", lambda a, b: gradcli.atan2(a, b), "Atan2Backward0", 2),
    ("a.atan2(b)", lambda a, b: a.atan2(b), "Atan2Backward0", 2),
    ("clamp(a, 0, 1)", lambda a, b: gradcli.clamp(a, 0, 1), "ClampBackward1", 1),
    ("a.clamp(min=0)", lambda a, b: a.clamp(min=0), "ClampBackward1", 1),
    ("a.clip(max=1)", lambda a, b: a.clip(max=1), "ClampBackward1", 1),
    ("a.clamp_min(0)", lambda a, b: a.clamp_min(0), "ClampMinBackward0", 1),
    ("a.clamp_max(0)", lambda a, b: a.clamp_max(0), "ClampMaxBackward0", 1),
    ("clamp(a, b, b + 1)", lambda a, b: gradcli.clamp(a, b, b + 1), "ClampBackward0", 3),
    ("where(a > 0, a, b)", lambda a, b: gradcli.where(a > 0, a, b), "WhereBackward0", 2),
    ("a.sum(dim=None, keepdim=True)", lambda a, b: gradcli.sum(a, None, True), "SumBackward1", 1),
]


@pytest.mark.parametrize("form, expr, node, n_edges", FORMS, ids=[f[0] for f in FORMS])
def test_node_name_and_edges(form, expr, node, n_edges):
    a = leaf(R)
    b = leaf([0.5, -1.0, 1.0])
    fn = expr(a, b).grad_fn
    assert fn.name() == node
    edges = fn.next_functions
    assert len(edges) == n_edges
    assert edges[0][0].name() == "AccumulateGrad" and edges[0][0].variable is a
    assert all(nr == 0 for _, nr in edges)


def test_a_constant_second_argument_is_a_none_edge():
    a = leaf(R)
    c = Tensor([0.5, -1.0, 1.0])
    assert gradcli.maximum(a, c).grad_fn.next_functions[1] == (None, 0)
    assert gradcli.atan2(c, a).grad_fn.next_functions[0] == (None, 0)
    assert gradcli.clamp(a, c).grad_fn.next_functions[1:] == ((None, 0), (None, 0))


def test_max_dim_returns_values_and_integer_indices():
    a = leaf(TIES)
    result = a.max(1)
    values, indices = result
    assert result.values is values and result.indices is indices
    assert values.grad_fn.name() == "MaxBackward0" and values._output_nr == 0
    assert indices.grad_fn is None and not indices.requires_grad
    assert indices._data.dtype == np.int64
    assert repr(result).startswith(
        "torch.return_types.max(\nvalues=tensor([3., 2.], grad_fn=<MaxBackward0>),\nindices=")
    assert repr(a.min(0)).startswith("torch.return_types.min(")
    v0, i0 = leaf(2.0).max(0)
    assert v0.item() == 2.0 and i0._data == 0 and v0.grad_fn.name() == "MaxBackward0"


def test_saved_indices_are_not_changed_by_editing_the_returned_ones():
    a = leaf(TIES)
    values, indices = a.max(1)
    indices._data[...] = 2
    np.testing.assert_array_equal(grads(values, a)[0], [[0, 1, 0], [1, 0, 0]])


def test_max_dim_saves_indices_not_the_input():
    # as PyTorch: an in-place change of the input breaks max() (it saved self), not max(dim)
    a = leaf(TIES)
    values = a.max(1)[0]
    whole = a.max()
    with gradcli.no_grad():
        a.add_(1.0)
    np.testing.assert_array_equal(grads(values, a)[0], [[0, 1, 0], [1, 0, 0]])
    with pytest.raises(gradcli.errors.AutogradError, match="modified by an inplace operation"):
        grads(whole, a)


def test_argmax_and_argmin():
    a = Tensor(TIES)
    assert a.argmax()._data == 1
    np.testing.assert_array_equal(gradcli.argmin(a, 1, keepdim=True)._data, [[0], [1]])
    assert a.argmax(keepdim=True).shape == (1, 1)


# -- keepdim shapes and negative dims ----------------------------------------------------

@pytest.mark.parametrize("name, call", [
    ("sum", lambda a, d, k: a.sum(d, keepdim=k)),
    ("mean", lambda a, d, k: a.mean(d, keepdim=k)),
    ("prod", lambda a, d, k: a.prod(d, keepdim=k)),
    ("max", lambda a, d, k: a.max(d, keepdim=k)[0]),
    ("max indices", lambda a, d, k: a.max(d, keepdim=k)[1]),
    ("min", lambda a, d, k: a.min(d, keepdim=k)[0]),
    ("amax", lambda a, d, k: a.amax(d, keepdim=k)),
    ("amin", lambda a, d, k: a.amin(d, keepdim=k)),
    ("norm", lambda a, d, k: a.norm(dim=d, keepdim=k)),
    ("norm p=1", lambda a, d, k: a.norm(1, d, keepdim=k)),
    ("logsumexp", lambda a, d, k: a.logsumexp(d, keepdim=k)),
    ("var", lambda a, d, k: a.var(d, keepdim=k)),
    ("std", lambda a, d, k: a.std(d, keepdim=k)),
])
def test_keepdim_shapes_and_negative_dims(name, call):
    a = leaf(R)
    assert call(a, 1, True).shape == (2, 1)
    assert call(a, 0, True).shape == (1, 3)
    assert call(a, 1, False).shape == (2,)
    assert call(a, 0, False).shape == (3,)
    for d in (0, 1):
        out_pos = call(a, d, True)
        out_neg = call(a, d - 2, True)
        np.testing.assert_array_equal(out_pos._data, out_neg._data)
        if out_pos.requires_grad:
            w = np.arange(1.0, out_pos._data.size + 1).reshape(out_pos.shape)
            np.testing.assert_array_equal(grads(out_pos, a, seed=w)[0], grads(out_neg, a, seed=w)[0])


def test_whole_tensor_keepdim_shapes():
    a = leaf(R)
    assert a.norm(keepdim=True).shape == (1, 1)
    assert a.var(keepdim=True).shape == (1, 1)
    assert gradcli.logsumexp(a, (0, 1), keepdim=True).shape == (1, 1)
    assert a.amax((0, 1), True).shape == (1, 1)
    assert a.sum(None, True).shape == (1, 1)


# -- errors ------------------------------------------------------------------------

OUT_OF_RANGE = "Dimension out of range (expected to be in range of [-1, 0], but got 1)"


@pytest.mark.parametrize("call", [
    lambda a: a.max(1), lambda a: a.min(1), lambda a: a.prod(1), lambda a: a.sum(1),
    lambda a: a.mean(1), lambda a: a.amax(1), lambda a: a.norm(dim=1),
    lambda a: a.logsumexp(1), lambda a: a.var(1), lambda a: a.std(1), lambda a: a.argmax(1),
])
@pytest.mark.parametrize("data", [[1.0, 2.0], 3.0], ids=["1-d", "0-d"])
def test_a_bad_dim_is_pytorchs_error(call, data):
    with pytest.raises(ShapeError) as err:
        call(leaf(data))
    assert str(err.value) == OUT_OF_RANGE


@pytest.mark.parametrize("call, error, message", [
    (lambda a: gradcli.maximum(a, 2.0), ProgramTypeError,
     "maximum(): argument 'other' (position 2) must be Tensor, not float"),
    (lambda a: gradcli.minimum(2.0, a), ProgramTypeError,
     "minimum(): argument 'input' (position 1) must be Tensor, not float"),
    (lambda a: gradcli.atan2(a, 1.0), ProgramTypeError,
     "atan2(): argument 'other' (position 2) must be Tensor, not float"),
    (lambda a: gradcli.clamp(a), ProgramValueError,
     "torch.clamp: At least one of 'min' or 'max' must not be None"),
    (lambda a: a.sum((0, 0)), ShapeError, "dim 0 appears multiple times in the list of dims"),
    (lambda a: Tensor(np.zeros(0)).max(), ShapeError,
     "max(): Expected reduction dim to be specified for input.numel() == 0. "
     "Specify the reduction dim with the 'dim' argument."),
    (lambda a: Tensor(np.zeros((2, 0))).max(1), ShapeError,
     "max(): Expected reduction dim 1 to have non-zero size."),
    (lambda a: gradcli.clamp(a, Tensor([0.0, 1.0, 2.0])), ShapeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda a: a.norm("nuc"), ProgramValueError, None),
    (lambda a: a.max(keepdim=True), ProgramTypeError, None),
])
def test_errors(call, error, message):
    with pytest.raises(error) as err:
        call(leaf([1.0, 2.0]))
    if message is not None:
        assert str(err.value) == message


# -- SymPy counterparts ---------------------------------------------------------------

MINE = ["prod", "prod_dim", "max", "min", "max_dim", "min_dim", "amax", "amin", "norm",
        "logsumexp", "var", "std", "sum", "sum_dim", "mean", "mean_dim", "maximum", "minimum",
        "atan2", "clamp", "clamp_min", "clamp_max", "clamp_tensor", "where"]


def _sympy_cases():
    for name in MINE:
        op = OPS[name]
        rng = np.random.default_rng(sum(map(ord, name)))
        for k, (inputs, params) in enumerate(op.domain(rng)):
            yield pytest.param(op, inputs, params, id=f"{name}-{k}")


@pytest.mark.parametrize("op, inputs, params", list(_sympy_cases()))
def test_sympy_counterpart_matches_forward_and_backward(op, inputs, params):
    sp = pytest.importorskip("sympy")
    symbols, arrays, point = [], [], {}
    for i, x in enumerate(inputs):
        if not isinstance(x, np.ndarray):
            arrays.append(x)
            symbols.append(None)
            continue
        syms = [sp.Symbol(f"x{i}_{j}", real=True) for j in range(x.size)]
        point.update(zip(syms, x.reshape(-1).tolist()))
        arrays.append(np.array(syms, dtype=object).reshape(x.shape))
        symbols.append(syms)
    expr = np.asarray(op.sympy(sp, *arrays, **params), dtype=object)
    tensors = [Tensor(np.array(x), requires_grad=True) if isinstance(x, np.ndarray) else x
               for x in inputs]
    out = apply(op, tuple(tensors), params)
    assert expr.shape == out.shape
    value = np.array([float(e.subs(point)) if isinstance(e, sp.Basic) else float(e)
                      for e in expr.reshape(-1)])
    np.testing.assert_allclose(value, out._data.reshape(-1), rtol=1e-10, atol=1e-12)
    # d <w, out> / d input, symbolically and by the op's backward
    w = np.random.default_rng(0).uniform(-1, 1, out.shape)
    total = sp.Add(*[c * e for c, e in zip(w.reshape(-1).tolist(), expr.reshape(-1))])
    diff = [t for t in tensors if isinstance(t, Tensor)]
    analytical = grad(out, diff, Tensor(w), allow_unused=True)
    k = 0
    for syms in symbols:
        if syms is None:
            continue
        expected = np.array([float(sp.diff(total, s).subs(point)) for s in syms])
        got = np.zeros(len(syms)) if analytical[k] is None else analytical[k]._data.reshape(-1)
        np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-10)
        k += 1
