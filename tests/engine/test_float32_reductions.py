"""softmax, log_softmax, logsumexp and norm compute a float32 input in float32, as PyTorch
does (their float32 results came closer to PyTorch's that way than computed in float64 and
rounded; var/std stay in float64, where PyTorch accumulates in double). Values from PyTorch
2.13 where they differ from a float64 computation."""
import math

import numpy as np
import pytest

import gradcli as g
from gradcli import dtypes


@pytest.fixture(autouse=True)
def float32_default():
    with dtypes.default_dtype(dtypes.float32):
        yield


def test_norm_of_large_float32_values_overflows_as_in_pytorch():
    assert math.isinf(g.norm(g.tensor([1e20, 1e20])).item())        # PyTorch: tensor(inf)
    assert g.norm(g.tensor([1e20, 1e20], dtype=g.float64)).item() == pytest.approx(1.4142135623730951e20)


def test_float32_results_are_float32_arithmetic():
    x = np.array([[0.3, -1.2, 2.5, 0.7], [1.1, 0.0, -0.4, 3.3]], dtype=np.float32)
    t = g.tensor(x)
    assert np.array_equal(g.norm(t)._data, np.sqrt(np.sum(x * x)))
    assert g.softmax(t, 1)._data.dtype == np.float32 and g.logsumexp(t, 1)._data.dtype == np.float32
    # a float64 computation rounded once differs from PyTorch's float32 softmax here
    wide = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    rounded = (wide / wide.sum(1, keepdims=True)).astype(np.float32)
    ours = g.softmax(t, 1)._data
    assert np.allclose(ours, rounded, rtol=1e-6) and not np.array_equal(ours, rounded)


def test_var_and_std_stay_in_double_as_pytorchs_accumulation():
    x = np.array([2.382, 0.72, -2.367, -2.173, -0.699, 1.876], dtype=np.float32)
    expected = np.float32(np.var(x.astype(np.float64), ddof=1))
    assert g.var(g.tensor(x)).item() == float(expected)
