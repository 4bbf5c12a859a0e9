"""Which elements of an elementwise result PyTorch's CPU loop writes with vectors, and which
with its scalar loop: where the two round differently (add's `alpha=`), the last bits of
each element depend on it.

The facts, from ATen's cpu_kernel_vec (native/cpu/Loops.h) as TensorIterator drives it, and
measured on PyTorch 2.13 (AVX2 kernels):

* TensorIterator orders the dims by the inputs' strides (the result of a transposed input is
  laid out as that input is), merges dims that are contiguous with each other, and runs a
  loop over the innermost (merged) dim for each outer index.
* The vector loop runs when every input is contiguous along it, or all but one are and that
  one is a broadcast number (stride 0): from the start of the run, in steps of two vectors
  (`2 * lanes` elements); the elements after the last whole step (the tail) go through the
  scalar loop. With a strided input, or two broadcast ones, the scalar loop writes the run.
* From GRAIN elements the range is cut between THREADS threads (across rows too): each
  thread's part of a run is a run of its own.
* In the tail, with a broadcast number as the second input, the compiler's vectorized loop
  (SSE: 4 floats, 2 doubles) computes what depends on that number alone once, outside the
  loop: the tail's first element, and its last (length - 1) % width ones, compute it per element.
"""
from __future__ import annotations

import math

import numpy as np

from .torch_ranges import GRAIN, THREADS


def _strides(shape, operands):
    """Each operand's strides in elements over `shape` (0 where it is broadcast)."""
    out = []
    for o in operands:
        st = np.broadcast_to(o, shape).strides if o.ndim else (0,) * len(shape)
        out.append([s // o.itemsize for s in st])
    return out


def _layout(shape, operands):
    """(order, vectorized, scalar, run) of an elementwise op of `operands` giving `shape`: the
    dims in memory order (outermost first, as TensorIterator orders them), whether the vector
    loop runs, the operand that is a broadcast number in it (or None), and the length of the
    coalesced innermost run."""
    strides = _strides(shape, operands)
    order = sorted(range(len(shape)), key=lambda d: next((st[d] for st in strides if st[d]), 0), reverse=True)
    run, inner, prev = 1, None, None
    for d in reversed(order):
        if shape[d] == 1:
            continue
        if inner is None:
            run, inner, prev = shape[d], [st[d] for st in strides], d
        elif all(st[d] == st[prev] * shape[prev] for st in strides):
            run, prev = run * shape[d], d
        else:
            break
    if inner is None:   # one element
        inner = [1] * len(strides)
    vectorized = all(s in (0, 1) for s in inner) and inner.count(0) <= 1
    scalar = inner.index(0) if vectorized and 0 in inner else None
    return order, vectorized, scalar, run


def thread_share(n: int) -> int:
    """The elements of each thread's share of n (the whole under GRAIN)."""
    return n if n < GRAIN or THREADS == 1 else -(-n // min(THREADS, -(-n // GRAIN)))


def contiguous_tails(n: int, lanes: int) -> list:
    """Where the scalar loop writes over a contiguous run of n elements: each thread share's
    elements after its last whole step of two vectors (as slices)."""
    chunk = thread_share(n)
    step = 2 * lanes
    return [slice(min(n, b + chunk) - (min(n, b + chunk) - b) % step, min(n, b + chunk))
            for b in range(0, n, chunk)]


def _positions(shape, order, run):
    """Per element of the result, its position in its run (a thread's share of it from GRAIN
    elements) and that run's length."""
    n = math.prod(shape)
    i = np.arange(n)
    chunk = thread_share(n)
    start = np.maximum(i - i % run, i - i % chunk)
    end = np.minimum(i - i % run + run, i - i % chunk + chunk)
    ordered, back = [shape[d] for d in order], np.argsort(order)
    return (i - start).reshape(ordered).transpose(back), (end - start).reshape(ordered).transpose(back)


def vector_body(shape, operands, lanes: int) -> np.ndarray:
    """Where the vector loop writes (the rest: the scalar loop)."""
    order, vectorized, _, run = _layout(shape, operands)
    if not vectorized:
        return np.zeros(shape, dtype=bool)
    pos, length = _positions(shape, order, run)
    return pos < length // (2 * lanes) * (2 * lanes)


def hoisted(shape, operands, lanes: int, width: int):
    """Where the scalar loop's tail computes what depends on the second operand alone once
    (the second operand a broadcast number; `width`: the SSE loop's elements); None when
    nowhere (the common case, found without building per-element arrays)."""
    order, vectorized, scalar, run = _layout(shape, operands)
    if not vectorized or scalar != 1:
        return None
    pos, length = _positions(shape, order, run)
    body = length // (2 * lanes) * (2 * lanes)
    tail, t = length - body, pos - body
    return (t >= 1) & (t <= (tail - 1) // width * width)
