"""einsum (ops/einsum.py): values against numpy's, gradients at first and second order,
the element limit, and PyTorch 2.13's error messages. Its values and nodes beside
PyTorch's are in test_rounding_sorting_linalg_and_nn_extras.py.
"""
import numpy as np
import pytest

import gradcli as torch
from gradcli.autograd import gradcheck, gradgradcheck
from gradcli.errors import LimitError, ProgramTypeError, ShapeError
from gradcli._tensor import Tensor
from gradcli.limits import budget as limits


EINSUM_CASES = [("ij,jk->ik", (2, 3), (3, 4)), ("ii", (3, 3)), ("ij->", (2, 3)), ("i,j->ij", (2,), (3,)),
                ("bij,bjk->bik", (2, 2, 3), (2, 3, 2)), ("iij->ji", (2, 2, 3)), ("i,i", (3,), (1,)),
                ("...i,...i->...", (2, 3), (3,)), ("Ba,aA", (2, 3), (3, 4)), (",->", (), ()),
                ("ijk,ikl->jl", (2, 3, 2), (2, 2, 3)), ("ab,cd->abcd", (2, 1), (1, 2)),
                ("bi,bi->b", (1, 3), (2, 3)), ("i...,i...->...", (2, 1, 3), (2, 2, 1))]


@pytest.mark.parametrize("case", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_values_and_gradients(case):
    equation, *shapes = case
    rng = np.random.default_rng(7)
    arrays = [rng.uniform(-1, 1, s) for s in shapes]
    xs = tuple(Tensor(a, requires_grad=True) for a in arrays)
    y = torch.einsum(equation, *xs)
    full = np.broadcast_shapes(*shapes) if equation == "i,i" else None
    expected = np.einsum(equation, *[np.broadcast_to(a, full) if full else a for a in arrays])
    assert np.allclose(y._data, expected)
    f = lambda *a: torch.einsum(equation, *a)  # noqa: E731
    assert gradcheck(f, xs) and gradgradcheck(f, xs)


def test_einsum_respects_the_element_limit():
    old = limits.max_elements
    a, b, c = torch.ones(10), torch.ones(5, 40), torch.ones(40, 5)
    limits.max_elements = 60
    try:
        with pytest.raises(LimitError):
            torch.einsum("i,j->ij", a, a)
        assert torch.einsum("ij,jk->ik", b, c).shape == (5, 5)       # one mm: no 5 x 40 x 5 product
    finally:
        limits.max_elements = old


EINSUM_ERRORS = [  # PyTorch 2.13's messages
    (lambda: torch.einsum("ij,jk", torch.ones(2, 3)), "einsum\\(\\): fewer operands were provided than specified "
                                                      "in the equation"),
    (lambda: torch.einsum("ij->ik", torch.ones(2, 3)), "einsum\\(\\): output subscript k does not appear in the "
                                                       "equation for any input operand"),
    (lambda: torch.einsum("ij->ii", torch.ones(2, 3)), "einsum\\(\\): output subscript i appears more than once "
                                                       "in the output"),
    (lambda: torch.einsum("ij,jk->ik", torch.ones(2, 3), torch.ones(2, 3)),
     "einsum\\(\\): subscript j has size 2 for operand 1 which does not broadcast with previously seen size 3"),
    (lambda: torch.einsum("ijk", torch.ones(2, 3)),
     "einsum\\(\\): the number of subscripts in the equation \\(3\\) does not match the number of dimensions "
     "\\(2\\) for operand 0 and no ellipsis was given"),
    (lambda: torch.einsum("i1", torch.ones(2, 3)), "einsum\\(\\): invalid subscript given at index 1 in the "
                                                   "equation string, subscripts must be in \\[a-zA-Z\\]"),
    (lambda: torch.einsum("ii", torch.ones(2, 3)), "einsum\\(\\): subscript i is repeated for operand 0 but the "
                                                   "sizes don't match, 3 != 2"),
    (lambda: torch.einsum("i->i->i", torch.ones(2)), "einsum\\(\\): invalid subscript given at index 4"),
    (lambda: torch.einsum("..i", torch.ones(2)), "einsum\\(\\): found '.' for operand 0 that is not part of "
                                                 "any ellipsis"),
]


@pytest.mark.parametrize("call, message", EINSUM_ERRORS, ids=[str(k) for k in range(len(EINSUM_ERRORS))])
def test_einsum_errors_keep_pytorch_wording(call, message):
    with pytest.raises(ShapeError, match=message):
        call()


def test_einsum_refuses_numbers():
    with pytest.raises(ProgramTypeError, match="expected Tensor as element 0 in argument 1, but got float"):
        torch.einsum("i", 3.0)
