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


# -- batch_norm ---------------------------------------------------------------------------------


def test_a_double_rounded_chain_step_is_noticed():
    """batch_stats' variance chains add in float64 and round each sum to float32; a sum that
    float64 rounded onto a float32 midpoint would round twice, and must be noticed (the
    product of test_the_quick_fma_is_the_exact_fma's trap, added to 1)."""
    p = np.array([[[(2.0 ** -24 * (1 + 2.0 ** -12)) * (1 - 4095 * 2.0 ** -24)]]])
    acc = np.array([[[1.0]]])
    sums = np.concatenate([acc, acc + p])   # 1, then 1 + p: rounded onto 1 + 2^-24
    products = np.concatenate([acc, p])
    assert torch_norms._double_rounded(products, sums)
    assert not torch_norms._double_rounded(products, np.concatenate([acc, acc + 0.5]))


@pytest.mark.parametrize("shape", [(2, 7), (2, 17), (3, 5), (64, 20), (4, 3, 5, 6), (2, 4, 9)])
def test_batch_statistics_are_the_batchs_mean_and_variance(shape):
    x = (np.random.default_rng(sum(shape)).standard_normal(shape) * 2 + 1).astype(np.float32)
    mean, var_sum = torch_norms.batch_stats(x)
    axes = (0,) + tuple(range(2, len(shape)))
    wide = x.astype(np.float64)
    np.testing.assert_allclose(mean, wide.mean(axes), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var_sum, ((wide - wide.mean(axes, keepdims=True)) ** 2).sum(axes), rtol=1e-5)


def test_batch_norm_of_other_layouts_keeps_numpys_formula():
    """A non-contiguous view and float64 take numpy's (x - mean) / sqrt(var + eps): PyTorch runs
    other kernels for them."""
    base = np.random.default_rng(3).standard_normal((6, 8)).astype(np.float32)
    for x in (g.tensor(base).T, g.tensor(base.astype(np.float64))):
        y = g.batch_norm(x, None, None, training=True).numpy()
        data = x.numpy().astype(np.float64)
        want = (data - data.mean(0)) / np.sqrt(data.var(0) + 1e-5)
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_a_float32_batch_norm_is_charged_its_steps():
    x2 = np.zeros((64, 8), np.float32)
    assert costs.batch_norm(x2) >= costs.normalization(x2) + (25 + 3 * 32) * costs.NORM_CALL_ELEMENTS
    assert costs.batch_norm(x2.astype(np.float64)) == costs.normalization(x2)


# -- the 2-norm ----------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 3, 4, 7, 8, 12, 15, 16, 100, 4099])
def test_the_rows_2_norm_is_the_norm(n):
    x = (np.random.default_rng(n).standard_normal((3, n)) * 3).astype(np.float32)
    out = torch_norms.norm2_rows(x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.sqrt((x.astype(np.float64) ** 2).sum(1)), rtol=2e-6)


def test_the_kernels_tail_rounds_its_first_four_squares():
    """After the last vector of 8, the compiled loop squares 4 values at a time with a
    rounded vector multiply while 4 remain, then fuses: for 12 values the 4 tail squares are
    rounded before they are added; for 11 the 3 are fused (the values are chosen so that
    the two ways differ)."""
    rng = np.random.default_rng(11)
    for n, rounded in ((12, 4), (11, 0), (15, 4)):
        for _ in range(200):
            x = (rng.standard_normal((1, n)) * 3).astype(np.float32)
            lanes = (x[0, :8] * x[0, :8])
            total = np.float32(0)
            for v in lanes:
                total = np.float32(total + v) if total else v
            plain = total
            for i, v in enumerate(x[0, 8:]):
                plain = np.float32(plain + v * v) if i < rounded else exact_fma(v, v, plain, np.float32)
            assert torch_norms.norm2_rows(x)[0] == np.sqrt(plain)


