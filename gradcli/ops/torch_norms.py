"""PyTorch's CPU layer_norm, batch_norm and 2-norm, computed as their kernels compute them.

conv.py and reduce.py route float32 inputs here (the issue of PyTorch's float32 digits),
and `_fma32`, a float32 fma in a few numpy calls, serves torch_math too. The layer_norm
emulation takes float64 too (4-double vectors, all its results PyTorch's), but a double fma
costs ~20 numpy calls, 30-60x numpy's formula, so float64 keeps that formula.

ATen's LayerNormKernel normalizes each row of N values with its mean and rstd from
RowwiseMoments (moments_utils.h), then writes y = (x - mean) * rstd; a weight multiplies y
(fused with a bias: fma(y, weight, bias)), a bias alone is fused into the first product
(fma(x - mean, rstd, bias)). The facts the emulation rests on, each measured against
PyTorch 2.13 (tests/engine/test_torch_norms.py holds its recorded results):

* The row is read as vectors of LANES values (AVX2's: 8 floats, 4 doubles), in chunks of
  16 vectors. Each chunk runs Welford's update per lane from 0: delta = x - m1,
  m1 = fma(1 / (j + 1), delta, m1), m2 = fma(delta, x - m1, m2), 1 / (j + 1) rounded.
* The chunks' moments merge through a binary counter of `depth` = ceil(log2(chunks))
  levels (a merge of b into a: n = na + nb, c = nb / n, d = mb1 - ma1,
  m2 = fma(d * na, c * d, ma2 + mb2), m1 = ma1 + c * d), the levels left at the end
  merged into level 0, the highest last.
* The values after the last whole vector run Welford's update with a division
  (m1 += delta / k); then each lane merges into that in lane order, by the scalar formula
  (m1 = fma(c, d, m1), m2 = m2 + fma(d * d * c, m0, mb2)).
* var = m2 / N, rstd = 1 / sqrt(var + eps), all in the input's dtype.

Every step is sequential along a row (16 Welford steps, the merges, 8 lanes), so a call
costs a few hundred numpy calls over all the rows at once: ~0.4 ms for a small input,
about 8x numpy's two-pass formula on a large one (benchmarks/README.md).
"""
from __future__ import annotations

import numpy as np

from .torch_order import _seq
from .torch_ranges import fma as _exact_fma

LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
CHUNK = 16
_F64 = np.float64
_TIE = np.int64(-1 << 63)   # a float64's low 29 bits after a shift by 35: a float32 midpoint


def _ceil_log2(n: int) -> int:
    return 0 if n <= 1 else (n - 1).bit_length()


def _fma32(a, b, c):
    """fma(a, b, c) in float32 of float32 values (arrays or numbers; float64 arrays of float32
    values are taken as they are): the product is exact in float64 and the sum rounded once
    there; rounding that to float32 is the fma's rounding unless the float64 sum is a float32
    midpoint it was rounded to (an exact one is common: c + d / 2). Values under 2^-126 never
    reach here (`_fits`)."""
    a, b, c = _wide(a), _wide(b), _wide(c)
    p = a * b
    s = p + c
    tie = (s.view(np.int64) << 35) == _TIE
    if tie.any():
        bb = s - p   # Knuth's TwoSum: the float64 sum's rounding error
        if (tie & ((p - (s - bb)) + (c - bb) != 0)).any():
            return _exact_fma(a, b, c, np.float32)
    return s.astype(np.float32)


def _wide(v):
    """v in float64 (numpy's mixed float32-float64 loops cost twice a cast and a loop)."""
    if v.__class__ is np.ndarray:
        return v if v.dtype == _F64 else v.astype(_F64)
    return float(v)


def _fma64(a, b, c):
    return _exact_fma(a, b, c, np.float64)


