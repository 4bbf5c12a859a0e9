"""PyTorch's CPU order of float32 and float16 sums, emulated with numpy.

PyTorch's float32 `sum` is not correctly rounded, and neither is numpy's: each adds
in its own order, and the last bits of a printed `loss.item()` show the order. This
module adds in PyTorch's order (ATen's `cascade_sum`, SumKernel.cpp, driven by
TensorIterator), so that gradcli prints PyTorch's digits. The facts it rests on:

* TensorIterator puts the reduced dims innermost (then the others by input stride),
  merges dims that are contiguous with each other, and calls a 2-d loop per outer
  index; results of successive calls for one output are added into it (`out += r`,
  rounded to the output dtype each time).
* The 2-d loop picks one of four kernels: a row contiguous along the reduced dim is
  summed in vector registers (`LANES` floats, 4 registers interleaved), columns
  contiguous across outputs are summed `LANES` or `4 * LANES` at a time, else one
  element at a time with 4 interleaved partial sums.
* Every partial sum is a cascade (`_cascade`): runs of `2 ** p` elements added in
  order, runs of those sums added in order, 4 levels deep.
* Float16 adds in float32 (a vector load of 16 halves adds its two 8-float halves first:
  lane j is x[j] + x[j + 8]); where two reduced dims cannot be merged, the whole sum is a
  float32 sum rounded once.
* Above `GRAIN` elements the work is split between `THREADS` threads: a whole-tensor
  sum in two halves added at the end; a sum into several outputs by output columns.

The vector width and the thread count are those of the machine the recorded outputs
come from (PyTorch 2.13 runs its sum kernel as AVX2 there, 8 floats, though the CPU has
AVX512; 2 threads): PyTorch's own digits change with them, above 32,768 elements with
the threads. Sequential sums go through `_seq`, which uses only numpy operations that
add in order (einsum's one-operand loop, mostly: one call per chain of the cascade).

numpy's cost per call (about a microsecond) is what a sum costs under ~10^4 elements, so
the common layouts take the fewest calls: a whole contiguous row under SHORT_ROW floats
(`_row1`: a copy into a cached plan's buffer, one einsum for the cascade, one gather and
one chain-of-chains einsum for the lanes and the tail); a longer one, a contiguous last dim,
dim 0 with contiguous columns and a strided row's scalar loads have kernels of their own in
sum_kernels.py (`row_sum`, `rows_sum`, `cols_sum`, `row_sums`), each with a plan made once
per shape. tests/engine/test_torch_digits.py holds PyTorch's recorded results, each fast
path against the general loops here, and the einsum facts the fast paths rest on;
benchmarks/sum_cost.py measures the cost beside the round's start, benchmarks/sum_order.py
beside numpy's sum.
"""
from __future__ import annotations

import functools

import numpy as np

from . import sum_kernels
from .sum_kernels import GRAIN, LANES, THREADS, _SHORT, _einsum, ceil_log2 as _ceil_log2
from .sum_kernels import ILP as _ILP, LEVELS as _LEVELS


