"""ops/keywords.py: `keepdims=` on every function and method with a `keepdim`, `out=` on
exactly the recorded list (their outputs against PyTorch's: tests/nn/tail/keywords.py)."""
from __future__ import annotations

import numpy as np
import pytest

import gradcli as g
from gradcli.errors import AutogradError, ProgramError
from gradcli.ops import FUNCTIONS, METHODS
from gradcli.ops.keywords import OUT_FUNCTIONS, SAME_DTYPE


def test_every_out_function_exists():
    assert OUT_FUNCTIONS <= set(FUNCTIONS)
    assert set(SAME_DTYPE) <= OUT_FUNCTIONS


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "argmax", "argmin", "max", "min", "prod",
                                  "std", "var", "logsumexp", "nansum", "any", "all", "norm"])
def test_keepdims_is_keepdim(name):
    x = g.tensor([[1.0, 2.0, 0.5], [3.0, -4.0, 1.5]])
    by_function = FUNCTIONS[name](x, dim=1, keepdims=True)
    by_method = METHODS[name](x, dim=1, keepdims=True)
    expected = FUNCTIONS[name](x, dim=1, keepdim=True)
    for got in (by_function, by_method):
        got, want = (got[0], expected[0]) if isinstance(got, tuple) else (got, expected)
        assert got.shape == want.shape == (2, 1)
        assert np.array_equal(got._data, want._data)
    with pytest.raises(TypeError, match="multiple values for argument 'keepdim'"):
        FUNCTIONS[name](x, dim=1, keepdim=True, keepdims=True)


def test_out_writes_in_place_and_returns_out():
    x = g.tensor([1.0, 2.0])
    base = g.zeros(4)
    view = base[1:3]
    assert FUNCTIONS["mul"](x, x, out=view) is view
    assert base.tolist() == [0.0, 1.0, 4.0, 0.0]
    grown = g.zeros(1)
    FUNCTIONS["cat"]([x, x], out=grown)
    assert grown.tolist() == [1.0, 2.0, 1.0, 2.0]


def test_out_refusals():
    x = g.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(AutogradError, match="don't support automatic differentiation"):
        FUNCTIONS["exp"](x, out=g.zeros(2))
    with pytest.raises(ProgramError, match="can't be cast to the desired output type Long"):
        FUNCTIONS["exp"](x.detach(), out=g.zeros(2, dtype=g.int64))
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        FUNCTIONS["reshape"](x, (2,), out=g.zeros(2))
