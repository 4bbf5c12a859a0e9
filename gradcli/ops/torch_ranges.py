"""PyTorch's formulas for the values of linspace, logspace and arange, in every dtype.

A range's last bits depend on the formula and on the precision of each step; these are
ATen's CPU kernels' (RangeFactories.cpp, cpu/RangeFactoriesKernel.cpp), each operation
rounded where PyTorch's C++ rounds it:

* Where ATen's C++ writes `a + b * c` in float or double, the compiler fuses it into one
  rounding (an FMA instruction): `fma` emulates it exactly.
* linspace computes in the dtype (float16: each operation rounded to half), the first
  half counting up from start, the second half down from end; integer dtypes compute in
  double and truncate.
* logspace raises a double base to start + step * i (in double, step from the dtype's
  end - start) with the C library's pow, rounded once to the dtype.
* arange computes in the accumulate type (double for float32, float for float16) and
  writes vectors: each vector of `LANES` float32 values is start + step * i for its first
  element, then that value (rounded) plus k * step; elements after the last pair of whole
  vectors, and arange's values in double, take start + step * i each; every one of these
  operations is fused (one rounding in the accumulate type, float16's float included). Above `GRAIN`
  elements two threads start their own vectors halfway.
"""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import cast

LANES = 8      # float32 lanes of the arange kernel's vectors (AVX2's, as PyTorch 2.13 runs it here)
THREADS = 2
GRAIN = 32768


def _half(x):
    return cast(x, np.float16)   # through a float, as c10::Half is made


# -- fused multiply-add: the compiler contracts ATen's `start + step * i` into one rounding --

def _two_sum_error(a, b, s):
    """The rounding error of s = a + b (Knuth's TwoSum): a + b == s + error exactly."""
    bb = s - a
    return (a - (s - bb)) + (b - bb)


def _round_to_odd_sum(a, b):
    """a + b in float64 rounded to odd: truncated, its last bit set when inexact (so that a
    second rounding to fewer bits is a correct rounding of the exact sum)."""
    s = a + b
    err = _two_sum_error(a, b, s)
    even = (s.view(np.int64) & 1) == 0
    return np.where((err != 0) & even & np.isfinite(s), np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)


def _two_product_error(a, b, p):
    """The rounding error of p = a * b in float64 (Dekker's product, Veltkamp's split)."""
    def split(x):
        t = 134217729.0 * x
        hi = t - (t - x)
        return hi, x - hi
    ah, al = split(a)
    bh, bl = split(b)
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def fma(a, b, c, np_dtype):
    """a * b + c rounded once to float32 or float64 (C's fmaf/fma), elementwise."""
    with np.errstate(over="ignore", invalid="ignore"):
        a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
        if np.dtype(np_dtype) == np.float32:   # the product is exact in double
            return _round_to_odd_sum(a * b, c).astype(np.float32)
        p = a * b   # Boldo and Melquiond's emulation through rounding to odd
        s = c + p
        return s + _round_to_odd_sum(_two_product_error(a, b, p), _two_sum_error(c, p, s))


def linspace(start: float, end: float, steps: int, np_dtype) -> np.ndarray:
    """torch.linspace's values (steps >= 2) in `np_dtype`."""
    dt = np.dtype(np_dtype)
    i = np.arange(steps)
    first = i < steps // 2
    back = steps - 1 - i
    if dt.kind != "f":   # integers: start and end truncated, then double arithmetic, truncated
        s, e = float(int(start)), float(int(end))
        step = (e - s) / (steps - 1)
        with np.errstate(invalid="ignore"):
            values = np.where(first, s + step * i, e - step * back)
            return np.trunc(values).astype(dt)
    if dt == np.float16:   # c10::Half: every operation computed in float, rounded to half
        with np.errstate(over="ignore", invalid="ignore"):   # inf and nan, as in PyTorch
            s, e = _half(start), _half(end)
            step = _half(np.float32(_half(np.float32(e) - np.float32(s))) / np.float32(np.float16(steps - 1)))
            f = np.float32
            up = _half(f(s) + _half(f(step) * _half(i).astype(f)).astype(f))
            down = _half(f(e) - _half(f(step) * _half(back).astype(f)).astype(f))
        return np.where(first, up, down)
    t = dt.type
    s, e = t(start), t(end)
    step = (e - s) / t(steps - 1)
    return np.where(first, fma(step, i.astype(dt), s, dt), fma(-step, back.astype(dt), e, dt)).astype(dt)


