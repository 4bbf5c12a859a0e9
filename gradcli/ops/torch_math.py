"""Float32 elementwise functions computed to PyTorch's last bit as often as numpy allows.

PyTorch's CPU kernels compute float32 sin, exp, tanh... with SLEEF or MKL's vector math:
within 1 ulp, not correctly rounded, and not reproducible in numpy. Their results agree
with the correctly rounded value far more often than numpy's float32 loops do (exp: 99%
against 61%), so for float32 input these functions compute in float64 and round once:
the last bit then differs from PyTorch's in under 1% of inputs for exp, log, tan, tanh,
atan, log1p, expm1, sinh, cosh, and in 5-9% for sin, cos, asin, acos (whose kernels are
farther from correct rounding). `benchmarks/transcendentals.py` measures this; the table
is in benchmarks/README.md. Other dtypes go to numpy as they are.
"""
from __future__ import annotations

import numpy as np

from . import torch_loops
from .torch_norms import _TIE, _fits, _fma32
from .torch_order import _seq   # a chain along any axis, in one numpy call
from .torch_ranges import fma

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_ndarray = np.ndarray
_float32 = np.float32


def _widened(ufunc):
    def forward(x):
        # float64 first, by identity: a dtype's `==` costs about as much as the rest of the
        # call (these run on arrays in every first-order backward of sin, cos...)
        if x.__class__ is _ndarray:
            d = x.dtype
            if d is _F64 or d != _F32:
                return ufunc(x)
        elif x.__class__ is not _float32:
            return ufunc(x)
        return ufunc(np.asarray(x, np.float64)).astype(np.float32)
    forward.__name__ = ufunc.__name__
    forward.__doc__ = f"numpy's {ufunc.__name__}; float32 computed in float64, rounded once."
    forward.for_float64 = ufunc   # all it calls for float64 (`forward_for`)
    return forward


def forward_for(forward, dtype, prep):
    """What `apply` calls for an op's `forward` on arrays of `dtype` (with no `prep`): a
    widened function's ufunc itself for float64, which is all it would call (one Python
    call fewer per op), else `forward`."""
    ufunc = getattr(forward, "for_float64", None)
    return ufunc if ufunc is not None and dtype is _F64 and prep is None else forward


sin, cos, tan = _widened(np.sin), _widened(np.cos), _widened(np.tan)
asin, acos, atan = _widened(np.arcsin), _widened(np.arccos), _widened(np.arctan)
sinh, cosh, tanh = _widened(np.sinh), _widened(np.cosh), _widened(np.tanh)
exp, expm1 = _widened(np.exp), _widened(np.expm1)
log, log1p = _widened(np.log), _widened(np.log1p)
log2, log10, exp2 = _widened(np.log2), _widened(np.log10), _widened(np.exp2)


def sigmoid32(x):
    """PyTorch's float32 sigmoid: 1 / (1 + exp(-x)) in float32, its vector loop's exp SLEEF's
    (`sleef_exp32`), its scalar loop's (the tail, `torch_loops`; a strided layout's every
    element) glibc's expf, here correctly rounded, which glibc's is but for ~0.01% of inputs:
    every contiguous input's results PyTorch's."""
    with np.errstate(over="ignore"):
        return np.float32(1) / (np.float32(1) + _kernel_exp(-x, x))


def _kernel_exp(v, x):
    """exp(v) as an elementwise kernel over x computes it: SLEEF's where its vector loop
    writes (VEC_LANES floats a vector, two at a time), correctly rounded in its scalar tail."""
    step = 2 * VEC_LANES
    if x.size < step:   # no whole step of two vectors: the scalar loop alone
        return _cr(np.exp, v)
    if x.flags.c_contiguous:   # one run: the scalar tails by slices
        e = sleef_exp32(v)
        flat, values = e.reshape(-1), v.reshape(-1)
        for tail in torch_loops.contiguous_tails(flat.size, VEC_LANES):
            flat[tail] = _cr(np.exp, values[tail])
        return e
    body = torch_loops.vector_body(x.shape, (x,), VEC_LANES)
    return np.where(body, sleef_exp32(v), _cr(np.exp, v)) if body.any() else _cr(np.exp, v)


VEC_LANES = 16   # float32 lanes of PyTorch's elementwise and softmax kernels here (AVX512)


def _cr(ufunc, x):
    """ufunc of float32 x, correctly rounded but for rare double roundings (f64, then f32)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return ufunc(x.astype(np.float64)).astype(np.float32)


def silu32(x):
    """PyTorch's float32 silu: x / (1 + exp(-x)) in float32, the exp as `sigmoid32`'s."""
    with np.errstate(over="ignore", invalid="ignore"):
        return x / (np.float32(1) + _kernel_exp(-x, x))


def softplus32(x, beta, threshold):
    """PyTorch's float32 softplus: log1p(exp(x * beta)) / beta, x itself above the threshold."""
    bx = x * np.float32(beta)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(bx > np.float32(threshold), x, _cr(np.log1p, _cr(np.exp, bx)) / np.float32(beta))


