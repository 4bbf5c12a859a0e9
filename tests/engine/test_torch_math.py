"""ops/torch_math.py's SLEEF exp (PyTorch's softmax kernels call it; PyTorch 2.13's own
softmax results are in torch_digits/digits_softmax.txt)."""
import numpy as np
import pytest

from gradcli.ops import torch_math
from gradcli.ops.torch_ranges import fma


def _sleef_by_the_book(d):
    """expf_u10 written out with the exact fma, value by value (slow, plain)."""
    out = []
    for v in np.asarray(d, np.float32).reshape(-1):
        if np.isnan(v):
            out.append(np.float32(np.nan))
            continue
        q = int(np.rint(v * torch_math._R_LN2)) if np.isfinite(v * torch_math._R_LN2) else 0
        qf = np.float32(q)
        s = fma(qf, -torch_math._L2U, v, np.float32)
        s = fma(qf, -torch_math._L2L, s, np.float32)
        u = np.float32(torch_math._EXP_POLY[0])
        for c in torch_math._EXP_POLY[1:]:
            u = fma(u, s, c, np.float32)
        u = np.float32(1) + fma(np.float32(s * s), u, s, np.float32)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            u = np.float32(u * np.float32(2.0 ** (q >> 1))) * np.float32(2.0 ** (q - (q >> 1)))
        out.append(np.float32(0) if v < -104 else np.float32(np.inf) if v > 100 else np.float32(u))
    return np.array(out, np.float32).reshape(np.shape(d))


def test_sleef_exp_is_its_algorithm_step_by_step():
    """The vectorized float64 steps give the exact fma's results: random values over exp's
    range, the edges of its clamps, subnormal results, infinities and nan."""
    rng = np.random.default_rng(0)
    d = np.concatenate([(rng.standard_normal(3000) * 30).astype(np.float32),
                        np.array([0, -0.0, 1e-30, -1e-30, -87.5, -88, -100, -103.9, -104, -104.1, 88.7,
                                  89, np.inf, -np.inf, np.nan], np.float32)])
    ours = torch_math.sleef_exp32(d)
    want = _sleef_by_the_book(d)
    assert ((ours == want) | (np.isnan(ours) & np.isnan(want))).all()


def test_sleef_exp_is_within_an_ulp_of_exp():
    d = (np.random.default_rng(1).standard_normal(20000) * 10).astype(np.float32)
    ours = torch_math.sleef_exp32(d)
    exact = np.exp(d.astype(np.float64))
    ulp = np.spacing(exact.astype(np.float32)).astype(np.float64)
    assert (np.abs(ours - exact) <= ulp).all()
    assert (ours != exact.astype(np.float32)).any()   # not correctly rounded: its own digits


def test_a_float64_midpoint_takes_the_exact_steps(monkeypatch):
    """Where a float64 sum lands on a float32 midpoint the steps are redone with the exact fma
    (forced here on every call): the same results."""
    d = (np.random.default_rng(2).standard_normal(500) * 5).astype(np.float32)
    quick = torch_math.sleef_exp32(d)
    monkeypatch.setattr(torch_math, "_TIE", np.int64(0))   # every sum whose low 29 bits are 0
    assert (torch_math.sleef_exp32(d) == quick).all()


@pytest.mark.parametrize("shape", [(3, 2), (4, 17), (2, 3, 40), (1, 40000)])
def test_softmax_rows_sum_to_one(shape):
    x = (np.random.default_rng(sum(shape)).standard_normal(shape) * 4).astype(np.float32)
    y = torch_math.softmax32(x, x.ndim - 1)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.sum(-1), 1, rtol=1e-5)
    np.testing.assert_allclose(y, np.exp(x - x.max(-1, keepdims=True)) / np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True), rtol=1e-4, atol=1e-9)


def test_onednn_gelu_is_close_to_gelu_and_odd_in_its_erf():
    """oneDNN's piecewise erf approximates erf(x / sqrt(2)) to float32's 1e-7; gelu's negative
    tail, x * (1 + erf) / 2 with 1 + erf ~1e-4 near -4, shows it as up to 1e-6 (as PyTorch's
    own results do), and erf is odd."""
    import math
    x = np.linspace(-8, 8, 40001).astype(np.float32)
    y = torch_math.gelu32(x)
    want = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)])
    np.testing.assert_allclose(y, want, rtol=2e-6, atol=1.2e-6)
    erf = y / (x * np.float32(0.5)) - 1
    keep = np.abs(x) > 1e-3
    np.testing.assert_allclose(erf[keep], -erf[keep][::-1], atol=1e-6)


def test_onednn_gelus_quick_fma_is_the_exact_fma(monkeypatch):
    """The polynomial's fused multiply-adds by float64 sums (checked for midpoints) give what
    the exact fma gives, which tiny values (near float32's subnormals) take."""
    x = np.concatenate([(np.random.default_rng(7).standard_normal(20000) * 3).astype(np.float32),
                        np.array([1e-30, -2e-25, 3e-13], np.float32)])
    quick = torch_math.gelu32(x[:-3])
    monkeypatch.setattr(torch_math, "_fits", lambda v: False)
    assert (torch_math.gelu32(x[:-3]) == quick).all()
    exact = torch_math.gelu32(x)
    monkeypatch.undo()
    assert (torch_math.gelu32(x) == exact).all()


def test_a_strided_gelu_keeps_its_formula():
    """PyTorch runs its own kernel (not oneDNN) for a non-contiguous input: numpy's formula."""
    import gradcli as g
    base = (np.random.default_rng(6).standard_normal((8, 5)) * 3).astype(np.float32)
    view = g.tensor(base).T
    from gradcli.ops.elementwise import _erf
    wide = base.T.astype(np.float64)
    assert (g.gelu(view).numpy() == (0.5 * wide * (1 + _erf(wide * np.sqrt(0.5)))).astype(np.float32)).all()