def _seq(a, axis):
    """The sum along `axis` added in order (what a C loop `acc += x[i]` gives).

    einsum's one-operand loops add in order along an axis that is not their inner loop
    (`out[j] += in[j]`, one row at a time) and along a strided inner loop (one accumulator
    per call, then `out += acc`): one C loop, no buffering. The one order it changes is a
    contiguous inner loop (4 vector accumulators), where a strided axis after the summed
    one, or numpy's cumsum, adds in order instead. Rows of 64 or more contiguous floats (2,048
    in all) go to np.add.reduce, whose vector loop costs less per element than einsum's."""
    shape, strides, item = a.shape, a.strides, a.itemsize
    n = shape[axis]
    if n <= 1:
        return a.take(0, axis) if n else np.zeros(shape[:axis] + shape[axis + 1:], a.dtype)
    stride = strides[axis]
    fast, low = -1, stride   # the other axis with the smallest stride (numpy's inner loop)
    for i, m in enumerate(shape):
        if i != axis and m > 1 and abs(strides[i]) < low:
            fast, low = i, abs(strides[i])
    if fast >= 0 and low and stride > 0:   # `axis` is not the inner loop: in order
        if fast > axis and low == item and shape[fast] >= 64 and a.size >= 2048:
            return np.add.reduce(a, axis)   # long contiguous rows: the ufunc's vector loop
        if a.dtype == np.float32:
            return _einsum(_subscripts(a.ndim, axis), a)
        if fast > axis:
            return np.add.reduce(a, axis)
    elif fast < 0 and stride > item and a.ndim <= 3 and a.dtype == np.float32 and \
            0 not in [strides[i] for i, m in enumerate(shape) if m > 1]:   # a strided inner loop
        return _einsum(_subscripts(a.ndim, axis), a)
    if a.dtype == np.float32 and a.size > n:   # an expanded or inner axis: a copy with `axis`
        b = np.ascontiguousarray(np.moveaxis(a, axis, 0))   # outermost, which einsum adds in order
        return _einsum(_subscripts(b.ndim, 0), b)
    return a.cumsum(axis).take(-1, axis)


@functools.lru_cache(maxsize=64)
def _subscripts(ndim, axis):
    """einsum's subscripts for a sum over `axis` of `ndim` axes."""
    labels = "abcdefghijklmnop"[:ndim]
    return f"{labels}->{labels[:axis]}{labels[axis + 1:]}"


def _plus(acc, more):
    return more if acc is None else acc + more