# SLEEF's expf_u10, which PyTorch's softmax kernels call (Vectorized<float>::exp): d = q ln2 + s
# with q = rint(d / ln2) and ln2 split in two (Cody and Waite), a degree-7 polynomial in s by
# fused multiply-adds, then scaled by 2^q in two halves. (torch.exp itself is MKL's here.)
_R_LN2 = np.float32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U, _L2L = float(np.float32(0.693145751953125)), float(np.float32(1.428606765330187045e-06))
_EXP_POLY = [float(np.float32(c)) for c in (
    0.000198527617612853646278381, 0.00139304355252534151077271, 0.00833336077630519866943359,
    0.0416664853692054748535156, 0.166666671633720397949219, 0.5)]


def sleef_exp32(d):
    """SLEEF's expf_u10 of float32 d, to its last bit. d - q * L2U is exact in float32 (the
    split's purpose); each other fused multiply-add is computed in float64 (the product
    exact) and rounded to float32, and where a float64 sum lands on a float32 midpoint
    (rounding twice could differ from the fma's once) the exact fma recomputes every step.
    Blocks of BLOCK values keep the float64 temporaries in cache."""
    d = np.asarray(d, np.float32)
    if d.size > BLOCK:
        flat = d.reshape(-1)
        return np.concatenate([sleef_exp32(flat[i:i + BLOCK]) for i in range(0, flat.size, BLOCK)]
                              ).reshape(d.shape)
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        q = np.rint(d * _R_LN2)
        q = np.where(np.isfinite(q), q, 0).astype(np.int32)
        qf = q.astype(np.float32)
        # s - q * L2L is exact in float64 too (|q| < 2^8, L2L's 24 bits, |s| < 0.35): rounded once
        s = (d - qf * np.float32(_L2U)).astype(np.float64)
        s -= qf.astype(np.float64) * _L2L
        s = s.astype(np.float32).astype(np.float64)
        sums = np.empty((6,) + d.shape)   # the polynomial's float64 sums, checked together

        def fused(k, a, b, c):
            np.multiply(a, b, out=sums[k])
            sums[k] += c
            return sums[k].astype(np.float32).astype(np.float64)

        u = _EXP_POLY[0]
        for k, c in enumerate(_EXP_POLY[1:]):
            u = fused(k, s, u, c)
        u = fused(5, (s * s).astype(np.float32), u, s)
        if ((sums.view(np.int64) << 35) == _TIE).any():
            return _sleef_exp32_exact(d, q)
        return _sleef_scale(np.float32(1) + u.astype(np.float32), q, d)


BLOCK = 16384


def _sleef_exp32_exact(d, q):
    f32 = np.float32
    qf = q.astype(f32)
    s = fma(qf, -_L2L, d - qf * f32(_L2U), f32)
    u = f32(_EXP_POLY[0])
    for c in _EXP_POLY[1:]:
        u = fma(u, s, c, f32)
    return _sleef_scale(f32(1) + fma(s * s, u, s, f32), q, d)


def _sleef_scale(u, q, d):
    """u * 2^q in two halves (vldexp2), 0 under -104 and inf over 100, in float32."""
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        half = q >> 1
        u = u * np.ldexp(np.float32(1), half).astype(np.float32)
        u = u * np.ldexp(np.float32(1), q - half).astype(np.float32)
        u = np.where(d < np.float32(-104), np.float32(0), u)
        return np.where(d > np.float32(100), np.float32(np.inf), u).astype(np.float32)


def softmax32(x, dim):
    """Float32 softmax as PyTorch's kernel computes it along the last dim: SLEEF's exp of
    x - max, their sum in the kernel's lane order (`lane_sum`), times its reciprocal: every
    result PyTorch's. Along another dim (another kernel), a correctly rounded exp times the
    reciprocal of a float64 sum: ~70%."""
    shifted = x - np.max(x, axis=dim, keepdims=True)
    if dim % x.ndim == x.ndim - 1:
        e = sleef_exp32(shifted)
        return e * (np.float32(1) / lane_sum(e, x.ndim - 1))
    e = _cr(np.exp, shifted)
    total = np.sum(e, axis=dim, keepdims=True, dtype=np.float64).astype(np.float32)
    return e * (np.float32(1) / total)


