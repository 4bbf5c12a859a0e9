"""The ops added beside SPEC 2.3's: activations, flips and scans, diagonals, gather, masked_fill.

Values, gradients, node names and error messages are PyTorch 2.13's (float64),
computed once and written here as literals, so the tests never need torch.
Gradients of each table op are checked against finite differences and SymPy
by test_op_table; here: the numbers PyTorch gives, methods against functions,
the one op outside the table (diag of a matrix, DiagonalBackward0_copy), and
the language through the CLI. Which of these ops make views and which copy:
test_view_or_copy_ops.py.
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
from gradcli.ops import NN_FUNCTIONS, nn, shape
from gradcli.ops.shape import ProgramIndexError
from gradcli.ops.registry import apply
from gradcli._tensor import Tensor

F = nn

X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
V = [0.5, -1.5, 2.0]
SQ = [[1.0, -2.0, 3.0], [0.5, -0.25, 2.0], [4.0, 0.75, -1.5]]
Z = [[2.0, 0.0, 3.0], [1.5, -1.0, 0.0]]
DATA = {"X": X, "V": V, "SQ": SQ, "Z": Z}
MASK = [[True, False, True], [False, False, True]]

# name -> (node, value, grad, gradgrad): PyTorch 2.13's, float64, for y = f(input) and
# grad = d/d input of (y * arange(1, n + 1)).sum(); gradgrad = d/d input of (grad ** 2).sum()
# (None where PyTorch's first derivative is constant).
REFERENCE = {
    'gelu': ('GeluBackward0', [[0.34573123063700656, -0.15865525393145702, 1.9544997361036416], [1.399789198096713, 0.14967658142073093, -0.16997051428265111]],
        [[0.8674951246561629, -0.1666309411753727, 3.255695403234591], [4.509876768919918, 3.4768667744181805, 0.004645669564588895]],
        [[1.0689523408497805, -0.16127923825404675, -2.1093376979181495], [-1.1682167917199373, 26.047624605749323, 0.024132491307270482]]),
    'gelu_tanh': ('GeluBackward0', [[0.34571400982514394, -0.15880800939172324, 1.954597694087775], [1.3995715769802328, 0.149675350701685, -0.17003944483437966]],
        [[0.8673699035346424, -0.16592816769156504, 3.258297769870855], [4.510843172605732, 3.476770475755302, 0.0063704631755137076]],
        [[1.0677443124833184, -0.1607168272050471, -2.108934794575435], [-1.1013023860088476, 26.03922429790635, 0.033047987367278105]]),
    'silu': ('SiluBackward0', [[0.3112296656009273, -0.2689414213699951, 1.7615941559557646], [1.2263617142904655, 0.14054412522144952, -0.24061597561845527]],
        [[0.7399611873026519, 0.1446589762570265, 3.2723527463546866], [4.165176617196572, 3.1185501078509885, 0.944400333019479]],
        [[0.6529847093486318, 0.17495989280746904, 0.982926451299577], [5.2047242284215836, 15.113001755512894, 4.275037105643146]]),
    'leaky_relu': ('LeakyReluBackward0', [[0.5, -0.01, 2.0], [1.5, 0.25, -0.0075]],
        [[1.0, 0.02, 3.0], [4.0, 5.0, 0.06]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'leaky_relu_0.2': ('LeakyReluBackward0', [[0.5, -0.2, 2.0], [1.5, 0.25, -0.15000000000000002]],
        [[1.0, 0.4, 3.0], [4.0, 5.0, 1.2000000000000002]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'elu': ('EluBackward0', [[0.5, -0.6321205588285577, 2.0], [1.5, 0.25, -0.5276334472589853]],
        [[1.0, 0.7357588823428847, 3.0], [4.0, 5.0, 2.834199316446088]],
        [[0.0, 1.0826822658929016, 0.0], [0.0, 0.0, 16.065371530686942]]),
    'elu_2': ('EluBackward0', [[0.5, -1.2642411176571153, 2.0], [1.5, 0.25, -1.0552668945179706]],
        [[1.0, 1.4715177646857693, 3.0], [4.0, 5.0, 5.668398632892176]],
        [[0.0, 4.3307290635716065, 0.0], [0.0, 0.0, 64.26148612274777]]),
    'hardtanh': ('HardtanhBackward0', [[0.5, -1.0, 1.0], [1.0, 0.25, -0.75]],
        [[1.0, 0.0, 0.0], [0.0, 5.0, 6.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'hardtanh_range': ('HardtanhBackward0', [[0.5, -0.5, 1.0], [1.0, 0.25, -0.5]],
        [[1.0, 0.0, 0.0], [0.0, 5.0, 0.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'logsigmoid': ('LogSigmoidBackward0', [[-0.4740769841801067, -1.3132616875182228, -0.1269280110429725], [-0.2014132779827524, -0.5759394198788436, -1.1368710061148999]],
        [[0.37754066879814546, 1.4621171572600098, 0.3576087660663526], [0.7297020952254253, 2.1891174955710095, 4.075072195052358]],
        [[-0.17744691734927376, -1.149878723657721, -0.22527975912618128], [-0.8706598285692828, -5.388164267771989, -10.655253966238504]]),
    'softsign': ('DivBackward0', [[0.3333333333333333, -0.5, 0.6666666666666666], [0.6, 0.2, -0.42857142857142855]],
        [[0.4444444444444444, 0.5, 0.33333333333333337], [0.6400000000000001, 3.2, 1.9591836734693877]],
        [[-0.5267489711934157, 0.5, -0.14814814814814817], [-0.65536, -32.768, 8.773487237460582]]),
    'flip': ('FlipBackward0', [[-0.75, 0.25, 1.5], [2.0, -1.0, 0.5]],
        [[6.0, 5.0, 4.0], [3.0, 2.0, 1.0]],
        None),
    'roll': ('RollBackward0', [[2.0, 0.5, -1.0], [-0.75, 1.5, 0.25]],
        [[2.0, 3.0, 1.0], [5.0, 6.0, 4.0]],
        None),
    'roll_flat': ('RollBackward0', [[0.25, -0.75, 0.5], [-1.0, 2.0, 1.5]],
        [[3.0, 4.0, 5.0], [6.0, 1.0, 2.0]],
        None),
    'roll_multi': ('RollBackward0', [[0.25, -0.75, 1.5], [-1.0, 2.0, 0.5]],
        [[6.0, 4.0, 5.0], [3.0, 1.0, 2.0]],
        None),
    'tril': ('TrilBackward0', [[1.0, 0.0, 0.0], [0.5, -0.25, 0.0], [4.0, 0.75, -1.5]],
        [[1.0, 0.0, 0.0], [4.0, 5.0, 0.0], [7.0, 8.0, 9.0]],
        None),
    'triu_1': ('TriuBackward0', [[0.0, -1.0, 2.0], [0.0, 0.0, -0.75]],
        [[0.0, 2.0, 3.0], [0.0, 0.0, 6.0]],
        None),
    'tril_-1': ('TrilBackward0', [[0.0, 0.0, 0.0], [1.5, 0.0, 0.0]],
        [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0]],
        None),
    'diagonal': ('DiagonalBackward0', [1.0, -0.25, -1.5],
        [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]],
        None),
    'diagonal_1': ('DiagonalBackward0', [-1.0, -0.75],
        [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0]],
        None),
    'diagonal_dims': ('DiagonalBackward0', [0.5, 0.25],
        [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
        None),
    'diag_vec': ('DiagEmbedBackward0', [[0.5, 0.0, 0.0], [0.0, -1.5, 0.0], [0.0, 0.0, 2.0]],
        [1.0, 5.0, 9.0],
        None),
    'diag_vec_1': ('DiagEmbedBackward0', [[0.0, 0.5, 0.0, 0.0], [0.0, 0.0, -1.5, 0.0], [0.0, 0.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0]],
        [2.0, 7.0, 12.0],
        None),
    'diag_mat': ('DiagonalBackward0_copy', [1.0, -0.25, -1.5],
        [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]],
        None),
    'diag_mat_-1': ('DiagonalBackward0_copy', [0.5, 0.75],
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
        None),
    'movedim': ('PermuteBackward0', [[0.5, 1.5], [-1.0, 0.25], [2.0, -0.75]],
        [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]],
        None),
    'moveaxis': ('PermuteBackward0', [[0.5, 1.5], [-1.0, 0.25], [2.0, -0.75]],
        [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]],
        None),
    'swapaxes': ('TransposeBackward0', [[0.5, 1.5], [-1.0, 0.25], [2.0, -0.75]],
        [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]],
        None),
    'swapdims': ('TransposeBackward0', [[0.5, 1.5], [-1.0, 0.25], [2.0, -0.75]],
        [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]],
        None),
    'contiguous_t': ('CloneBackward0', [[0.5, 1.5], [-1.0, 0.25], [2.0, -0.75]],
        [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]],
        None),
    'view_as': ('ViewBackward0', [[0.5, -1.0], [2.0, 1.5], [0.25, -0.75]],
        [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
        None),
    'reshape_as': ('ViewBackward0', [0.5, -1.0, 2.0, 1.5, 0.25, -0.75],
        [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
        None),
    'unflatten': ('ViewBackward0', [[[0.5], [-1.0], [2.0]], [[1.5], [0.25], [-0.75]]],
        [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
        None),
    'gather': ('GatherBackward0', [[0.5, 0.5], [-0.75, 0.25]],
        [[3.0, 0.0, 0.0], [0.0, 4.0, 3.0]],
        None),
    'gather_0': ('GatherBackward0', [[1.5, -1.0, -0.75]],
        [[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]],
        None),
    'masked_fill': ('MaskedFillBackward0', [[-5.0, -1.0, -5.0], [1.5, 0.25, -5.0]],
        [[0.0, 2.0, 0.0], [4.0, 5.0, 0.0]],
        None),
    'cumsum': ('CumsumBackward0', [[0.5, -0.5, 1.5], [1.5, 1.75, 1.0]],
        [[6.0, 5.0, 3.0], [15.0, 11.0, 6.0]],
        None),
    'cumsum_0': ('CumsumBackward0', [[0.5, -1.0, 2.0], [2.0, -0.75, 1.25]],
        [[5.0, 7.0, 9.0], [4.0, 5.0, 6.0]],
        None),
    'cumprod': ('CumprodBackward0', [[0.5, -0.5, -1.0], [1.5, 0.375, -0.28125]],
        [[-7.0, 4.0, -1.5], [4.125, 0.75, 2.25]],
        [[73.0, -116.5, 54.0], [7.5, 44.625, 25.875]]),
    'cumprod_zeros': ('CumprodBackward0', [[2.0, 0.0, 0.0], [1.5, -1.5, -0.0]],
        [[1.0, 22.0, 0.0], [-1.0, 7.5, -9.0]],
        [[484.0, 22.0, 264.0], [183.0, -172.0, 147.0]]),
    'cumprod_zeros_0': ('CumprodBackward0', [[2.0, 0.0, 3.0], [3.0, -0.0, 0.0]],
        [[7.0, -3.0, 3.0], [8.0, 0.0, 18.0]],
        [[64.0, 0.0, 216.0], [56.0, -30.0, 36.0]]),
    'mT': ('TransposeBackward0', [[0.5, 1.5], [-1.0, 0.25], [2.0, -0.75]],
        [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]],
        None),
}

# name -> (input, the form in gradcli); the same form as REFERENCE's in PyTorch
FORMS = {
    "gelu": ("X", lambda x: F.gelu(x)),
    "gelu_tanh": ("X", lambda x: F.gelu(x, approximate="tanh")),
    "silu": ("X", lambda x: F.silu(x)),
    "leaky_relu": ("X", lambda x: F.leaky_relu(x)),
    "leaky_relu_0.2": ("X", lambda x: F.leaky_relu(x, 0.2)),
    "elu": ("X", lambda x: F.elu(x)),
    "elu_2": ("X", lambda x: F.elu(x, alpha=2.0)),
    "hardtanh": ("X", lambda x: F.hardtanh(x)),            # X holds -1.0: gradient 0 at a bound
    "hardtanh_range": ("X", lambda x: F.hardtanh(x, -0.5, 1.0)),
    "logsigmoid": ("X", lambda x: F.logsigmoid(x)),
    "softsign": ("X", lambda x: F.softsign(x)),
    "flip": ("X", lambda x: torch.flip(x, (0, 1))),
    "roll": ("X", lambda x: torch.roll(x, 1, 1)),
    "roll_flat": ("X", lambda x: torch.roll(x, 2)),
    "roll_multi": ("X", lambda x: torch.roll(x, (1, -1), (0, 1))),
    "tril": ("SQ", lambda x: torch.tril(x)),
    "triu_1": ("X", lambda x: torch.triu(x, 1)),
    "tril_-1": ("X", lambda x: torch.tril(x, -1)),
    "diagonal": ("SQ", lambda x: torch.diagonal(x)),
    "diagonal_1": ("X", lambda x: torch.diagonal(x, 1)),
    "diagonal_dims": ("X", lambda x: torch.diagonal(x, 0, 1, 0)),
    "diag_vec": ("V", lambda x: torch.diag(x)),
    "diag_vec_1": ("V", lambda x: torch.diag(x, 1)),
    "diag_mat": ("SQ", lambda x: torch.diag(x)),
    "diag_mat_-1": ("SQ", lambda x: torch.diag(x, -1)),
    "movedim": ("X", lambda x: torch.movedim(x, 0, 1)),
    "moveaxis": ("X", lambda x: torch.moveaxis(x, 1, 0)),
    "swapaxes": ("X", lambda x: torch.swapaxes(x, 0, 1)),
    "swapdims": ("X", lambda x: torch.swapdims(x, 1, 0)),
    "contiguous_t": ("X", lambda x: x.t().contiguous()),
    "view_as": ("X", lambda x: x.view_as(torch.zeros(3, 2))),
    "reshape_as": ("X", lambda x: x.reshape_as(torch.zeros(6))),
    "unflatten": ("X", lambda x: torch.unflatten(x, 1, (3, 1))),
    "gather": ("X", lambda x: torch.gather(x, 1, torch.tensor([[0, 0], [2, 1]]))),
    "gather_0": ("X", lambda x: torch.gather(x, 0, torch.tensor([[1, 0, 1]]))),
    "masked_fill": ("X", lambda x: x.masked_fill(torch.tensor(MASK), -5.0)),
    "cumsum": ("X", lambda x: torch.cumsum(x, 1)),
    "cumsum_0": ("X", lambda x: torch.cumsum(x, 0)),
    "cumprod": ("X", lambda x: torch.cumprod(x, 1)),
    "cumprod_zeros": ("Z", lambda x: torch.cumprod(x, 1)),
    "cumprod_zeros_0": ("Z", lambda x: torch.cumprod(x, 0)),
    "mT": ("X", lambda x: x.mT),
}


def test_every_reference_has_a_form():
    assert set(FORMS) == set(REFERENCE)


@pytest.mark.parametrize("name", FORMS)
def test_values_gradients_and_node_as_pytorch(name):
    which, form = FORMS[name]
    node, value, grad, gradgrad = REFERENCE[name]
    x = torch.tensor(DATA[which], requires_grad=True)
    y = form(x)
    assert y.grad_fn.name() == node
    assert np.allclose(y.tolist(), value, rtol=1e-13, atol=1e-15)
    w = torch.arange(1.0, y.numel() + 1).reshape(y.shape)
    (g,) = autograd.grad((y * w).sum(), x, create_graph=True)
    assert np.allclose(g.tolist(), grad, rtol=1e-13, atol=1e-15)
    if gradgrad is None:
        return
    if not g.requires_grad:
        # piecewise-linear (leaky_relu, hardtanh): PyTorch's second derivative is a graph of zeros
        assert np.allclose(gradgrad, 0.0)
        return
    (gg,) = autograd.grad((g * g).sum(), x)
    assert np.allclose(gg.tolist(), gradgrad, rtol=1e-12, atol=1e-14)


# -- methods and functions ----------------------------------------------------------------

PAIRS = [
    ("flip", lambda x: torch.flip(x, [0, 1]), lambda x: x.flip(0, 1)),
    ("flip list", lambda x: torch.flip(x, [1]), lambda x: x.flip([1])),
    ("flip dims=", lambda x: torch.flip(x, dims=(0,)), lambda x: x.flip(dims=(0,))),
    ("roll", lambda x: torch.roll(x, shifts=-1, dims=1), lambda x: x.roll(-1, 1)),
    ("tril", lambda x: torch.tril(x, diagonal=1), lambda x: x.tril(1)),
    ("triu", lambda x: torch.triu(x, -1), lambda x: x.triu(diagonal=-1)),
    ("diagonal", lambda x: torch.diagonal(x, offset=1, dim1=0, dim2=1), lambda x: x.diagonal(1)),
    ("diag", lambda x: torch.diag(x, diagonal=1), lambda x: x.diag(1)),
    ("movedim", lambda x: torch.movedim(x, source=0, destination=1), lambda x: x.movedim(0, 1)),
    ("moveaxis", lambda x: torch.moveaxis(x, (0, 1), (1, 0)), lambda x: x.moveaxis(0, 1)),
    ("swapaxes", lambda x: torch.swapaxes(x, axis0=0, axis1=1), lambda x: x.swapaxes(0, 1)),
    ("swapdims", lambda x: torch.swapdims(x, dim0=0, dim1=1), lambda x: x.swapdims(1, 0)),
    ("transpose", lambda x: torch.transpose(x, 0, 1), lambda x: x.swapaxes(0, 1)),
    ("unflatten", lambda x: torch.unflatten(x, dim=1, sizes=(-1, 1)), lambda x: x.unflatten(1, (3, 1))),
    ("view_as", lambda x: torch.reshape(x, (3, 2)), lambda x: x.view_as(torch.zeros(3, 2))),
    ("gather", lambda x: torch.gather(x, dim=1, index=torch.tensor([[2], [0]])),
     lambda x: x.gather(1, torch.tensor([[2], [0]]))),
    ("masked_fill", lambda x: torch.masked_fill(x, mask=x > 0, value=1.0), lambda x: x.masked_fill(x > 0, 1.0)),
    ("cumsum", lambda x: torch.cumsum(x, dim=-1), lambda x: x.cumsum(1)),
    ("cumprod", lambda x: torch.cumprod(x, 0), lambda x: x.cumprod(dim=0)),
    ("mT", lambda x: torch.transpose(x, -2, -1), lambda x: x.mT),
]


@pytest.mark.parametrize("name, function, method", PAIRS, ids=[p[0] for p in PAIRS])
def test_method_and_function_agree(name, function, method):
    a, b = function(torch.tensor(X, requires_grad=True)), method(torch.tensor(X, requires_grad=True))
    assert a.tolist() == b.tolist()
    assert a.grad_fn.name() == b.grad_fn.name()


def test_activations_are_nn_functions_only():
    # PyTorch 2.13 has them in torch.nn.functional, not as Tensor methods
    for name in ("gelu", "silu", "leaky_relu", "elu", "hardtanh", "logsigmoid", "softsign"):
        assert name in NN_FUNCTIONS and not hasattr(Tensor, name)


def test_in_place_methods_record_the_same_nodes():
    y = torch.tensor(X, requires_grad=True) * 1.0
    assert y.masked_fill_(y > 0, 0.0).grad_fn.name() == "MaskedFillBackward0"
    assert y.cumsum_(1).grad_fn.name() == "CumsumBackward0"
    assert y.tril_().grad_fn.name() == "TrilBackward0"


def test_masked_fill_with_a_tensor_value_has_an_edge_to_it():
    x = torch.tensor(X, requires_grad=True)
    s = torch.tensor(2.0, requires_grad=True)
    y = x.masked_fill(torch.tensor(MASK), s)
    assert y.grad_fn.name() == "MaskedFillBackward1"
    assert [n.name() for n, _ in y.grad_fn.next_functions] == ["AccumulateGrad", "AccumulateGrad"]
    (y * torch.arange(1.0, 7.0).reshape(2, 3)).sum().backward()
    assert s.grad.item() == 1.0 + 3.0 + 6.0
    assert x.grad.tolist() == [[0.0, 2.0, 0.0], [4.0, 5.0, 0.0]]
    constant = x.masked_fill(torch.tensor(MASK), torch.tensor(2.0))
    assert constant.grad_fn.next_functions[1] == (None, 0)


def test_masked_fill_takes_a_float_mask_of_zeros_and_ones_as_boolean():
    # every gradcli tensor is float64 (dtype= is ignored): a 0/1 mask means what it says
    x = torch.tensor(X, requires_grad=True)
    y = x.masked_fill(Tensor(MASK), -5.0)
    assert y.tolist() == x.masked_fill(torch.tensor(MASK), -5.0).tolist()


def test_masked_fill_broadcasts_the_input_with_the_mask():
    v = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = v.masked_fill(torch.tensor(MASK), 0.5)
    assert y.shape == (2, 3) and y.grad_fn.name() == "MaskedFillBackward0"
    y.sum().backward()
    assert v.grad.tolist() == [1.0, 2.0, 0.0]                  # PyTorch 2.13


def test_gather_of_zero_dim_tensors():
    v = torch.tensor(V, requires_grad=True)
    assert torch.gather(v, 0, torch.tensor(1)).tolist() == -1.5
    s = torch.tensor(2.0, requires_grad=True)
    y = torch.gather(s, 0, torch.tensor([0, 0]))
    y.sum().backward()
    assert y.tolist() == [2.0, 2.0] and s.grad.item() == 2.0


def test_gather_double_backward_records_scatter_add():
    x = torch.tensor(X, requires_grad=True)
    y = torch.gather(x, 1, torch.tensor([[0, 0], [2, 1]]))
    (g,) = autograd.grad(y, x, torch.ones(2, 2, requires_grad=True), create_graph=True)
    assert g.grad_fn.name() == "ScatterAddBackward0"            # PyTorch 2.13
    assert g.grad_fn.next_functions[0] == (None, 0)


# -- diag of a matrix: outside the table, so checked here -----------------------------------

@pytest.mark.parametrize("offset", [0, 1, -2])
def test_diag_of_a_matrix_gradients(offset):
    x = Tensor(np.random.default_rng(3).uniform(-1, 1, (3, 4)), requires_grad=True)
    f = lambda a: torch.diag(a, offset) ** 2  # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


def test_diag_of_a_matrix_is_the_copy_node():
    y = apply(shape.diag_copy, (torch.tensor(SQ, requires_grad=True),), {"offset": 1})
    assert y.grad_fn.name() == "DiagonalBackward0_copy" and y.tolist() == [-2.0, 2.0]


# -- cumprod with zeros, at higher order ---------------------------------------------------------

@pytest.mark.parametrize("data, dim", [([0.0, 2.0, 0.0, -1.5], 0), ([[1.5, 0.0, 2.0], [0.0, 0.0, 3.0]], 1),
                                       ([[0.0, 1.0], [2.0, 0.0], [0.5, -1.0]], 0)])
def test_cumprod_with_zeros_to_third_order(data, dim):
    x = torch.tensor(data, requires_grad=True)
    f = lambda a: torch.cumprod(a, dim)  # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))

    def second(a):
        (g,) = autograd.grad(f(a).sum(), a, create_graph=True)
        return autograd.grad(g.sum(), a, create_graph=True)[0]

    assert gradcheck(second, (x,))           # the third derivative, through the zeros


# -- errors: PyTorch 2.13's wording ---------------------------------------------------------------

def _x():
    return torch.tensor(X, requires_grad=True)


ERRORS = [
    (lambda: F.gelu(_x(), approximate="foo"), ProgramValueError, "approximate argument must be either none or tanh."),
    (lambda: F.hardtanh(_x(), 1.0, -1.0), ProgramValueError, "min_val cannot be greater than max_val"),
    (lambda: F.leaky_relu(_x(), inplace=True), ProgramValueError, "inplace=True is not supported"),
    (lambda: torch.flip(_x(), [0, 0]), ShapeError, "dim 0 appears multiple times in the list of dims"),
    (lambda: torch.flip(_x(), [0, -2]), ShapeError, "dim 0 appears multiple times in the list of dims"),
    (lambda: torch.flip(_x(), [2]), ShapeError, r"Dimension out of range \(expected to be in range of \[-2, 1\], "
                                                r"but got 2\)"),
    (lambda: torch.flip(_x(), 0), ProgramTypeError, "flip\\(\\): argument 'dims' \\(position 2\\) must be tuple "
                                                    "of ints, not int"),
    (lambda: torch.roll(_x(), (1, 2), (0,)), ShapeError, "shifts and dimensions must align. shifts: 2, dims:1"),
    (lambda: torch.roll(_x(), (1, 2)), ShapeError, "shifts and dimensions must align. shifts: 2, dims:0"),
    (lambda: torch.roll(torch.tensor(2.0), 1, 0), ProgramIndexError, "Dimension specified as 0 but tensor has no dimensions"),
    (lambda: torch.tril(torch.tensor(V)), ShapeError, "tril: input tensor must have at least 2 dimensions"),
    (lambda: torch.triu(torch.tensor(2.0)), ShapeError, "triu: input tensor must have at least 2 dimensions"),
    (lambda: torch.diagonal(torch.tensor(V)), ShapeError, r"Dimension out of range \(expected to be in range of "
                                                          r"\[-1, 0\], but got 1\)"),
    (lambda: torch.diagonal(_x(), 0, 1, 1), ShapeError, "diagonal dimensions cannot be identical 1, 1"),
    (lambda: torch.diag(torch.tensor(2.0)), ShapeError, r"diag\(\): Supports 1D or 2D tensors. Got 0D"),
    (lambda: torch.diag(torch.zeros(2, 2, 2)), ShapeError, r"diag\(\): Supports 1D or 2D tensors. Got 3D"),
    (lambda: torch.movedim(_x(), (0, 0), (0, 1)), ShapeError, r"movedim: repeated dim in `source` \(\[0, 0\]\)"),
    (lambda: torch.movedim(_x(), (0, 1), (1, -1)), ShapeError,
     r"movedim: repeated dim in `destination` \(\[1, -1\]\)"),
    (lambda: torch.movedim(_x(), (0, 1), (1,)), ShapeError,
     r"movedim: Invalid source or destination dims: source \(\[0, 1\] dims\) should contain the same number of "
     r"dims as destination \(\[1\] dims\)"),
    (lambda: torch.swapaxes(_x(), 0, 2), ShapeError, "Dimension out of range"),
    (lambda: _x().view_as(torch.zeros(4)), ShapeError, r"shape '\[4\]' is invalid for input of size 6"),
    (lambda: _x().reshape_as(3), ProgramTypeError,
     r"reshape_as\(\): argument 'other' \(position 1\) must be Tensor, not int"),
    (lambda: _x().unflatten(1, (2, 2)), ShapeError,
     r"unflatten: Provided sizes \[2, 2\] don't multiply up to the size of dim 1 \(3\) in the input tensor"),
    (lambda: _x().unflatten(1, ()), ShapeError, "unflatten: sizes must be non-empty"),
    (lambda: _x().unflatten(1, 3), ProgramTypeError,
     r"unflatten\(\): argument 'sizes' \(position 2\) must be tuple of ints, not int"),
    (lambda: torch.gather(_x(), 1, torch.tensor([[0.5, 1.0]])), ProgramTypeError,
     r"gather\(\): Expected dtype int32/int64 for index"),
    (lambda: torch.gather(_x(), 1, torch.tensor([[0, 3]])), ShapeError,
     "index 3 is out of bounds for dimension 1 with size 3"),
    (lambda: torch.gather(_x(), 1, torch.tensor([[0, -1]])), ShapeError,
     "index -1 is out of bounds for dimension 1 with size 3"),
    (lambda: torch.gather(_x(), 1, torch.tensor([0, 1])), ShapeError,
     "Index tensor must have the same number of dimensions as input tensor"),
    (lambda: torch.gather(_x(), 1, torch.tensor([[0, 1], [0, 1], [0, 1]])), ShapeError,
     r"Size does not match at dimension 0 expected index \[3, 2\] to be no larger than self \[2, 3\] apart "
     r"from dimension 1"),
    (lambda: torch.gather(_x(), 1, [[0]]), ProgramTypeError,
     r"gather\(\): argument 'index' \(position 3\) must be Tensor, not list"),
    (lambda: _x().masked_fill(torch.full((2, 3), 0.5), 0.0), ProgramTypeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype double"),
    (lambda: _x().masked_fill(_x() > 0, torch.tensor([1.0])), ShapeError,
     r"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension\(s\)."),
    (lambda: _x().masked_fill(torch.tensor([True, False]), 0.0), ShapeError,
     r"The size of tensor a \(2\) must match the size of tensor b \(3\) at non-singleton dimension 1"),
    (lambda: torch.cumsum(_x(), 2), ShapeError, "Dimension out of range"),
    (lambda: torch.tensor(V).mT, ShapeError,
     "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=[str(k) for k in range(len(ERRORS))])
def test_errors_keep_pytorch_wording(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_missing_arguments_are_type_errors():
    with pytest.raises(TypeError):
        torch.cumsum(_x())
    with pytest.raises(TypeError):
        F.gelu(_x(), "tanh")            # approximate is keyword-only, as in PyTorch


# -- the language, through the CLI --------------------------------------------------------------

def _backward(program):
    result = CliRunner().invoke(app, ["backward", "-e", program, "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_cli_backward_through_activations_and_scans():
    doc = _backward('x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)\n'
                    'y = F.gelu(x, approximate="tanh").cumsum(0).flip([0])\n'
                    'z = (y * torch.tensor([1.0, 2.0, 3.0])).sum()\n')
    # PyTorch 2.13
    assert doc["output"]["value"] == pytest.approx(3.5524577248634692, rel=1e-14)
    assert doc["grads"]["x"] == pytest.approx([5.2042194212078545, -0.24889225153734756, 1.0860992566236183],
                                              rel=1e-13)


def test_cli_backward_through_an_in_place_op_on_a_diagonal_and_mT():
    doc = _backward("x = torch.tensor([[0.5, -1.0], [2.0, 3.0]], requires_grad=True)\n"
                    "y = x * 1\n"
                    "y.diagonal().mul_(2)\n"
                    "z = (y * y.mT).sum()\n")
    assert doc["output"]["value"] == 33.0                          # PyTorch 2.13
    assert doc["grads"]["x"] == [[4.0, 4.0], [-2.0, 24.0]]


def test_cli_graph_names_the_new_nodes():
    result = CliRunner().invoke(app, ["graph", "-e", "x = torch.tensor([[0.5, -1.0], [2.0, 3.0]], "
                                      "requires_grad=True)\nz = torch.diag(x.masked_fill(x > 1, 0.0)"
                                      ".gather(1, torch.tensor([[1, 0], [0, 1]]))).sum()\n", "--json"],
                                catch_exceptions=False)
    names = [n["name"] for n in json.loads(result.stdout)["nodes"]]
    assert names == ["SumBackward0", "DiagonalBackward0_copy", "GatherBackward0", "MaskedFillBackward0",
                     "AccumulateGrad"]


def test_ops_lists_the_new_ops():
    result = CliRunner().invoke(app, ["ops", "--json"], catch_exceptions=False)
    nodes = {op["name"]: op["node"] for op in json.loads(result.stdout)["ops"]}
    for name, node in [("gelu", "GeluBackward0"), ("silu", "SiluBackward0"), ("flip", "FlipBackward0"),
                       ("roll", "RollBackward0"), ("diagonal", "DiagonalBackward0"),
                       ("gather", "GatherBackward0"), ("masked_fill", "MaskedFillBackward0"),
                       ("cumsum", "CumsumBackward0"), ("cumprod", "CumprodBackward0")]:
        assert nodes[name] == node
