"""The second batch of ops: rounding, sort/topk/kthvalue, nansum, torch.linalg,
F.normalize/one_hot/dropout, nn.Parameter, x.new_*, isclose/allclose/equal, and
einsum's values beside PyTorch's (its own tests are in test_einsum.py).

Values, gradients, node names and error messages are PyTorch 2.13's (float64),
computed once and written here as literals, so the tests never need torch.
The table ops are checked against finite differences and SymPy by
test_op_table; here: PyTorch's numbers, the composed functions (einsum, the
linalg norms, normalize) at first and second order, and the language through
the CLI.
"""
import json

import numpy as np
import pytest
from typer.testing import CliRunner

import gradcli as torch
from gradcli import autograd
from gradcli.autograd import gradcheck, gradgradcheck
from gradcli.cli.app import app
from gradcli.errors import ProgramTypeError, ProgramValueError, ShapeError
from gradcli.ops import nn as F
from gradcli.ops.factories import Parameter
from gradcli.ops.linalg import LINALG_FUNCTIONS
from gradcli._tensor import Tensor

linalg = type("linalg", (), {k: staticmethod(v) for k, v in LINALG_FUNCTIONS.items()})

X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
R = [[1.26, -0.74, 2.5], [-1.5, 0.35, -2.65]]
SQ = [[2.0, 1.0, 0.5], [0.5, 3.0, -1.0], [1.0, 0.25, 2.5]]
SQ3 = [[1.0, -2.0, 3.0], [0.5, -0.25, 2.0], [4.0, 0.75, -1.5]]
M = [[1.0, 0.5], [2.0, -1.0], [0.0, 3.0]]