def test_norms_pytorch_does_not_vectorize_keep_numpys_formula():
    """dim=0, a strided view, p=1 and float64 go to numpy's formula, as PyTorch runs other
    kernels for them."""
    base = (np.random.default_rng(4).standard_normal((6, 10)) * 2).astype(np.float32)
    t = g.tensor(base)
    np.testing.assert_allclose(t.norm(dim=0).numpy(), np.sqrt((base * base).sum(0)), rtol=1e-6)
    np.testing.assert_allclose(t.T.norm(dim=1).numpy(), np.sqrt((base * base).sum(0)), rtol=1e-6)
    assert t.norm(dim=1).numpy().tobytes() == torch_norms.norm2_rows(base).tobytes()


# -- edges, as PyTorch 2.13 gives them ------------------------------------------------------------


def test_a_row_shorter_than_a_vector_still_merges_the_empty_lanes():
    """ATen merges its 8 empty lanes into a row of under 8 values too: with a value whose
    square overflows, 0 * inf makes the variance nan (PyTorch: nan); an ordinary row is
    unchanged by it."""
    assert np.isnan(g.layer_norm(g.tensor([[3e38]], dtype=g.float32), (1,)).numpy()).all()
    assert np.isnan(g.layer_norm(g.tensor([[1.0, 3e38, 2.0]], dtype=g.float32), (3,)).numpy()).all()
    y = g.layer_norm(g.tensor([[1.0, 2.0, 4.0]], dtype=g.float32), (3,)).numpy()
    np.testing.assert_allclose(y, [[-1.069045, -0.267261, 1.336306]], rtol=1e-5)


def test_the_norm_of_one_value_is_its_absolute_value():
    """PyTorch squares nothing when one value makes each output: 3e38 and 1e-31 come back (their
    squares would overflow and underflow); two values square."""
    t = g.tensor([[3e38], [-1e-31]], dtype=g.float32)
    assert t.norm(dim=1).tolist() == [np.float32(3e38), np.float32(1e-31)]
    assert g.tensor(3e38, dtype=g.float32).norm().item() == np.float32(3e38)
    assert g.tensor([3e38, 1.0], dtype=g.float32).norm().item() == np.inf


def test_gelu_of_one_value_takes_pytorchs_own_loop():
    """oneDNN runs from two values (where gelu(inf) is nan: 0 * inf in its polynomial); one value
    takes PyTorch's scalar loop, where it is inf."""
    assert g.gelu(g.tensor([np.inf], dtype=g.float32)).item() == np.inf
    assert np.isnan(g.gelu(g.tensor([np.inf, np.inf], dtype=g.float32)).numpy()).all()
    assert g.gelu(g.tensor([3e38], dtype=g.float32)).item() == np.float32(3e38)


def test_an_empty_batch_norms_to_nothing_quietly():
    """An empty batch (or no channel) gives an empty result and leaves the running statistics
    as they are, as in PyTorch: no division by its 0 values, no warning."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mean, var = g.zeros(5), g.ones(5)
        x = g.zeros(0, 5, requires_grad=True)
        y = g.batch_norm(x, mean, var, training=True)
        y.sum().backward()
        assert y.shape == (0, 5) and x.grad.shape == (0, 5)
        assert mean.tolist() == [0.0] * 5 and var.tolist() == [1.0] * 5
        assert g.batch_norm(g.zeros(3, 0), None, None, training=True).shape == (3, 0)
    with pytest.raises(Exception, match="Expected more than 1 value per channel"):
        g.batch_norm(g.zeros(1, 4), None, None, training=True)


def test_clip_grad_norm_takes_a_single_values_absolute_value():
    """A gradient of one value contributes |g| (PyTorch 2.13: 3.0000002279139944e-20, whose
    square underflows); an infinite total scales every gradient by 0."""
    from gradcli.nn.utils import clip_grad_norm_
    from gradcli._tensor import Tensor
    w = Tensor._make(np.array([0.1], np.float32))
    w.grad = Tensor._make(np.array([3.0000001e-20], np.float32))
    assert clip_grad_norm_([w], 1.0).item() == 3.0000002279139944e-20
    w.grad = Tensor._make(np.array([3e30], np.float32))
    p = Tensor._make(np.zeros(3, np.float32))
    p.grad = Tensor._make(np.array([1.0, 2.0, 3.0], np.float32))
    assert clip_grad_norm_([w, p], 1.0).item() == np.inf
    assert w.grad.item() == 0.0