def _fits(x):
    """Whether x's nonzero values are all far above float32's subnormals, so that no step of
    the moments rounds into them (their squared differences stay over ~1e-24 * x^2)."""
    a = np.abs(x)
    return not ((a < 1e-12) & (a != 0)).any()


def _merge(a, b, t, fma):
    """AddMomentsVec: the moments (n, m1, m2) of b merged into a's."""
    na, a1, a2 = a
    nb, b1, b2 = b
    n = na + nb
    c = t(nb) / t(n) if n else t(0)
    d = b1 - a1
    cd = c * d
    if na and nb:
        return n, a1 + cd, fma(d * t(na), cd, a2 + b2)
    return n, a1 + cd, d * t(na) * cd + (a2 + b2)   # a product with 0: exact, no fma needed


def rowwise_moments(x):
    """RowwiseMoments of each row of x (M, N), float32 or float64 -> (mean, biased var), (M,)."""
    t = x.dtype.type
    fma = _fma32 if t is np.float32 and _fits(x) else _fma64 if t is np.float64 else (
        lambda a, b, c: _exact_fma(a, b, c, np.float32))
    lanes = LANES[x.dtype]
    rows, size = x.shape
    n = size // lanes
    chunks = -(-n // CHUNK)
    depth = _ceil_log2(chunks)
    mean = np.zeros(rows, t)
    m2 = np.zeros(rows, t)
    count = 0
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if n:
            vectors = x[:, :n * lanes].reshape(rows, n, lanes)   # every chunk's Welford at once
            v = vectors[:, ::CHUNK]   # the first step from 0: m1 = x, m2 = x * (x - m1), exactly
            c1 = v + t(0)
            c2 = v * (v - c1) + t(0)
            for j in range(1, min(CHUNK, n)):
                v = vectors[:, j::CHUNK]               # the j-th vector of each chunk that has one
                k = v.shape[1]
                a1, a2 = (c1, c2) if k == chunks else (c1[:, :k], c2[:, :k])
                delta = v - a1
                if fma is _fma32:
                    delta = delta.astype(_F64)   # (cast once for both)
                a1 = fma(t(1) / t(j + 1), delta, a1)
                a2 = fma(delta, v - a1, a2)
                if k == chunks:
                    c1, c2 = a1, a2
                else:
                    c1[:, :k], c2[:, :k] = a1, a2
            counts = [min(CHUNK, n - i * CHUNK) for i in range(chunks)]
            empty = (0, np.zeros((rows, lanes), t), np.zeros((rows, lanes), t))
            stack = [empty] * max(depth, 1)
            for i in range(chunks):
                stack[0] = _merge(stack[0], (counts[i], c1[:, i], c2[:, i]), t, fma)
                mask, j = i + 1, 1
                while j < depth and mask & 1 == 0:
                    stack[j] = _merge(stack[j], stack[j - 1], t, fma)
                    stack[j - 1] = empty
                    mask >>= 1
                    j += 1
            for j in range(1, depth):
                stack[0] = _merge(stack[0], stack[j], t, fma)
            _, lane1, lane2 = stack[0]
        for i in range(n * lanes, size):   # the values after the last vector, one by one
            v = x[:, i]
            count += 1
            delta = v - mean
            mean = mean + delta / t(count)
            m2 = m2 + delta * (v - mean)
        if not n:   # no whole vector: ATen still merges its 8 empty lanes (0 * inf is nan there)
            lane1 = lane2 = np.zeros((rows, lanes), t)
        for j in range(lanes):   # each lane's n values merged in, lane by lane
            total = count + n
            c = t(n) / t(total) if total else t(0)
            d = lane1[:, j] - mean
            mean = fma(c, d, mean)
            m2 = m2 + (fma(d * d * c, t(count), lane2[:, j]) if count else d * d * c * t(0) + lane2[:, j])
            count = total
        return mean, m2 / t(size)


def layer_norm(x, weight, bias, eps):
    """F.layer_norm of x (M, N) float32 or float64 over its rows, as ATen's kernel computes it."""
    t = x.dtype.type
    mean, var = rowwise_moments(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rstd = (t(1) / np.sqrt(var + t(eps)))[:, None]
        d = x - mean[:, None]
        fma = _fma32 if t is np.float32 else _fma64
        if weight is None:   # (x - mean) * rstd, or fused with the bias
            return d * rstd if bias is None else fma(d, rstd, bias)
        y = d * rstd
        return y * weight if bias is None else fma(y, weight, bias)


# -- batch_norm ---------------------------------------------------------------------------
#
# ATen's batch_norm on a contiguous float32 input (batch_norm_kernel.cpp), measured against
# PyTorch 2.13 like layer_norm's facts above:
#
# * (N, C) (an image of one value: "channels last"): each of THREADS threads sums its share
#   of the rows (ceil(N / THREADS) each) in float32 in order, the shares added in double;
#   mean = float32(sum / N). The variance pass alike, each thread's rows accumulated by
#   fma(x - mean, x - mean, acc), the shares added in double.
# * (N, C, *): per channel, a double sum in order (batch, then the image), mean as above;
#   var_sum the double sum of the float32 squares (x - mean)^2.
# * var = float32(var_sum) / n in float32, invstd = 1 / sqrt(var + eps) in double; in eval
#   invstd = 1 / sqrt(running_var + eps) in float32.
# * alpha = invstd * weight, beta = fma(-mean, alpha, bias), y = fma(x, alpha, beta).
# * The running statistics, in float32: momentum * mean + (1 - momentum) * running, and
#   fma(momentum, var_sum / (n - 1), (1 - momentum) * running) for the variance.

THREADS = 2


def batch_stats(x):
    """(mean, var_sum) per channel of x (N, C, *) float32, contiguous, as ATen collects them."""
    rows, channels = x.shape[0], x.shape[1]
    count = x.size // channels
    with np.errstate(invalid="ignore", over="ignore"):
        if x.ndim == 2 or count == rows:
            flat = x.reshape(rows, channels)
            # (two rows of up to 16 or over 2048 channels run as on one thread: measured, the
            # cause not found; three rows and more always split)
            threads = 1 if rows == 2 and not 16 < channels <= 2048 else THREADS
            chunk = -(-rows // min(threads, rows))
            shares = [flat[b:b + chunk] for b in range(0, rows, chunk)]
            total = np.zeros(channels)
            for share in shares:
                total = total + np.add.reduce(share, 0).astype(_F64)
            mean = (total / count).astype(np.float32)
            # the threads' chains acc = fma(d, d, acc) side by side, one step per row of the
            # longest share (a shorter one adds 0), acc kept in float64: d * d is exact there
            d = np.zeros((chunk, len(shares), channels), np.float32)
            for t, share in enumerate(shares):
                d[:len(share), t] = share - mean
            d = d.astype(_F64)
            squares = d * d
            sums = np.empty_like(squares)   # each step's float64 sum, before float32 rounds it
            acc = np.zeros((len(shares), channels))
            for i in range(chunk):
                np.add(squares[i], acc, out=sums[i])
                acc = sums[i].astype(np.float32).astype(_F64)
            if _double_rounded(squares, sums):   # (never seen: then the exact chains)
                acc = np.zeros((len(shares), channels), np.float32)
                for i in range(chunk):
                    acc = _exact_fma(d[i], d[i], acc, np.float32)
            var_sum = np.add.reduce(acc.astype(_F64), 0, initial=0.0).astype(np.float32)
            return mean, var_sum
        # per channel: the batch, then the image, in order, in double
        seq = x.reshape(rows, channels, -1).transpose(0, 2, 1).reshape(-1, channels)
        mean = (np.add.reduce(seq.astype(_F64), 0) / count).astype(np.float32)
        d = seq - mean
        var_sum = np.add.reduce((d * d).astype(_F64), 0).astype(np.float32)
        return mean, var_sum


def _double_rounded(products, sums):
    """Whether a chain acc = round32(products[i] + acc) computed as float64 sums `sums` then
    rounded to float32 met a float32 midpoint that float64 had rounded to (or a value near
    float32's subnormals), where rounding twice differs from the fma's one rounding."""
    previous = np.zeros_like(sums)
    previous[1:] = sums[:-1].astype(np.float32)
    tie = (sums.view(np.int64) << 35) == _TIE
    bb = sums - products
    inexact = (products - (sums - bb)) + (previous - bb) != 0
    tiny = (np.abs(sums) < 2.0 ** -100) & (sums != 0)
    return bool((tie & inexact).any() or tiny.any())


def update_running(x, running_mean, running_var, momentum):
    """The running statistics (float32 arrays or None) after a training batch_norm of x (N, C,
    *) float32, contiguous, updated in place as ATen updates them."""
    f32 = np.float32
    mean, var_sum = batch_stats(x)
    m = f32(momentum)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if running_mean is not None:
            running_mean[...] = m * mean + (f32(1) - m) * running_mean
        if running_var is not None:
            unbiased = var_sum / f32(x.size // x.shape[1] - 1)
            running_var[...] = _exact_fma(m, unbiased, (f32(1) - m) * running_var, f32)


def batch_norm(x, weight, bias, running_mean, running_var, eps):
    """F.batch_norm's output for x (N, C, *) float32, contiguous: normalized by the batch's
    statistics when running_mean is None (training), else by the running ones."""
    channels = x.shape[1]
    f32 = np.float32
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if running_mean is None:
            mean, var_sum = batch_stats(x)
            var = var_sum / f32(x.size // channels)
            invstd = (1.0 / np.sqrt(var.astype(_F64) + eps)).astype(f32)
        else:
            mean = running_mean
            invstd = f32(1) / np.sqrt(running_var + f32(eps))
        alpha = invstd if weight is None else invstd * weight
        beta = _exact_fma(-mean, alpha, f32(0) if bias is None else bias, f32)
        shape = (1, channels) + (1,) * (x.ndim - 2)
        return _fma32(x, alpha.reshape(shape), beta.reshape(shape)) if _fits(x) else \
            _exact_fma(x, alpha.reshape(shape), beta.reshape(shape), f32)


# -- the 2-norm ---------------------------------------------------------------------------
#
# ATen's norm kernel for p = 2 over a contiguous last dim in float32 (norm_kernel_tensor_
# iterator_impl's vectorized path, one row per call): 8 lanes each add x * x in order
# (products rounded: not fused), the lanes are added into the first in order, then the
# values after the last vector in order: as the compiler built that loop, 4 at a time by a
# vector multiply (rounded) while 4 remain, then each fused, fma(x, x, acc); the result is
# sqrt of that. The whole-tensor norm of a contiguous tensor is one such row. Measured:
# every result PyTorch's.


def norm2_rows(x2):
    """sqrt(sum(x * x)) of each row of x2 (M, N) float32 in the kernel's order, (M,)."""
    rows, size = x2.shape
    body = size - size % 8
    with np.errstate(over="ignore", invalid="ignore"):
        if body:
            squares = x2[:, :body] * x2[:, :body]
            lanes = _seq(squares.reshape(rows, body // 8, 8), 1) if body > 8 else squares
            total = _seq(lanes, 1) + np.float32(0)
        else:
            total = np.zeros(rows, np.float32)
        fused = body + (size - body) // 4 * 4   # the compiler's tail: 4 squares by one vector
        for i in range(body, size):             # multiply, added in order; the rest fused
            v = x2[:, i]
            if i < fused:
                total = total + v * v
            else:
                total = _fma32(v, v, total) if _fits(v) else _exact_fma(v, v, total, np.float32)
        return np.sqrt(total)