def logspace(start: float, end: float, steps: int, base: float, np_dtype) -> np.ndarray:
    """torch.logspace's values (steps >= 2): base ** (start + step * i) in double, rounded."""
    dt = np.dtype(np_dtype)
    if dt.kind != "f":
        s, e = float(int(start)), float(int(end))
        diff = e - s
    else:
        s, e = (_half(start), _half(end)) if dt == np.float16 else (dt.type(start), dt.type(end))
        diff = float(e - s)   # the dtype's subtraction, then double
        s, e = float(s), float(e)
    step = diff / (steps - 1)
    i = np.arange(steps)
    exponent = np.where(i < steps // 2, s + step * i, e - step * (steps - 1 - i))
    values = _libm_pow(float(base), exponent)
    with np.errstate(over="ignore", invalid="ignore"):
        if dt == np.float16:   # c10::Half is made from a float: the double is rounded twice
            return values.astype(np.float32).astype(dt)
        return (np.trunc(values) if dt.kind != "f" else values).astype(dt)


def _libm_pow(base: float, exponents) -> np.ndarray:
    """C's pow, as std::pow calls it (numpy's float64 power is its own SIMD code, whose last
    bit differs now and then): Python's math.pow is the C library's."""
    out = []
    for x in exponents.tolist():
        try:
            out.append(math.pow(base, x))
        except (OverflowError, ValueError):
            with np.errstate(all="ignore"):
                out.append(float(np.power(base, x)))
    return np.array(out, dtype=np.float64)


def _vector_starts(n: int, width: int) -> np.ndarray:
    """For each of n elements written by cpu_serial_kernel_vec, the index its vector starts
    at (its own index where it is written one at a time), the threads' ranges included."""
    first = np.arange(n)
    chunk = n if n < GRAIN or THREADS == 1 else -(-n // min(THREADS, -(-n // GRAIN)))
    for begin in range(0, n, chunk):
        end = min(n, begin + chunk)
        whole = (end - begin) // (2 * width) * (2 * width)
        idx = np.arange(begin, begin + whole)
        first[begin:begin + whole] = begin + (idx - begin) // width * width
    return first


def arange(start: float, n: int, step: float, np_dtype) -> np.ndarray:
    """torch.arange's n values in `np_dtype` (n from PyTorch's size computation)."""
    dt = np.dtype(np_dtype)
    if dt.kind != "f":
        return (np.int64(start) + np.int64(step) * np.arange(n, dtype=np.int64)).astype(dt)
    acc = np.float32 if dt == np.float16 else np.float64
    width = {np.dtype(np.float16): 2 * LANES, np.dtype(np.float32): LANES, np.dtype(np.float64): LANES // 2}[dt]
    a, d = acc(start), acc(step)
    i = np.arange(n)
    base_index = _vector_starts(n, width)
    # the vector's first value, then the others from it: each a fused multiply-add in the
    # accumulate type (float for float16 too: measured, 341 random float16 ranges all exact,
    # where unfused float arithmetic was 2 ulp off in 12), rounded to the dtype
    with np.errstate(over="ignore", invalid="ignore"):
        base = fma(d, base_index.astype(acc), a, acc).astype(dt)
        return fma((i - base_index).astype(acc), d, base.astype(acc), acc).astype(dt)