# oneDNN's gelu_erf (PyTorch calls it for a contiguous float32 gelu): erf(x / sqrt(2)) as a
# degree-5 polynomial in |x|, one of 23 by |x|'s exponent and two mantissa bits (minimax on
# each piece, float32 coefficients), evaluated by fused multiply-adds; then x * (1 + erf) / 2.
_GELU_ERF_POLYS = np.array([[int(h, 16) for h in row.split()] for row in (
    "a6f2cb94 32827792 3381cc0c 34523d4a 351ac44d 35f36d88 36ee8229 37b8a3bb 3867a213 3940033b 3a2a5a1d "
    "3ae35863 3b7828f2 3c08b14b 3c515ed3 bb503236 bd8d8e5e be8abcd9 bf0c19a2 beccb328 3e176ced 3f470d99 "
    "3f7abb28 3f800000 00000000",
    "3f4c422a 3f4c421f 3f4c4207 3f4c41cb 3f4c413b 3f4c3fad 3f4c3a2f 3f4c2d40 3f4c146a 3f4bc341 3f4ad08c "
    "3f48f8cf 3f45fac7 3f404e07 3f3b980f 3f48dff3 3f78b21b 3fbb0704 40019c32 3fe536d6 3f81331e 3e6c8684 "
    "3c98f936 00000000 3f800000",
    "b62173f4 3735e4cf 37f2ff89 388c23be 3917535c 39ab2ab0 3a60fadb 3af9b960 3b6e5491 3c0a4ec5 3ca5aa8c "
    "3d2138d9 3d8737d4 3ddfb660 3e0f27ab 3d94004b be0efdeb bf1d96c3 bf89db58 bf6d9897 bef69fb8 bdc4f8a8 "
    "bbde6422 00000000 00000000",
    "be081a19 be084570 be08639b be089837 be08f409 be09ab95 be0b66d0 be0e400a be124df8 be1bde02 be2f19c9 "
    "be4931bf be685fbc be89c95f be96cbca be8044aa be0550f2 3dcfd6a1 3e94c826 3e79345f 3decec91 3ca46568 "
    "3aa1e00a 00000000 00000000",
    "ba3d61db 39f097a3 3a5845dc 3ab1fa35 3b0cefb8 3b653ab6 3bcae527 3c221712 3c6c5840 3cc0a703 3d1dcc19 "
    "3d63656d 3d955907 3dbf9910 3dd53f69 3db7dcef 3d639ebe ba6ede48 bd22be69 bd041cf1 bc64f5ab bb097a32 "
    "b8ebf380 00000000 00000000",
    "3cb7d80c 3c9b6050 3c978d11 3c92e850 3c8d058b 3c848454 3c6cd623 3c4c824b 3c2a7935 3be0b390 3b0651ac "
    "bb232f53 bbd42fa0 bc2c5366 bc492c9e bc2a7aa6 bbd55d04 ba823a76 3b102aa8 3ae25a7e 3a31f792 38b84375 "
    "3689bb5a 00000000 00000000")], np.uint32).view(np.float32)   # [degree, piece]
_GELU_ERF_BOUND = np.array([0x40b15cee], np.uint32).view(np.float32)[0]   # erf is +-1 above


def gelu32(x):
    """F.gelu of a contiguous float32 array as oneDNN computes it (every result PyTorch's)."""
    with np.errstate(invalid="ignore", over="ignore"):
        a = np.abs(x)
        piece = (a.view(np.int32) + np.int32(-0x3de00001)) >> 21   # + 0xc21fffff, wrapping
        piece = np.where(a > _GELU_ERF_BOUND, 23, np.clip(piece, 1, 24))
        polys = _GELU_ERF_POLYS[:, piece]
        step = _fma32 if _fits(a) else (lambda p, q, r: fma(p, q, r, np.float32))
        erf = polys[5]
        for degree in range(4, -1, -1):
            erf = step(erf, a, polys[degree])
        erf = np.where(np.signbit(x), -erf, erf)
        return (x * (erf + np.float32(1))) * np.float32(0.5)


SOFTMAX_LANES = VEC_LANES


def log_softmax32(x, dim):
    """Float32 log_softmax as PyTorch's kernel computes it: (x - max) - log(sum of exp(x - max)),
    exp and log correctly rounded (its SLEEF functions nearly always are), the sum in the
    kernel's order (`lane_sum`): 95% of rows bit for bit as PyTorch's, 55% computed as
    numpy's float32 exp and pairwise sum. (SLEEF's exp itself, `sleef_exp32`, gives 99-100%
    at 7x the cost: a loss's mean rarely shows the difference.)"""
    shifted = x - np.max(x, axis=dim, keepdims=True)
    total = lane_sum(_cr(np.exp, shifted), dim)
    return shifted - _cr(np.log, total)


def lane_sum(e, dim):
    """The sum over `dim` (kept) as PyTorch's softmax kernels add: along another dim than the
    last, in order (vectors across the inner dims); along the last, vec::reduce_all: in order
    under SOFTMAX_LANES elements, else each lane a chain over the row's whole vectors (from the
    first), the tail added to the first lanes, then the lanes in halves (0 + 8, then 0 + 4...)."""
    if dim != e.ndim - 1 or e.shape[-1] < SOFTMAX_LANES:
        return np.expand_dims(_seq(e, dim), dim)
    n = e.shape[-1]
    k, tail = divmod(n, SOFTMAX_LANES)
    acc = _seq(e[..., :k * SOFTMAX_LANES].reshape(e.shape[:-1] + (k, SOFTMAX_LANES)), e.ndim - 1)
    if tail:
        acc[..., :tail] += e[..., k * SOFTMAX_LANES:]
    while acc.shape[-1] > 1:
        half = acc.shape[-1] // 2
        acc = acc[..., :half] + acc[..., half:]
    return acc