def _cascade(x):
    """multi_row_sum: x (batch, size, lanes) summed over axis 1 in PyTorch's cascade order:
    runs of `step` rows added in order, runs of those sums, 4 levels; then the rows after the
    last full run, plus the unfinished runs of each level. (Adding an empty level's 0 changes
    nothing but the sign of a zero, which `reduce_sum` settles at the end.)"""
    b, size, lanes = x.shape
    step = 1 << max(4, _ceil_log2(size) // _LEVELS)
    full = size // step
    acc = _seq(x[:, full * step:], 1) if size > full * step else None
    if not full:
        return acc
    level = _seq(x[:, :full * step].reshape(b, full, step, lanes), 2)
    for _ in range(_LEVELS - 2):
        n = level.shape[1] // step
        if level.shape[1] > n * step:
            acc = _plus(acc, _seq(level[:, n * step:], 1))
        if not n:
            return acc
        level = _seq(level[:, :n * step].reshape(b, n, step, lanes), 2)
    return _plus(acc, _seq(level, 1))


def _row_sum(x, out=None):
    """row_sum: x (batch, size, lanes) over axis 1, the rows dealt to 4 interleaved cascades,
    the leftover rows added to the first, then the other three added to it."""
    b, size, lanes = x.shape
    k = size // _ILP
    if k:
        parts = _cascade(x[:, :k * _ILP].reshape(b, k, _ILP * lanes)).reshape(b, _ILP, lanes)
        x = np.concatenate([parts[:, :1], x[:, k * _ILP:], parts[:, 1:]], 1) if size > k * _ILP else parts
    if out is None:
        return _seq(x, 1)
    if lanes > 1:   # einsum adds in order along an axis before a faster one
        return _einsum(x, [0, 1, 2], [0, 2], out=out)
    out[...] = _seq(x, 1)
    return out


def _inner(x, half):
    """vectorized_inner_sum: x (batch, size0) contiguous along axis 1 -> (batch,)."""
    b, n = x.shape
    width = 2 * LANES if half else LANES
    vecs = n // width
    body = x[:, :vecs * width].reshape(b, vecs, width)
    if half:   # a load of 2 * LANES halves converts them to two LANES-float vectors and adds
        body = body[:, :, :LANES] + body[:, :, LANES:]   # them (InnerSumCastLoadPolicy)
    tail = n - vecs * width
    # final_acc = 0 + the tail + the lanes: the chain written where einsum adds it in order
    # (a strided axis, one accumulator per row)
    buf = np.empty((b, tail + LANES, 2), np.float32)[:, :, 0]
    buf[:, :tail] = x[:, vecs * width:]
    _row_sum(body, out=buf[:, tail:])
    return _einsum(buf, [0, 1], [0])


# -- a short whole row in the fewest numpy calls ----------------------------------------------
#
# vectorized_inner_sum on a contiguous row of n floats, as chains (`chain(a, b, c)` is
# ((0 + a) + b) + c in float32): with k rows of 4 vectors, `left` more vectors and m tail
# floats, each of the 32 columns of the k rows is cascaded into P (multi_row_sum), then lane j
# is v_j = chain(P0_j, L1_j.. L<left>_j, P1_j, P2_j, P3_j) and the row's sum is
# chain(tail, v_0 .. v_7). Under SHORT_ROW floats the row is copied into a zero-padded buffer
# (its runs stay apart there), one two-operand einsum makes P, and a gather and one einsum
# (a chain of chains, sum_kernels' third fact) the rest. Longer rows: sum_kernels.row_sum.


class _Plan:
    """What _row1 does for a row of n floats, made once: the buffer the row is copied into,
    the einsum that makes the quads' 32 partial sums P, and the gather of the last stages'
    items (`idx` into `buf`: the row's last n - 32k floats, P, a 0). The buffers are reused:
    a sum reads them back before it returns (gradcli computes on one thread). With no tail
    floats and no left vector, `lanes` is P itself, its 4 vectors the lanes' items, summed by
    one einsum instead of a gather (sum_kernels' `qj->`)."""
    __slots__ = ("k", "mode", "buf", "dst", "quads", "mask", "p", "idx", "lanes")


SHORT_ROW = 5120   # _row1 below it, sum_kernels.row_sum from it (measured: they cross there)


@functools.lru_cache(maxsize=64)
def _plan_row(n):
    plan = _Plan()
    vecs, m = divmod(n, LANES)
    k, left = divmod(vecs, _ILP)
    step = 1 << max(4, _ceil_log2(k) // _LEVELS) if k else 0
    runs = -(-k // step) if k > step else 0
    body = max(n, runs * step * 32)   # the copied row (its last runs zero-padded)
    plan.buf = np.zeros(body + 32 + 1, np.float32)
    zero = body + 32
    plan.k, plan.p = k, plan.buf[body:zero]
    plan.dst = plan.buf[:n]
    at = 32 * k   # where the row's last n - 32k floats are in buf
    plan.mode, plan.quads, plan.mask = (0 if not k else 1), None, None
    if k and k <= step:
        plan.quads = plan.buf[:32 * k].reshape(k, 32)
    elif k:   # one level of runs; the rows after k (the row's last floats, zeros) masked out
        plan.mode = 2
        plan.quads = plan.buf[:runs * step * 32].reshape(runs, step, 32).transpose(2, 0, 1)
        mask = np.zeros((runs, step + 1, 2), np.float32)[:, :step, 0]   # strided: runs stay apart
        flat = np.zeros(runs * step, np.float32)
        flat[:k] = 1
        mask[...] = flat.reshape(runs, step)
        plan.mask = mask
    if not vecs:   # row_sum of scalars: the first of 4 partial sums, the rest, then the other 3
        rows = [[at + i for i in _SHORT[n]], []]
    else:
        rows = [[at + n - 32 * k - m + i for i in range(m)]]
        for j in range(LANES):
            lane = [at + 8 * i + j for i in range(left)]
            if k:
                lane = [body + j] + lane + [body + 8 * q + j for q in range(1, _ILP)]
            rows.append(lane)
    width = max(2, max(len(items) for items in rows))   # a strided inner loop
    idx = np.array([items + [zero] * (width - len(items)) for items in rows], np.intp)
    plan.idx = np.ascontiguousarray(idx.T)   # (items, rows): a row's items len(rows) apart
    plan.lanes = None
    if k and not m and not left:   # (with them, the gather costs what their copy would)
        plan.lanes = np.zeros((_ILP, LANES), np.float32)
        plan.p = plan.lanes.reshape(-1)
    return plan


def _row1(x):
    """A contiguous float32 row (1-d, under SHORT_ROW floats) -> its sum (a numpy float32) in
    vectorized_inner_sum's order."""
    plan = _plan_row(x.size)
    mode = plan.mode
    plan.dst[...] = x
    if mode == 1:
        _einsum("kc->c", plan.quads, out=plan.p)
    elif mode == 2:   # order C: columns, runs, the run's rows innermost (strided): a chain of chains
        _einsum("cgp,gp->c", plan.quads, plan.mask, order="C", out=plan.p)
    if plan.lanes is not None:
        res = _einsum("qj->", plan.lanes, order="C")
    else:
        res = _einsum("ia->", plan.buf.take(plan.idx), order="C")
    if mode == 2 and res != res:   # a masked-out inf or nan (0 * inf): the other kernel instead
        return np.float32(sum_kernels.row_sum(x) + np.float32(0))
    return res


def _outer_vectorized(x):
    """vectorized_outer_sum: x (batch, size0, size1), columns contiguous -> (batch, size1)."""
    if x.shape[0] == 1 and x.dtype == np.float32 and x.strides[2] == 4:   # every column at once
        return sum_kernels.cols_sum(x[0])[None]
    size1 = x.shape[2]
    wide = size1 // (4 * LANES) * (4 * LANES)
    out = []
    if wide:
        out.append(_cascade(x[:, :, :wide]))
    if wide < size1:   # LANES at a time, then one at a time: the same order per column
        out.append(_row_sum(x[:, :, wide:]))
    return np.concatenate(out, 1) if len(out) > 1 else out[0]


def _outer_scalar(x):
    """scalar_outer_sum: 4 columns at a time in one cascade, the rest one by one."""
    size1 = x.shape[2]
    four = size1 // 4 * 4
    out = []
    if four:
        out.append(_cascade(x[:, :, :four]))
    if four < size1:
        out.append(_row_sum(x[:, :, four:]))
    return np.concatenate(out, 1) if len(out) > 1 else out[0]


def _loop2d(x, st0, st1, half):
    """One call of cascade_sum's 2-d loop: x (batch, size1, size0) reduced over its last axis,
    size1 columns kept apart -> (batch, size1) float32 results (before they are stored)."""
    b, size1, size0 = x.shape
    if x.dtype != np.float32:
        x = x.astype(np.float32)
    if st0 == 1 and size0 >= (2 * LANES if half else LANES):
        return _inner(x.reshape(b * size1, size0), half).reshape(b, size1)
    cols = np.swapaxes(x, 1, 2)                               # (batch, size0, size1)
    if st1 == 1 and size1 >= (2 * LANES if half else LANES):
        return _outer_vectorized(cols)
    if st0 < st1:
        if b == 1 and size1 > 1:   # every row's 4 interleaved cascades at once
            return sum_kernels.row_sums(x[0].T)[None]
        return _row_sum(x.reshape(b * size1, size0, 1)).reshape(b, size1)
    return _outer_scalar(cols)


# -- TensorIterator: the order of the dims, merged where contiguous ------------------------

@functools.lru_cache(maxsize=512)
def _plan(shape, strides, item, axes):
    """What a reduction of an array of this layout over `axes` does, found once per layout:
    TensorIterator's dims, the transpose that arranges the values in their order, and the way
    back from `_run`'s outputs to numpy's axis order (size-1 dims, dropped, come back)."""
    dims = _iteration(shape, strides, item, set(axes))
    order = [a for d in reversed(dims) for a in reversed(d[3])]
    order = [a for a in range(len(shape)) if a not in order] + order
    kept = [a for d in reversed(dims) if not d[2] for a in reversed(d[3])]   # _run's order
    out_shape = tuple(1 if a in axes else n for a, n in enumerate(shape))
    back = tuple(np.argsort(kept).tolist())
    return (dims, tuple(order), tuple(d[0] for d in reversed(dims)), tuple(shape[a] for a in kept),
            None if back == tuple(range(len(back))) else back, out_shape)


def _iteration(shape, strides, item, axes):
    """TensorIterator's dims for reducing an array (`shape`, byte `strides`, `item` bytes) over
    `axes`: [(size, input stride, reduced, numpy axes)] innermost first, size-1 dims dropped,
    contiguous neighbours merged."""
    ndim = len(shape)
    out_stride, s = {}, 1
    for a in reversed(range(ndim)):   # the output: contiguous, 0 along reduced dims
        out_stride[a] = 0 if a in axes else s
        s *= 1 if a in axes else shape[a]
    dims = [a for a in reversed(range(ndim)) if shape[a] != 1]

    def swap(d0, d1):   # TensorIterator's should_swap (1: d1 goes inside d0)
        o0, o1 = out_stride[d0], out_stride[d1]
        if (o0 == 0) != (o1 == 0):
            return 1 if o1 == 0 else -1
        for s0, s1 in ((o0, o1), (strides[d0] // item, strides[d1] // item)):
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(dims)
    for i in range(1, len(perm)):   # TensorIterator's insertion sort
        j = i
        for k in range(i - 1, -1, -1):
            c = swap(perm[k], perm[j])
            if c > 0:
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif c < 0:
                break
    merged = []
    for a in perm:
        size, stride = shape[a], strides[a] // item
        if merged:
            psize, pstride, pred, paxes = merged[-1]
            if (a in axes) == pred and stride == psize * pstride and out_stride[a] == psize * out_stride[paxes[0]]:
                merged[-1] = (psize * size, pstride, pred, paxes + [a])
                continue
        merged.append((size, stride, a in axes, [a]))
    return merged


def _run(y, dims, half):
    """Serial cascade_sum over `y` (arranged by `_plan`'s transpose) -> the sums per output, kept dims
    outermost first; the loop calls for one output added into it in their order (each
    addition rounded to the output dtype)."""
    dtype = np.float16 if half else np.float32
    if not dims or not dims[0][2]:   # no reduced dim left: out = 0 + x
        return (y.astype(np.float32) + np.float32(0)).astype(dtype)
    size0, st0 = dims[0][0], dims[0][1]
    size1, st1 = (dims[1][0], dims[1][1]) if len(dims) > 1 else (1, 0)
    res = _loop2d(y.reshape(-1, size1, size0), st0, st1, half)     # (calls, size1)
    outer = list(reversed(dims[1:]))                                # outermost first
    res = res.reshape([d[0] for d in outer])
    kept = [i for i, d in enumerate(outer) if not d[2]]
    red = [i for i, d in enumerate(outer) if d[2]]
    if not red:
        return res.astype(dtype)
    res = np.transpose(res, kept + red).reshape([outer[i][0] for i in kept] + [-1])
    return _accumulate(res, dtype)


def _accumulate(res, dtype):
    """out = 0; out += r for each r along the last axis, in `dtype` (a float16 output takes
    each r rounded to half first)."""
    res = res.astype(dtype, copy=False)
    if dtype == np.float32:
        return _seq(res, res.ndim - 1) + np.float32(0)
    out = np.zeros(res.shape[:-1], np.float16)
    for i in range(res.shape[-1]):
        out = out + res[..., i]
    return out


def _whole(row):
    """A whole-tensor float32 sum of a contiguous row: under GRAIN elements one _loop2d; above,
    parallel_reduce's ranges (one per thread), each thread's sum added into its 0-initialised
    slot, the slots added in order."""
    n = row.size
    if n < GRAIN:
        return _row1(row) if n < SHORT_ROW else sum_kernels.row_sum(row)
    chunk = -(-n // min(THREADS, -(-n // GRAIN)))
    if n % chunk == 0:   # equal ranges: their short stages batched
        return np.add.reduce(sum_kernels.rows_long(row.reshape(-1, chunk)), initial=0)   # in order under 8
    total = _ZERO32
    for b in range(0, n, chunk):
        total = total + sum_kernels.row_sum(row[b:b + chunk])
    return total


_ZERO32 = np.float32(0)
ROWS_BELOW = 8192   # rows_sum's rows (one level of runs); longer rows take the general path


def reduce_sum(x, axes, keepdim=False, nan_as_zero=False):
    """`torch.sum(x, axes, keepdim)` of a float32 or float16 array, added in PyTorch's order;
    `nan_as_zero`: nansum's (which reads nan as 0, and makes no float32 pass for float16)."""
    half = x.dtype == np.float16
    if x.ndim == len(axes) and x.flags.c_contiguous and x.size and (x.size < GRAIN or not half):
        # a whole contiguous tensor
        if nan_as_zero:
            x = np.where(np.isnan(x), x.dtype.type(0), x)
        if not half:
            res = _whole(x.reshape(-1))
        else:
            res = _loop2d(x.reshape(1, 1, -1), 1, 0, half)[0, 0].astype(x.dtype) + x.dtype.type(0)
        return res.reshape((1,) * x.ndim) if keepdim else res
    if not half and not nan_as_zero and len(axes) == 1:
        res = _one_dim(x, axes[0], keepdim)
        if res is not None:
            return res
    if x.size == 0:
        res = np.zeros(tuple(1 if a in axes else n for a, n in enumerate(x.shape)), x.dtype)
    else:
        if min(x.strides) < 0:   # a PyTorch tensor never has negative strides: its flip copies
            x = np.ascontiguousarray(x)
        dims, order, arranged, kept_shape, back, out_shape = _plan(x.shape, x.strides, x.itemsize,
                                                                   tuple(sorted(axes)))
        if half and not nan_as_zero and len(dims) > 1 and dims[0][2] and dims[1][2]:
            # PyTorch sums half in float then when two reduced dims stay apart (its
            # should_use_acc_buffer, pytorch#83149)
            return reduce_sum(x.astype(np.float32), axes, keepdim).astype(np.float16)
        y = x.transpose(order).reshape(arranged)   # the values in iteration order (the strides stay in dims)
        if nan_as_zero:
            y = np.where(np.isnan(y), y.dtype.type(0), y)
        if not half and len(dims) == 1 and dims[0][2] and dims[0][1] == 1:   # one contiguous row
            res = _whole(y)
        elif not half and len(dims) == 2 and dims[0][2] and dims[0][1] == 1 and not dims[1][2] and \
                dims[0][0] < ROWS_BELOW:   # rows contiguous along the sum: each whole on one thread
            res = sum_kernels.rows_sum(y.reshape(dims[1][0], dims[0][0]))
        elif not half and len(dims) == 2 and dims[0][2] and not dims[1][2] and x.size < GRAIN:
            (size0, st0, _, _), (size1, st1, _, _) = dims
            if st1 == 1 and size1 % (_ILP * LANES) == 0:   # vectorized_outer_sum, 4 vectors at a time
                res = sum_kernels.cols_sum(y.reshape(size1, size0).T)
            else:
                res = _loop2d(y.reshape(1, size1, size0), st0, st1, False)[0]
        elif x.size >= GRAIN and THREADS > 1:
            res = _parallel(y, dims, half)
        else:
            res = _run(y, dims, half)
        res = np.asarray(res)
        if back is not None:
            res = res.reshape(kept_shape).transpose(back)
        res = res.reshape(out_shape)
    if res.dtype != x.dtype:
        res = res.astype(x.dtype)
    res = res + x.dtype.type(0)   # PyTorch's out = 0 + sum: never -0
    return res if keepdim else res.reshape([n for a, n in enumerate(x.shape) if a not in set(axes)])


def _one_dim(x, axis, keepdim):
    """The float32 sum of x over the one dim `axis`, straight to its kernel where the layout
    has one (else None): the last dim of a C-contiguous tensor (rows, each by
    vectorized_inner_sum, any thread split being by whole rows) or the first of a C-contiguous
    matrix with 8 columns or more (vectorized_outer_sum, a thread split at multiples of 32
    columns); a transposed matrix as its transpose."""
    shape = x.shape
    ndim = len(shape)
    if ndim < 2:
        return None
    axis %= ndim
    if x.flags.c_contiguous:
        y, dim = x, axis
    elif ndim == 2 and x.flags.f_contiguous:
        y, dim = x.T, 1 - axis
    else:
        return None
    n = y.shape[dim]
    if n < 2 or not x.size:
        return None
    if dim == ndim - 1 and n < ROWS_BELOW and x.size > n:
        res = sum_kernels.rows_sum(y.reshape(-1, n))
    elif dim == 0 and ndim == 2 and y.shape[1] >= LANES:
        res = sum_kernels.cols_sum(y)
    else:
        return None
    if ndim == 2:
        return res.reshape((1, -1) if axis == 0 else (-1, 1)) if keepdim else res
    if keepdim:
        return res.reshape(tuple(1 if a == axis else m for a, m in enumerate(shape)))
    return res.reshape(shape[:axis] + shape[axis + 1:])


def _parallel(y, dims, half):
    """parallel_reduce of `y` (arranged by `_plan`'s transpose): a whole-tensor sum in THREADS ranges
    added at the end; otherwise the outputs dealt out by columns of one kept dim (PyTorch's
    find_split_dim)."""
    dtype = np.float16 if half else np.float32
    if all(d[2] for d in dims):   # two_pass_reduction: a buffer slot per thread
        n = y.size
        chunk = -(-n // min(THREADS, -(-n // GRAIN)))
        buf = [_range_sum(y, dims, b, min(n, b + chunk), half) for b in range(0, n, chunk)]
        buf = np.asarray(buf + [0] * (THREADS - len(buf)), dtype)
        return _run(buf, [(THREADS, 1, True, [0])], half)
    split = len(dims) - 1   # the outermost kept dim with a column per thread, else the largest
    for i in range(len(dims) - 1, -1, -1):
        if dims[i][2]:
            break
        if dims[i][0] >= THREADS:
            split = i
            break
        if dims[i][0] > dims[split][0]:
            split = i
    cols = dims[split][0]
    chunk = -(-cols // min(THREADS, cols))
    round_to = 128 // y.itemsize if dims[split][1] == 1 else 1
    axis = len(dims) - 1 - split
    pieces = []
    for b in range(0, cols, chunk):
        e = min(cols, b + chunk)
        b -= b % round_to
        if e != cols:
            e -= e % round_to
        if b == e:
            continue
        sub_dims = list(dims)
        sub_dims[split] = (e - b,) + tuple(dims[split][1:])
        index = (slice(None),) * axis + (slice(b, e),)
        pieces.append(_run(y[index], sub_dims, half))
    kept = [d for d in reversed(dims) if not d[2]]
    return np.concatenate(pieces, axis=kept.index(dims[split]))


def _range_sum(y, dims, begin, end, half):
    """One thread's part of a two-pass sum: the elements [begin, end) in iteration order, in
    the loop calls serial_for_each makes (a partial row, whole rows within one dims[1] run, ...),
    each call's results added into the thread's slot."""
    size0, st0 = dims[0][0], dims[0][1]
    size1, st1 = (dims[1][0], dims[1][1]) if len(dims) > 1 else (1, 0)
    rows = y.reshape(-1, size0)
    dtype = np.float16 if half else np.float32
    results = []
    i = begin
    while i < end:
        r, c = divmod(i, size0)
        if c or end - i < size0:
            m = min(size0 - c, end - i)
            results.append(_loop2d(rows[r, c:c + m].reshape(1, 1, m), st0, st1, half)[0])
            i += m
        else:
            k = min((end - i) // size0, size1 - r % size1)
            results.append(_loop2d(rows[r:r + k].reshape(1, k, size0), st0, st1, half)[0])
            i += k * size0
    return _accumulate(np.concatenate(results)[None], dtype)[0]


# -- the reductions as the ops call them ---------------------------------------------------

_F32 = np.dtype(np.float32)
_EMULATED = (_F32, np.dtype(np.float16))


def _all_axes(x, axes):
    return tuple(range(x.ndim)) if axes is None else tuple(axes)


def sum(x, axes=None, keepdim=False):
    """`torch.sum`: float32 and float16 added in PyTorch's order, other dtypes by numpy."""
    x = np.asarray(x)
    if x.dtype == _F32 and x.size:   # the common cases, first
        if axes is None and x.flags.c_contiguous:
            res = _whole(x if x.ndim == 1 else x.reshape(-1))
            return res.reshape((1,) * x.ndim) if keepdim else res
        if axes is not None and len(axes) == 1:
            res = _one_dim(x, axes[0], keepdim)
            if res is not None:
                return res
    if x.dtype not in _EMULATED:
        return np.sum(x, axis=axes, keepdims=keepdim)
    return reduce_sum(x, _all_axes(x, axes), keepdim)


def mean(x, axes=None, keepdim=False):
    """`torch.mean` on CPU: the sum divided by the count in the sum's dtype (float16: summed as
    float32, divided, rounded once), as PyTorch's mean_out does."""
    x = np.asarray(x)
    if x.dtype not in _EMULATED:
        return np.mean(x, axis=axes, keepdims=keepdim)
    axes = _all_axes(x, axes)
    n = 1
    for a in axes:
        n *= x.shape[a]
    if x.dtype == _F32:
        total = sum(x, None if len(axes) == x.ndim and not keepdim else axes, keepdim)   # its fast paths
    else:
        total = reduce_sum(x.astype(np.float32), axes, keepdim)
    if n:   # (an empty mean is 0 / 0: nan, without numpy's warning)
        return (total / np.float32(n)).astype(x.dtype, copy=False)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (total / np.float32(n)).astype(x.dtype, copy=False)


def nansum(x, axes=None, keepdim=False):
    """`torch.nansum`: the sum with nan read as 0 (PyTorch's nan-skipping loads)."""
    x = np.asarray(x)
    if x.dtype not in _EMULATED:
        return np.nansum(x, axis=axes, keepdims=keepdim)
    axes = _all_axes(x, axes)
    return reduce_sum(x, axes, keepdim, nan_as_zero=True)


def cumsum(x, axis):
    """`torch.cumsum`: in order, accumulated in double for float32 (PyTorch's CPU acc_type) and
    in float for float16, each partial sum rounded to the dtype."""
    x = np.asarray(x)
    acc = np.float32 if x.dtype == np.float16 else np.float64
    return np.cumsum(x.astype(acc), axis=axis).astype(x.dtype)


# -- nll_loss's own cascade -------------------------------------------------------------------

NLL_LEVELS = 8


def _chain(v):
    """0 + v[0] + v[1] + ... in order, in v's dtype."""
    return np.cumsum(np.concatenate([np.zeros(1, v.dtype), v]))[-1]


def nll_sum(losses):
    """The sum of a batch's losses as PyTorch's nll_loss (2-d input, no weight, no ignored
    target) adds them: a cascade of its own, 8 levels of runs of 2 ** max(4, ceil_log2(N) // 8)
    batch entries; the first entry flushes through every level at once (its index is 0 mod
    every run), so it is added last; the others form the runs from index 1. The levels' sums
    are added from 0, lowest first."""
    n = losses.size
    step = 1 << max(4, _ceil_log2(n) // NLL_LEVELS)
    items, levels = losses[1:], []
    for _ in range(NLL_LEVELS - 1):
        full = items.size // step
        levels.append(_chain(items[full * step:]))
        if not full:
            break
        # each run's chain (a run sum of -0 becomes +0 in the next level's chain from 0)
        items = _seq(items[:full * step].reshape(full, step), 1)
    zero = losses.dtype.type(0)
    total = zero
    for level in levels:
        total = total + level
    return total + (zero + losses[0]) if n else total