# name -> (node, value, grad, gradgrad): PyTorch 2.13's, float64, for y = f(input) and
# grad = d/d input of (y * arange(1, n + 1)).sum(); gradgrad = d/d input of (grad ** 2).sum()
# (None where PyTorch's first derivative has no graph or is constant).
REFERENCE = {
    'round': ('RoundBackward0', [[1.0, -1.0, 2.0], [-2.0, 0.0, -3.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        None),
    'round_1': ('RoundBackward1', [[1.3, -0.7, 2.6], [-1.5, 0.4, -2.6]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        None),
    'round_-1': ('RoundBackward1', [[20.0, -20.0, 10.0], [40.0, 0.0, -0.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        None),
    'floor': ('FloorBackward0', [[1.0, -1.0, 2.0], [-2.0, 0.0, -3.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        None),
    'ceil': ('CeilBackward0', [[2.0, -0.0, 3.0], [-1.0, 1.0, -2.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        None),
    'trunc': ('TruncBackward0', [[1.0, -0.0, 2.0], [-1.0, 0.0, -2.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        None),
    'frac': ('FracBackward0', [[0.26, -0.74, 0.5], [-0.5, 0.35, -0.6499999999999999]],
        [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
        None),
    'fix': ('TruncBackward0', [[1.0, -0.0, 2.0], [-1.0, 0.0, -2.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        None),
    'sort': ('SortBackward0', [[-1.0, 0.5, 2.0], [-0.75, 0.25, 1.5]],
        [[2.0, 1.0, 3.0], [6.0, 5.0, 4.0]],
        None),
    'sort_0_desc': ('SortBackward0', [[1.5, 0.25, 2.0], [0.5, -1.0, -0.75]],
        [[4.0, 5.0, 3.0], [1.0, 2.0, 6.0]],
        None),
    'topk': ('TopkBackward0', [[2.0, 0.5], [1.5, 0.25]],
        [[2.0, 0.0, 1.0], [3.0, 4.0, 0.0]],
        None),
    'topk_small': ('TopkBackward0', [[0.5, -1.0, -0.75]],
        [[1.0, 2.0, 0.0], [0.0, 0.0, 3.0]],
        None),
    'kthvalue': ('KthvalueBackward0', [0.5, 0.25],
        [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
        None),
    'kthvalue_keep': ('KthvalueBackward0', [[0.5, -1.0, -0.75]],
        [[1.0, 2.0, 0.0], [0.0, 0.0, 3.0]],
        None),
    'nansum': ('NansumBackward0', 2.5,
        [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]],
        None),
    'nansum_1': ('NansumBackward0', [1.5, 1.0],
        [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]],
        None),
    'normalize': ('DivBackward0', [[0.2182178902359924, -0.4364357804719848, 0.8728715609439696], [0.8846517369293828, 0.14744195615489714, -0.4423258684646914]],
        [[0.24939187455541986, 1.2469593727770993, 0.5611317177496947], [1.5128826805459008, 2.807807686775867, 3.961701256683758]],
        [[-0.5545837382572077, -0.19695497246517646, -1.8918043407839331], [-28.69926851319142, -7.666639270156981, 9.026382838826333]]),
    'normalize_p1': ('DivBackward0', [[0.25, -0.8, 0.7272727272727273], [0.75, 0.2, -0.2727272727272727]],
        [[-1.125, 1.12, 0.8925619834710742], [0.375, 4.48, 2.3801652892561984]],
        [[-2.25, 28.098559999999996, -3.733873120936846], [-1.125, -58.20416, 7.274614873549373]]),
    'einsum_mm': ('ViewBackward0', [[-1.5, 7.25], [2.0, -1.75]],
        [[2.0, 0.0, 6.0], [5.0, 2.0, 12.0]],
        None),
    'einsum_outer': ('MulBackward0', [[[0.25, -0.5, 1.0], [-0.5, 1.0, -2.0], [1.0, -2.0, 4.0]], [[2.25, 0.375, -1.125], [0.375, 0.0625, -0.1875], [-1.125, -0.1875, 0.5625]]],
        [[15.0, 21.0, 27.0], [15.0, 19.0, 23.0]],
        [[852.0, 1356.0, 1860.0], [2800.0, 3256.0, 3712.0]]),
    'einsum_trace_like': ('ViewBackward0', 8.125,
        [[1.0, -2.0, 4.0], [3.0, 0.5, -1.5]],
        [[4.0, -8.0, 16.0], [12.0, 2.0, -6.0]]),
    'einsum_T': ('PermuteBackward0', [[0.5, 1.5], [-1.0, 0.25], [2.0, -0.75]],
        [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]],
        None),
    'einsum_implicit': ('PermuteBackward0', [[0.5, 1.5], [-1.0, 0.25], [2.0, -0.75]],
        [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]],
        None),
    'einsum_ellipsis': ('ViewBackward0', [3.5, 0.625],
        [[1.0, -2.0, 0.5], [2.0, -4.0, 1.0]],
        None),
    'einsum_diag': ('PermuteBackward0', [1.0, -0.25, -1.5],
        [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]],
        None),
    'einsum_3': ('ViewBackward0', [[1.125, -5.5, 11.25], [3.8125, 1.71875, -4.15625]],
        [[18.875, -1.3125, 21.1875], [23.125, 5.0, 27.625]],
        [[2644.0, 1064.71875, 2559.59375], [2987.5625, 291.15625, 1881.84375]]),
    'linalg_det': ('LinalgDetBackward0', 11.812500000000002,
        [[7.750000000000002, -2.2500000000000004, -2.8750000000000004], [-2.3750000000000004, 4.500000000000001, 0.5000000000000001], [-2.5000000000000004, 2.2500000000000004, 5.500000000000001]],
        [[59.75000000000003, 12.375000000000007, 7.0625], [1.0625, 69.00000000000003, -22.375000000000007], [18.250000000000007, 8.250000000000007, 71.50000000000003]]),
    'linalg_inv': ('LinalgInvExBackward0', [[0.656084656084656, -0.20105820105820107, -0.21164021164021163], [-0.19047619047619044, 0.380952380952381, 0.19047619047619044], [-0.24338624338624337, 0.042328042328042326, 0.4656084656084656]],
        [[0.5791551188376585, 0.5200302343159486, 0.2623666750650874], [-0.2553120013437474, -0.7860922146636433, -0.6446628033929621], [-0.6497018560510623, -1.7898715041572184, -1.440497186528932]],
        [[-1.7260880747090526, 2.394473634371199, 2.788675393537086], [1.4094335160149598, -4.787584900528999, -4.943295080669845], [4.177698866177728, -8.573674780534555, -9.421170330461898]]),
    'linalg_norm': ('LinalgVectorNormBackward0', 4.7762432936357,
        [[0.418739138072171, 0.2093695690360855, 0.10468478451804275], [0.10468478451804275, 0.6281087071082565, -0.2093695690360855], [0.2093695690360855, 0.052342392259021375, 0.5234239225902138]],
        [[-5.551115123125783e-17, -2.7755575615628914e-17, -1.3877787807814457e-17], [-1.3877787807814457e-17, -1.1102230246251565e-16, 2.7755575615628914e-17], [-2.7755575615628914e-17, -6.938893903907228e-18, -5.551115123125783e-17]]),
    'linalg_norm_1': ('AmaxBackward0', 4.25,
        [[0.0, 1.0, 0.0], [0.0, 1.0, -0.0], [0.0, 1.0, 0.0]],
        None),
    'linalg_norm_inf': ('AmaxBackward0', 4.5,
        [[0.0, 0.0, 0.0], [1.0, 1.0, -1.0], [0.0, 0.0, 0.0]],
        None),
    'matrix_norm_-1': ('AminBackward0', 3.5,
        [[1.0, 0.0, 0.0], [1.0, 0.0, -0.0], [1.0, 0.0, 0.0]],
        None),
    'vector_norm_3': ('LinalgVectorNormBackward0', [2.089669598190616, 3.0411009977867, 2.5530336828071407],
        [[0.9160195498917768, 0.2290048874729442, 0.05725122186823605], [0.05406401773843022, 1.946304638583488, -0.21625607095372087], [0.4602652273229776, 0.0287665767076861, 2.87665767076861]],
        [[0.10919688013626505, -0.18247373391191707, -0.07184005272122718], [-0.11307145952907274, 0.13842939714404867, 0.3587524616676095], [-1.1928910278474976, -0.11427645414346965, 0.48858405655334636]]),
    'solve_vec': ('LinalgSolveExBackward0', [0.9523809523809524, -0.8571428571428572, -0.09523809523809525],
        [[0.4333585285966238, -0.3900226757369615, -0.043335852859662384], [-0.6550768455530361, 0.5895691609977325, 0.06550768455530362], [-1.491559586797682, 1.342403628117914, 0.14915595867976822]],
        [[-5.995578467932333, 5.329251307103472, 1.7897473652378397], [4.860047721963016, -4.273112591340765, -2.2851284628683817], [6.414350955635861, -5.543105197810114, -4.73790134509386]]),
    'solve_mat': ('LinalgSolveExBackward0', [[0.9523809523809524, 1.0], [-0.8571428571428572, 0.0], [-0.09523809523809525, 0.0]],
        [[1.9884101788863693, -0.9705215419501133, -0.10783572688334593], [-2.4741748551272362, 0.9886621315192743, 0.10985134794658603], [-5.692113882590073, 2.3038548752834465, 0.25598387503149406]],
        [[-77.90073763134293, 37.62543029212095, 18.434345588179333], [48.09681673319843, -26.51289341730739, -20.13224008419045], [66.8521467452655, -42.95488473563795, -44.38550858964087]]),
}

# name -> (input, the form in gradcli); the same form as REFERENCE's in PyTorch
FORMS = {
    "round": (R, lambda x: torch.round(x)),
    "round_1": ([[1.26, -0.74, 2.55], [-1.5, 0.35, -2.65]], lambda x: torch.round(x, decimals=1)),
    "round_-1": ([[15.0, -25.0, 14.9], [35.0, 0.35, -2.65]], lambda x: x.round(decimals=-1)),
    "floor": (R, lambda x: torch.floor(x)),
    "ceil": (R, lambda x: x.ceil()),
    "trunc": (R, lambda x: torch.trunc(x)),
    "frac": (R, lambda x: x.frac()),
    "fix": (R, lambda x: torch.fix(x)),
    "sort": (X, lambda x: torch.sort(x).values),
    "sort_0_desc": (X, lambda x: x.sort(0, descending=True).values),
    "topk": (X, lambda x: torch.topk(x, 2).values),
    "topk_small": (X, lambda x: x.topk(1, dim=0, largest=False).values),
    "kthvalue": (X, lambda x: torch.kthvalue(x, 2).values),
    "kthvalue_keep": (X, lambda x: x.kthvalue(1, 0, True).values),
    "nansum": (X, lambda x: torch.nansum(x)),
    "nansum_1": (X, lambda x: x.nansum(1)),
    "normalize": (X, lambda x: F.normalize(x)),
    "normalize_p1": (X, lambda x: F.normalize(x, p=1.0, dim=0)),
    "einsum_mm": (X, lambda x: torch.einsum("ij,jk->ik", x, torch.tensor(M))),
    "einsum_outer": (X, lambda x: torch.einsum("ij,ik->ijk", x, x)),
    "einsum_trace_like": (X, lambda x: torch.einsum("ij,ij->", x, x)),
    "einsum_T": (X, lambda x: torch.einsum("ij->ji", x)),
    "einsum_implicit": (X, lambda x: torch.einsum("ba", x)),
    "einsum_ellipsis": (X, lambda x: torch.einsum("...j,j->...", x, torch.tensor([1.0, -2.0, 0.5]))),
    "einsum_diag": (SQ3, lambda x: torch.einsum("ii->i", x)),
    "einsum_3": (X, lambda x: torch.einsum("ij,jk,kl->il", [x, x.t(), x])),
    "linalg_det": (SQ, lambda x: linalg.det(x)),
    "linalg_inv": (SQ, lambda x: linalg.inv(x)),
    "linalg_norm": (SQ, lambda x: linalg.norm(x)),
    "linalg_norm_1": (SQ, lambda x: linalg.norm(x, 1)),
    "linalg_norm_inf": (SQ, lambda x: linalg.norm(x, float("inf"))),
    "matrix_norm_-1": (SQ, lambda x: linalg.matrix_norm(x, -1)),
    "vector_norm_3": (SQ, lambda x: linalg.vector_norm(x, 3, dim=1)),
    "solve_vec": (SQ, lambda x: linalg.solve(x, torch.tensor([1.0, -2.0, 0.5]))),
    "solve_mat": (SQ, lambda x: linalg.solve(x, torch.tensor([[1.0, 2.0], [-2.0, 0.5], [0.5, 1.0]]))),
}

# where gradcli composes differently from PyTorch, the node PyTorch 2.13 records
PYTORCH_NODE_DIFFERS = {"einsum_mm": "MmBackward0", "einsum_outer": "MulBackward0",
                        "einsum_trace_like": "ViewBackward0", "einsum_diag": "DiagonalBackward0",
                        "einsum_3": "MmBackward0"}


def test_every_reference_has_a_form():
    assert set(FORMS) == set(REFERENCE)


@pytest.mark.parametrize("name", FORMS)
def test_values_gradients_and_node_as_pytorch(name):
    data, form = FORMS[name]
    node, value, grad, gradgrad = REFERENCE[name]
    x = torch.tensor(data, requires_grad=True)
    y = form(x)
    assert y.grad_fn.name() == PYTORCH_NODE_DIFFERS.get(name, node)
    assert np.allclose(y.tolist(), value, rtol=1e-13, atol=1e-15)
    w = torch.arange(1.0, y.numel() + 1).reshape(y.shape)
    (g,) = autograd.grad((y * w).sum(), x, create_graph=True)
    assert np.allclose(g.tolist(), grad, rtol=1e-12, atol=1e-14)
    if gradgrad is None or not g.requires_grad:
        return
    (gg,) = autograd.grad((g * g).sum(), x)
    assert np.allclose(gg.tolist(), gradgrad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", FORMS)
def test_first_and_second_order_gradient_checks(name):
    data, form = FORMS[name]
    if name.startswith(("round", "floor", "ceil", "trunc", "frac", "fix")):
        data = [[0.32, -0.71, 2.23], [-1.42, 0.11, -2.81]]     # off the jumps
    x = Tensor(np.array(data), requires_grad=True)
    assert gradcheck(form, (x,)) and gradgradcheck(form, (x,))


def test_solve_gradient_of_the_right_hand_side():
    b = torch.tensor([[1.0, 2.0], [-2.0, 0.5], [0.5, 1.0]], requires_grad=True)
    y = linalg.solve(torch.tensor(SQ), b)
    (g,) = autograd.grad((y * torch.arange(1.0, 7.0).reshape(3, 2)).sum(), b)
    assert np.allclose(g.tolist(), [[-1.1322751322751323, -0.9100529100529098], [1.1534391534391535, 1.3756613756613756], [2.687830687830688, 3.1322751322751317]], rtol=1e-13)   # PyTorch 2.13
    a = Tensor(np.array(SQ), requires_grad=True)
    b = Tensor(np.array([[1.0, 2.0], [-2.0, 0.5], [0.5, 1.0]]), requires_grad=True)
    assert gradcheck(linalg.solve, (a, b)) and gradgradcheck(linalg.solve, (a, b))
    left = lambda a, b: linalg.solve(a, b.t(), left=False)  # noqa: E731
    assert gradcheck(left, (a, b)) and gradgradcheck(left, (a, b))


# -- sort, topk, kthvalue: named tuples, nan, ties ------------------------------------------------

def test_sort_puts_nan_largest_and_is_stable_as_pytorch():
    x = torch.tensor([1.0, 0.0, 1.0, float("nan"), 0.0, 1.0, -float("inf"), float("inf")])
    up, down = torch.sort(x), torch.sort(x, descending=True)
    assert up.indices.tolist() == [6, 1, 4, 0, 2, 5, 7, 3]           # PyTorch 2.13
    assert down.indices.tolist() == [3, 7, 0, 2, 5, 1, 4, 6]
    assert torch.argsort(x, descending=True).tolist() == [3, 7, 0, 2, 5, 1, 4, 6]
    assert str(up.indices.dtype) == "torch.int64" and not up.indices.requires_grad


def test_sort_results_are_named_tuples_printed_as_pytorch():
    y = torch.tensor(X, requires_grad=True)
    r = torch.sort(y, 0)
    values, indices = r
    assert values is r.values and indices.tolist() == [[0, 0, 1], [1, 1, 0]]
    assert repr(r).startswith("torch.return_types.sort(\nvalues=tensor([[ 0.5000, -1.0000, -0.7500],")
    assert repr(torch.topk(y, 1)).startswith("torch.return_types.topk(")
    assert repr(torch.kthvalue(y, 1)).startswith("torch.return_types.kthvalue(")
    assert torch.topk(y, 2, largest=False).indices.tolist() == [[1, 0], [2, 1]]   # PyTorch 2.13
    assert y.argsort(dim=0).tolist() == [[0, 0, 1], [1, 1, 0]]


def test_sort_of_a_zero_dim_tensor():
    s = torch.tensor(2.0, requires_grad=True)
    for r in (torch.sort(s), torch.topk(s, 1), torch.kthvalue(s, 1)):
        assert r.values.item() == 2.0 and r.indices.tolist() == 0
    assert torch.sort(s).values.grad_fn.name() == "SortBackward0"


def test_sort_copies():
    y = torch.tensor(X) * 1.0
    v = y.sort().values
    assert not np.shares_memory(v._data, y._data) and v._base is None


# -- rounding ----------------------------------------------------------------------------------

def test_round_is_half_to_even_and_decimals_is_keyword_only():
    assert torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5])).tolist() == [0.0, 2.0, 2.0, -0.0]
    with pytest.raises(TypeError):
        torch.round(torch.tensor(X), 1)


def test_rounding_second_derivative_is_a_graph_of_zeros():
    x = torch.tensor(X, requires_grad=True)
    for f in (torch.floor, torch.ceil, torch.trunc, torch.round):
        (g,) = autograd.grad(f(x).sum(), x, create_graph=True)
        assert g.tolist() == [[0.0] * 3] * 2
        v = torch.ones(2, 3, requires_grad=True)
        (g,) = autograd.grad(f(x), x, v, create_graph=True)
        (gg,) = autograd.grad(g.sum(), v)        # the rule is itself differentiable: zeros
        assert gg.tolist() == [[0.0] * 3] * 2


# -- torch.linalg and det ------------------------------------------------------------------------

def test_det_prints_as_pytorch():
    # PyTorch 2.13: tensor(-2.) (numpy's det gives -2.0000000000000004, from exp(log|det|))
    d = torch.det(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert d.item() == -2.0 and repr(d) == "tensor(-2.)"
    assert repr(torch.det(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))) == "tensor(-0.)"     # PyTorch 2.13
    rng = np.random.default_rng(2)
    for shape in ((3, 3), (2, 4, 4), (1, 1), (2, 0, 0), (70, 70)):
        a = rng.normal(size=shape)
        assert np.allclose(torch.det(Tensor(a))._data, np.linalg.det(a))


LINALG_ERRORS = [  # PyTorch 2.13's messages
    (lambda: linalg.matrix_norm(torch.ones(2)), ShapeError,
     "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
    (lambda: linalg.norm(torch.ones(2, 2, 2), 1), ShapeError,
     "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."),
    (lambda: linalg.matrix_norm(torch.ones(2, 2), "foo"), ProgramValueError, "linalg.matrix_norm: Order foo not supported."),
    (lambda: linalg.vector_norm(torch.ones(2), "fro"), ProgramTypeError,
     "linalg_vector_norm\\(\\): argument 'ord' \\(position 2\\) must be Number, not str"),
    (lambda: linalg.solve(torch.eye(2), torch.ones(3)), ShapeError,
     "linalg.solve: Incompatible shapes of A and B for the equation AX = B \\(2x2 and 3x1\\)"),
    (lambda: linalg.solve(torch.ones(2, 2), torch.ones(2)), ProgramValueError,
     "torch.linalg.solve: The solver failed because the input matrix is singular."),
    (lambda: linalg.solve(torch.ones(2, 3), torch.ones(2)), ShapeError,
     "linalg.solve: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda: linalg.norm(torch.ones(2), "fro"), ShapeError,
     "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
    (lambda: linalg.inv(torch.ones(2, 2)), ProgramValueError,
     "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input "
     "matrix is singular."),
    (lambda: linalg.det(torch.ones(3)), ShapeError, "linalg.det: The input tensor A must have at least 2 dimensions."),
    (lambda: linalg.matrix_norm(torch.ones(2, 2), "nuc"), ProgramValueError, "singular values"),
]


@pytest.mark.parametrize("call, error, message", LINALG_ERRORS, ids=[str(k) for k in range(len(LINALG_ERRORS))])
def test_linalg_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_solve_broadcasts_a_batch():
    a = Tensor(np.array([[[2.0, 1.0], [0.5, 3.0]], [[1.0, 0.0], [0.5, 2.0]]]), requires_grad=True)
    b = Tensor(np.array([[1.0, -1.0, 0.5], [0.5, 2.0, -3.0]]), requires_grad=True)
    y = linalg.solve(a, b)
    assert np.allclose(y._data, np.linalg.solve(a._data, b._data))
    assert gradcheck(linalg.solve, (a, b)) and gradgradcheck(linalg.solve, (a, b))


# -- F.normalize, F.one_hot, F.dropout -----------------------------------------------------------

def test_normalize_is_composed_as_pytorch():
    y = F.normalize(torch.tensor(X, requires_grad=True))
    chain = y.grad_fn.next_functions[1][0]
    names = []
    while chain is not None:
        names.append(chain.name())
        chain = chain.next_functions[0][0] if chain.next_functions else None
    assert names == ["ExpandBackward0", "ClampMinBackward0", "LinalgVectorNormBackward0", "AccumulateGrad"]
    assert F.normalize(torch.zeros(2, 3)).tolist() == [[0.0] * 3] * 2


def test_one_hot():
    assert F.one_hot(torch.tensor([0, 2, 1])).tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    h = F.one_hot(torch.tensor([0, 2]), 4)
    assert h.tolist() == [[1, 0, 0, 0], [0, 0, 1, 0]] and str(h.dtype) == "torch.int64" and not h.requires_grad
    for call, message in [(lambda: F.one_hot(torch.tensor([0.5])), "only applicable to index tensor of type LongTensor"),
                          (lambda: F.one_hot(torch.tensor([0, 3]), 3), "Class values must be smaller than num_classes."),
                          (lambda: F.one_hot(torch.tensor([0, -1])), "Class values must be non-negative."),
                          (lambda: F.one_hot(torch.zeros(0)), "Can not infer total number of classes from empty tensor.")]:
        with pytest.raises((ProgramTypeError, ProgramValueError), match=message):
            call()


def test_dropout():
    x = torch.tensor(X, requires_grad=True)
    assert F.dropout(x, training=False) is x and F.dropout(x, p=0.0) is x      # PyTorch 2.13: the input itself
    zero = F.dropout(x, 1.0)
    assert zero.grad_fn.name() == "MulBackward0" and not np.any(zero._data)
    torch.manual_seed(3)
    y = F.dropout(x, 0.5)
    torch.manual_seed(3)
    assert F.dropout(x, 0.5).tolist() == y.tolist()
    kept = y._data != 0
    assert np.allclose(y._data[kept], 2.0 * np.array(X)[kept])
    (g,) = autograd.grad(y.sum(), x)
    assert np.array_equal(g._data, np.where(kept, 2.0, 0.0))
    with pytest.raises(ProgramValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)


def test_nansum_gradient_is_zero_at_nan():
    z = torch.tensor([1.0, float("nan"), 2.0], requires_grad=True)
    n = torch.nansum(z)
    n.backward()
    assert n.item() == 3.0 and z.grad.tolist() == [1.0, 0.0, 1.0]                  # PyTorch 2.13
    assert torch.nansum(torch.tensor([[1.0, float("nan")], [2.0, 3.0]]), dim=1).tolist() == [1.0, 5.0]


# -- nn.Parameter, x.new_*, isclose / allclose / equal ------------------------------------------

def test_parameter_shares_storage_and_version_and_prints_as_pytorch():
    d = torch.tensor([1.0, 2.0])
    p = Parameter(d)
    assert p.requires_grad and p.is_leaf and np.shares_memory(p._data, d._data)
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"   # PyTorch 2.13
    with torch.no_grad():
        p.mul_(2)
    assert d.tolist() == [2.0, 4.0] and d._version == 1 and p._version == 1
    assert repr(Parameter(torch.tensor([1.0]), requires_grad=False)) == "Parameter containing:\ntensor([1.])"
    assert repr(Parameter()) == "Parameter containing:\ntensor([], requires_grad=True)"
    assert type(p * 2) is Tensor
    with pytest.raises(ProgramTypeError, match="'list' object has no attribute 'detach'"):
        Parameter([1.0])


def test_new_factories_take_the_tensor_dtype_and_no_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert x.new_zeros(2, 3).tolist() == [[0.0] * 3] * 2 and x.new_zeros((2,)).tolist() == [0.0, 0.0]
    assert x.new_ones([2]).tolist() == [1.0, 1.0] and x.new_full((2,), 3).tolist() == [3.0, 3.0]
    assert x.new_empty(2).shape == (2,) and x.new_tensor(3.5).item() == 3.5
    t = x.new_tensor(x)
    assert not t.requires_grad and not np.shares_memory(t._data, x._data)
    assert x.new_zeros(2, requires_grad=True).requires_grad
    b = torch.tensor([True])
    assert b.new_zeros(2).tolist() == [False, False] and b.new_full((2,), 3).tolist() == [True, True]


def test_isclose_allclose_equal_as_pytorch():
    nan, inf = float("nan"), float("inf")
    assert torch.allclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0 + 1e-6, 2.0])) is True
    assert torch.isclose(torch.tensor([1.0, nan, inf]), torch.tensor([1.1, nan, inf])).tolist() == [False, False, True]
    assert torch.isclose(torch.tensor([1.0, nan]), torch.tensor([1.0, nan]), equal_nan=True).tolist() == [True, True]
    assert torch.equal(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0])) is True
    assert torch.equal(torch.tensor([1.0, 2.0]), torch.tensor([1.0])) is False
    assert torch.equal(torch.tensor([nan]), torch.tensor([nan])) is False
    assert torch.isclose(torch.tensor([[1.0, 2.0]]), torch.tensor([1.0, 2.01]), rtol=0.01).tolist() == [[True, True]]
    x = torch.tensor(X)
    assert x.allclose(x) and x.equal(x) and str(x.isclose(x).dtype) == "torch.bool"
    for call, error, message in [
            (lambda: torch.allclose(torch.ones(2), torch.ones(3)), ShapeError,
             "The size of tensor a \\(2\\) must match the size of tensor b \\(3\\) at non-singleton dimension 0"),
            (lambda: torch.isclose(torch.ones(2), 1.0), ProgramTypeError,
             "isclose\\(\\): argument 'other' \\(position 2\\) must be Tensor, not float"),
            (lambda: torch.allclose(torch.ones(2), torch.ones(2), rtol=-1), ProgramValueError,
             "rtol must be greater than or equal to zero, but got -1"),
            (lambda: torch.equal(torch.ones(2), 1.0), ProgramTypeError,
             "equal\\(\\): argument 'other' \\(position 2\\) must be Tensor, not float")]:
        with pytest.raises(error, match=message):
            call()


# -- the language, through the CLI ---------------------------------------------------------------

def invoke(*args):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


PROGRAM = """import torch
A = torch.tensor([[2.0, 1.0], [0.5, 3.0]], requires_grad=True)
w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
y = torch.einsum("ij,j->i", A, w)
z = torch.linalg.solve(A, w).sum() + y.sum() + torch.linalg.inv(A).sum()
"""


def test_cli_backward_through_einsum_linalg_and_a_parameter():
    result = invoke("backward", "-e", PROGRAM, "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    # PyTorch 2.13
    assert doc["output"]["value"] == pytest.approx(-4.772727272727273, rel=1e-14)
    assert np.allclose(doc["grads"]["A"], [[0.42148760330578516, -1.7520661157024793],
                                           [0.768595041322314, -1.9008264462809916]], rtol=1e-13)
    assert np.allclose(doc["grads"]["w"], [2.9545454545454546, 4.181818181818182], rtol=1e-13)


def test_cli_run_prints_parameter_det_and_sort():
    result = invoke("run", "-e", "w = torch.nn.Parameter(torch.tensor([3.0, 1.0]))\nprint(w)\n"
                                 "print(torch.linalg.det(torch.tensor([[1.0, 2.0], [3.0, 4.0]])))\n"
                                 "v, i = torch.sort(w)\nprint(v, i, torch.sort(w).indices)\n"
                                 "print(torch.allclose(w, w), w.new_zeros(2), torch.linalg.norm(w))\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ("Parameter containing:\ntensor([3., 1.], requires_grad=True)\n"
                             "tensor(-2.)\n"
                             "tensor([1., 3.], grad_fn=<SortBackward0>) tensor([1, 0]) tensor([1, 0])\n"
                             "True tensor([0., 0.]) tensor(3.1623, grad_fn=<LinalgVectorNormBackward0>)\n")


def test_cli_graph_of_linalg_norm_and_einsum():
    result = invoke("graph", "-e", "A = torch.tensor([[2.0, 1.0], [0.5, 3.0]], requires_grad=True)\n"
                                   "z = torch.linalg.norm(A, 1) + torch.einsum('ii', A)\n", "--json")
    names = [n["name"] for n in json.loads(result.stdout)["nodes"]]
    assert names[:3] == ["AddBackward0", "AmaxBackward0", "LinalgVectorNormBackward0"]
    assert "SumBackward1" in names and "DiagonalBackward0" in names


def test_cli_refuses_an_unknown_linalg_function():
    result = invoke("eval", "-e", "A = torch.eye(2)\nB = torch.linalg.svd(A)\n")
    assert result.exit_code != 0 and "torch.linalg" in result.stderr
