"""ops/torch_norms.py: float32 layer_norm as PyTorch's CPU kernel computes it.

PyTorch 2.13's own results are in torch_digits/digits_layer_norm.txt (run through the CLI
by test_torch_digits.py); these tests hold the pieces the emulation rests on.
"""
import numpy as np
import pytest

import gradcli as g
from gradcli.ops import costs, torch_norms
from gradcli.ops.torch_ranges import fma as exact_fma


def _same(a, b):
    return np.asarray(a).tobytes() == np.asarray(b).tobytes()


def test_the_quick_fma_is_the_exact_fma():
    """_fma32 rounds the float64 sum once more, so it must notice a sum that double rounding
    would get wrong: a float32 midpoint that the float64 sum was rounded to. Products
    within 2^-29 of a power of two make them; c + d / 2 makes exact midpoints, which are
    right as they are."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(20000).astype(np.float32)
    b = rng.standard_normal(20000).astype(np.float32)
    c = rng.standard_normal(20000).astype(np.float32)
    assert _same(torch_norms._fma32(a, b, c), exact_fma(a, b, c, np.float32))
    assert _same(torch_norms._fma32(np.float32(0.5), b, c), exact_fma(0.5, b, c, np.float32))
    # (2^23 + 2^11)(2^24 - 4095) = 2^47 + 2^11, so a * b = 2^-24 + 2^-60 and 1 + a * b lies
    # 2^-60 above the float32 midpoint 1 + 2^-24: float64 rounds the sum onto the midpoint,
    # float32 then to even (1.0), where the fma rounds up (1 + 2^-23)
    a1 = np.array([2.0 ** -24 * (1 + 2.0 ** -12)], np.float32)
    b1 = np.array([1 - 4095 * 2.0 ** -24], np.float32)
    c1 = np.array([1.0], np.float32)
    assert exact_fma(a1, b1, c1, np.float32)[0] == 1 + 2.0 ** -23
    quick, exact = torch_norms._fma32(a1, b1, c1), exact_fma(a1, b1, c1, np.float32)
    assert _same(quick, exact)
    assert not _same((a1.astype(np.float64) * b1 + c1).astype(np.float32), exact)   # the trap


def test_tiny_values_take_the_exact_fma(monkeypatch):
    """Values near float32's subnormals round differently in float64 and float32; rows with
    them take the exact fma for every step (the same results as forcing it)."""
    x = (np.random.default_rng(1).standard_normal((4, 300)) * 1e-20).astype(np.float32)
    assert not torch_norms._fits(x)
    mean, var = torch_norms.rowwise_moments(x)
    monkeypatch.setattr(torch_norms, "_fits", lambda x: False)
    monkeypatch.setattr(torch_norms, "_fma32", lambda a, b, c: exact_fma(a, b, c, np.float32))
    assert _same(torch_norms.rowwise_moments(x), (mean, var))


@pytest.mark.parametrize("n", [1, 7, 8, 9, 128, 129, 300, 2048, 2057])
def test_moments_are_the_rows_mean_and_variance(n):
    """Whatever the order, the moments are a row's mean and biased variance (to float32's
    precision), for every layout of vectors, chunks, cascade levels and tail."""
    x = (np.random.default_rng(n).standard_normal((5, n)) * 3 + 1).astype(np.float32)
    mean, var = torch_norms.rowwise_moments(x)
    assert mean.dtype == var.dtype == np.float32
    wide = x.astype(np.float64)
    np.testing.assert_allclose(mean, wide.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, wide.var(1), rtol=1e-4, atol=1e-6)


def test_non_finite_rows_give_nan_as_in_pytorch():
    x = np.ones((3, 40), np.float32)
    x[0, 5], x[1, 39], x[2, 0] = np.inf, np.nan, -np.inf
    y = g.layer_norm(g.tensor(x), (40,))
    assert np.isnan(y.numpy()).all()


def test_other_dtypes_keep_numpys_formula():
    """float64 (out of the issue's scope: its kernel needs an exact double fma) and mixed
    dtypes compute (x - mean) / sqrt(var + eps) with numpy's sums."""
    x = np.random.default_rng(2).standard_normal((4, 30))
    y = g.layer_norm(g.tensor(x), (30,)).numpy()
    assert y.dtype == np.float64
    np.testing.assert_allclose(y, (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5))


def test_a_float32_layer_norm_is_charged_its_steps():
    """The kernel's sequential steps cost a numpy call each whatever the rows: a float32
    layer_norm is charged them (a loop of small ones must not outrun the budget)."""
    x32 = np.zeros((2, 300), np.float32)
    plain = costs.normalization(x32)
    assert costs.layer_norm(x32, normalized=1) > plain + 400 * costs.NORM_CALL_ELEMENTS
    assert costs.layer_norm(x32.astype(np.float64), normalized=1) == plain
