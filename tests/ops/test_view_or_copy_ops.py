"""Which of the newer ops make views and which copy, as PyTorch's do.

An in-place op on a view reaches the base and its gradient; on a copy it
leaves the input alone. The expected values, gradients, nodes and versions are
PyTorch 2.13's (float64), written here as literals.
"""
import numpy as np
import pytest

import gradcli as torch

X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
SQ = [[1.0, -2.0, 3.0], [0.5, -0.25, 2.0], [4.0, 0.75, -1.5]]

# name -> (y after v.mul_(3), input's grad, y's node, y._version): PyTorch 2.13's for
# y = input * 1; v = f(y); v.mul_(3); (y * arange(1, n + 1)).sum().backward()
IN_PLACE = {
    'diagonal': ([[3.0, -2.0, 3.0], [0.5, -0.75, 2.0], [4.0, 0.75, -4.5]], [[3.0, 2.0, 3.0], [4.0, 15.0, 6.0], [7.0, 8.0, 27.0]], 'CopySlices', 1),
    'diagonal_1': ([[0.5, -3.0, 2.0], [1.5, 0.25, -2.25]], [[1.0, 6.0, 3.0], [4.0, 5.0, 18.0]], 'CopySlices', 1),
    'diagonal_of_t': ([[0.5, -3.0, 2.0], [1.5, 0.25, -2.25]], [[1.0, 6.0, 3.0], [4.0, 5.0, 18.0]], 'CopySlices', 1),
    'movedim': ([[1.5, -3.0, 6.0], [4.5, 0.75, -2.25]], [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]], 'CopySlices', 1),
    'moveaxis': ([[1.5, -3.0, 6.0], [4.5, 0.75, -2.25]], [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]], 'CopySlices', 1),
    'swapaxes': ([[1.5, -3.0, 6.0], [4.5, 0.75, -2.25]], [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]], 'CopySlices', 1),
    'swapdims': ([[1.5, -3.0, 6.0], [4.5, 0.75, -2.25]], [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]], 'CopySlices', 1),
    'view_as': ([[1.5, -3.0, 6.0], [4.5, 0.75, -2.25]], [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]], 'CopySlices', 1),
    'reshape_as': ([[1.5, -3.0, 6.0], [4.5, 0.75, -2.25]], [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]], 'CopySlices', 1),
    'unflatten': ([[1.5, -3.0, 6.0], [4.5, 0.75, -2.25]], [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]], 'CopySlices', 1),
    'mT': ([[1.5, -3.0, 6.0], [4.5, 0.75, -2.25]], [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]], 'CopySlices', 1),
    'contiguous': ([[1.5, -3.0, 6.0], [4.5, 0.75, -2.25]], [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0]], 'MulBackward0', 1),
    'flip': ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 'MulBackward0', 0),
    'roll': ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 'MulBackward0', 0),
    'tril': ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 'MulBackward0', 0),
    'triu': ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 'MulBackward0', 0),
    'gather': ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 'MulBackward0', 0),
    'masked_fill': ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 'MulBackward0', 0),
    'cumsum': ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 'MulBackward0', 0),
    'cumprod': ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 'MulBackward0', 0),
    'diag': ([[1.0, -2.0, 3.0], [0.5, -0.25, 2.0], [4.0, 0.75, -1.5]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], 'MulBackward0', 0),
    'diag_vec': ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 'MulBackward0', 0),
    'contiguous_of_t': ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 'MulBackward0', 0),
}

# name -> the form applied to y = input * 1 (the same as IN_PLACE's in PyTorch)
VIEW_FORMS = {
    "diagonal": lambda y: y.diagonal(),
    "diagonal_1": lambda y: torch.diagonal(y, 1),
    "diagonal_of_t": lambda y: y.t().diagonal(-1),
    "movedim": lambda y: torch.movedim(y, 0, 1),
    "moveaxis": lambda y: y.moveaxis(1, 0),
    "swapaxes": lambda y: y.swapaxes(0, 1),
    "swapdims": lambda y: torch.swapdims(y, 0, 1),
    "view_as": lambda y: y.view_as(torch.zeros(3, 2)),
    "reshape_as": lambda y: y.reshape_as(torch.zeros(6)),
    "unflatten": lambda y: y.unflatten(1, (3, 1)),
    "mT": lambda y: y.mT,
    "contiguous": lambda y: y.contiguous(),
}
COPY_FORMS = {
    "flip": lambda y: y.flip(0),
    "roll": lambda y: y.roll(1, 1),
    "tril": lambda y: y.tril(),
    "triu": lambda y: torch.triu(y),
    "gather": lambda y: y.gather(1, torch.tensor([[0, 0], [2, 1]])),
    "masked_fill": lambda y: y.masked_fill(y > 0, 0.0),
    "cumsum": lambda y: y.cumsum(1),
    "cumprod": lambda y: y.cumprod(0),
    "diag": lambda y: y.diag(),
    "diag_vec": lambda y: torch.diag(y[0]),
    "contiguous_of_t": lambda y: y.t().contiguous(),
}


def test_every_in_place_reference_has_a_form():
    assert set(VIEW_FORMS) | set(COPY_FORMS) == set(IN_PLACE)


def _in_place_through(name, form):
    after, grad, node, version = IN_PLACE[name]
    a = torch.tensor(SQ if name in ("diagonal", "diag") else X, requires_grad=True)
    y = a * 1.0
    before = y.tolist()
    v = form(y)
    v.mul_(3.0)
    w = torch.arange(1.0, y.numel() + 1).reshape(y.shape)
    (y * w).sum().backward()
    assert np.allclose(y.tolist(), after)
    assert np.allclose(a.grad.tolist(), grad)
    assert y.grad_fn.name() == node
    assert y._version == version
    return before, y


@pytest.mark.parametrize("name", VIEW_FORMS)
def test_in_place_on_a_view_changes_the_base_and_its_gradient(name):
    before, y = _in_place_through(name, VIEW_FORMS[name])
    assert y.tolist() != before


@pytest.mark.parametrize("name", COPY_FORMS)
def test_in_place_on_a_copy_leaves_the_input_alone(name):
    before, y = _in_place_through(name, COPY_FORMS[name])
    assert y.tolist() == before and y._version == 0


def test_diagonal_is_a_writable_view_sharing_storage():
    y = torch.tensor(SQ) * 1.0
    d = y.diagonal(1)
    assert d._base is y and np.shares_memory(d._data, y._data) and d._data.flags.writeable
    d.add_(10.0)
    assert y.tolist()[0][1] == 8.0 and y.tolist()[1][2] == 12.0 and y._version == 1


def test_diagonal_of_a_read_only_tensor_stays_read_only():
    e = torch.tensor([1.0, 2.0]).expand(2, 2)
    assert not e.diagonal()._data.flags.writeable


def test_contiguous_returns_the_tensor_itself_when_it_is_contiguous():
    x = torch.tensor(X, requires_grad=True)
    assert x.contiguous() is x
    y = x * 2
    assert y.contiguous() is y
    c = y.t().contiguous()
    assert c.grad_fn.name() == "CloneBackward0"          # PyTorch 2.13: clone of a strided tensor
    assert c.grad_fn.next_functions[0][0].name() == "TBackward0"
    assert c.contiguous() is c and c._data.flags.c_contiguous
    assert torch.tensor(2.0).expand(3).contiguous().grad_fn is None
