"""Cost functions of op-table entries (`defop(..., cost=...)`): the work an op does, in
elements (one element of a cheap elementwise op, 0.8-3 ns here), estimated from its
operands' shapes and dtypes *before* numpy runs it.

`apply.charge` charges an op's cost to the budget (`gradcli.limits`) first; an op
without a cost function is charged its inputs' elements times its weight in
ELEMENTWISE_WEIGHTS (and a broadcast its output's). A cost function never validates: a
bad operand gets the op's own error afterwards.

The figures are measured by benchmarks/cost_calibration.py (CPU time per unit of each
op family; benchmarks/README.md has them): keep them in step when an op changes.
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import check_elements
from ..limits import budget

# Multiply-adds of a float matrix product (BLAS, two cores) per element of elementwise
# work: 1000^3 float64 in ~25-50 ms idle, 10^6 elements of `x * y` in ~1.5 ms; but a
# threaded BLAS call on the loaded machine took 10-25x longer in CPU time (its threads
# spin), so the rate is set for the loaded figure (250^3 in 4-14 ms).
BLAS_FLOPS_PER_ELEMENT = 4
_ndarray, _FLOAT64 = np.ndarray, np.dtype(np.float64)
# numpy's matmul of integers, bools and float16 is a plain loop (no BLAS): ~0.7 ns a
# multiply-add, about one element.
LOOP_FLOPS_PER_ELEMENT = 1

# Elementwise ops slower than `x * y` by this factor (measured: sin 10 ns an element,
# fractional pow 19 ns, tanh 2.4 ns; `mul` 0.8-1.5 ns). Read only by `apply.charge`, which
# runs for operands of FREE_ELEMENTS or more: the per-op hot path is unchanged.
ELEMENTWISE_WEIGHTS = {
    "sin": 8, "cos": 8, "tan": 10, "asin": 8, "acos": 8, "atan": 6, "atan2": 10,
    "sinh": 6, "cosh": 6, "tanh": 4, "asinh": 8, "acosh": 8, "atanh": 8,
    "exp": 2, "exp2": 4, "expm1": 4, "log": 3, "log2": 3, "log10": 3, "log1p": 4,
    "pow": 16, "pow_scalar": 16, "pow_tensor": 24, "rpow": 16, "sqrt": 2, "rsqrt": 3,
    "erf": 64, "erfc": 64, "erfinv": 24, "lgamma": 16, "digamma": 16, "sigmoid": 12,
    "logsigmoid": 12, "softplus": 12, "gelu": 64, "silu": 12, "elu": 8, "celu": 8, "selu": 8,
    "mish": 16, "logit": 4, "leaky_relu": 8, "hardtanh": 6, "relu": 4,
    "fmod": 4, "fmod_scalar": 12, "remainder": 6, "remainder_scalar": 16, "div": 2,
    "div_floor": 16, "div_trunc": 8, "floor_divide": 8, "xlogy": 6, "hypot": 3,
    "mse_loss": 12, "binary_cross_entropy": 24, "binary_cross_entropy_with_logits": 24,
    "bce_with_logits": 24, "smooth_l1_loss": 6, "huber_loss": 6, "nll_loss": 2,
    "where": 4, "clamp": 6, "clamp_min": 4, "clamp_max": 4, "masked_fill": 4,
    "masked_fill_tensor": 4, "round_decimals": 6, "prod": 16, "embedding_backward": 12,
    "index_add": 4, "index_put_impl": 4, "tril": 4, "triu": 4, "stack": 6, "roll": 6,
    "repeat": 6, "sum_to_size": 8, "expand": 8, "cat": 2,
    "glu": 3, "pixel_shuffle": 2, "pixel_unshuffle": 2,
}

# Passes a normalization makes over its input (mean, var, normalize, affine) and a
# softmax's (max, exp, sum, divide).
NORM_PASSES = 30
SOFTMAX_PASSES = 6


def _size(a) -> int:
    return getattr(a, "size", 1)


def _shape(a) -> tuple:
    return getattr(a, "shape", ())


def _cols(a) -> int:
    """The last dim of a matrix operand (1 for a vector or a number)."""
    shape = getattr(a, "shape", ())
    return shape[-1] if len(shape) >= 2 else 1


def _flop_rate(*arrays) -> int:
    """Multiply-adds per element for a product of these operands' dtypes."""
    for a in arrays:
        dtype = getattr(a, "dtype", None)
        if dtype is not None and (dtype.kind not in "fc" or dtype.itemsize < 4):
            return LOOP_FLOPS_PER_ELEMENT
    return BLAS_FLOPS_PER_ELEMENT


def matmul_flops(*arrays, **params) -> int:
    """dot, mv, mm, bmm, addmm: (batch x rows x inner) x cols multiply-adds of the last two
    operands, by BLAS or numpy's loop as their dtypes go, plus the operands' elements."""
    a, b = arrays[-2], arrays[-1]
    if len(arrays) == 2 and a.__class__ is _ndarray and b.__class__ is _ndarray and a.ndim == 2 \
            and b.ndim == 2 and a.dtype is _FLOAT64 and b.dtype is _FLOAT64:
        # the common case (a float64 matrix product, forward and backward) without the calls below
        return a.size * b.shape[1] // BLAS_FLOPS_PER_ELEMENT + a.size + b.size
    batch_a, batch_b = _shape(a)[:-2], _shape(b)[:-2]
    flops = _size(a) * _cols(b)
    if batch_b and math.prod(batch_b) > math.prod(batch_a or (1,)):   # b's batch broadcasts a
        flops = flops // max(math.prod(batch_a or (1,)), 1) * math.prod(batch_b)
    return flops // _flop_rate(a, b) + sum(_size(x) for x in arrays)


def cubic(self, *others, **params) -> int:
    """det, inverse, solve: O(n^3) per matrix of a (batch of) n x n matrices (LAPACK),
    and a loop's rate for a dtype LAPACK does not take."""
    n = _cols(self)
    flops = _size(self) * n + sum(_size(x) * n for x in others)
    return flops * 8 + _size(self)   # a 60 x 60 det: 1.8 ms loaded (LAPACK's small-matrix overheads)


def reduction(self, *others, dim=None, **params) -> int:
    """A reduction over `dim`: its output, refused over the element limit before numpy
    allocates it (a sum over the empty dim of a (10^10, 0) tensor makes 10^10 zeros)."""
    size = _size(self)
    shape = getattr(self, "shape", ())
    if dim is None or not shape:
        return size
    if dim.__class__ is int and -len(shape) <= dim < len(shape) and shape[dim]:   # one dim
        check_elements(size // shape[dim])
        return size * 2
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    try:
        axes = {int(d) % len(shape) for d in dims}
    except (TypeError, ValueError):
        return size
    out = 1
    for axis, extent in enumerate(shape):
        if axis not in axes:
            out *= extent
    check_elements(out)
    return size * 2


def scan(self, *others, dim=0, **params) -> int:
    """cumsum, cumprod: a pass over the input, strided along a dim that is not the last;
    cumprod of values in (0, 1) runs into subnormal floats (~10x slower)."""
    return _size(self) * 12


def convolution(self, weight, *others, stride=(1,), padding=(0,), dilation=(1,), groups=1,
                **params) -> int:
    """A convolution as gradcli runs it: the windows copied out (im2col), then one matrix
    product per group: N x O x (C/G x prod(kernel)) x prod(output) multiply-adds."""
    shape, wshape = _shape(self), _shape(weight)
    if len(shape) < 3 or len(wshape) < 3:
        return _size(self) + _size(weight)
    c = shape[1]
    out = _out_positions(shape[2:], wshape[2:], stride, padding, dilation)
    return _windows(self, weight, shape[0], c, wshape[2:], out, wshape[0] * max(c // max(int(groups), 1), 1), 8)


def conv_input_grad(grad, weight, *others, input_size=(), stride=(1,), padding=(0,),
                    dilation=(1,), groups=1, **params) -> int:
    """The input gradient of a convolution: the product, then the windows added back."""
    gshape, wshape = _shape(grad), _shape(weight)
    if len(gshape) < 3 or len(wshape) < 3:
        return _size(grad) + _size(weight)
    c = wshape[1] * max(int(groups), 1)
    return _windows(grad, weight, gshape[0], c, wshape[2:], math.prod(gshape[2:]), wshape[0] * wshape[1], 3)


def conv_weight_grad(self, grad, *others, kernel_size=(), stride=(1,), padding=(0,),
                     dilation=(1,), groups=1, **params) -> int:
    """The weight gradient of a convolution: the windows of the input times the gradient."""
    shape, gshape = _shape(self), _shape(grad)
    if len(shape) < 3 or len(gshape) < 3:
        return _size(self) + _size(grad)
    c = shape[1]
    products = gshape[1] * max(c // max(int(groups), 1), 1)
    return _windows(self, grad, shape[0], c, kernel_size, math.prod(gshape[2:]), products, 3)


def _windows(a, b, n, channels, kernel, out, products, passes) -> int:
    """What the three convolution costs share: N x C x prod(kernel) x prod(output) window
    elements touched `passes` times, N x `products` x prod(kernel) x prod(output)
    multiply-adds at the flop rate, and both operands read."""
    kernel = math.prod(kernel)
    cols = n * channels * kernel * out
    flops = n * products * kernel * out
    return cols * passes + flops // _flop_rate(a, b) + _size(a) + _size(b)


def _out_positions(spatial, kernel, stride, padding, dilation) -> int:
    """The output positions of a window sliding over `spatial` (never below 1)."""
    total = 1
    for i, (s, k) in enumerate(zip(spatial, kernel)):
        st = _at(stride, i, 1)
        p = _at(padding, i, 0)
        d = _at(dilation, i, 1)
        total *= max((s + 2 * p - d * (k - 1) - 1) // max(st, 1) + 1, 1)
    return total


def _at(values, i, default) -> int:
    try:
        return int(values[i] if isinstance(values, (tuple, list)) else values)
    except (IndexError, TypeError, ValueError):
        return default


def pooling(self, *others, kernel_size=(1, 1), stride=None, padding=(0, 0), dilation=(1, 1),
            **params) -> int:
    """max_pool2d, avg_pool2d and their backwards: every window's elements, kernel by kernel."""
    shape = _shape(self)
    if len(shape) < 3:
        return _size(self)
    planes = math.prod(shape[:-2])
    out = _out_positions(shape[-2:], kernel_size, stride or kernel_size, padding, dilation)
    return planes * out * math.prod(kernel_size) * 10 + _size(self) * 2


def pooling_backward(grad, *others, input_size=(1, 1), kernel_size=(1, 1), **params) -> int:
    """A pooling's backward: each gradient element spread over its window (or to its index)."""
    planes = math.prod(_shape(grad)[:-2]) if len(_shape(grad)) >= 2 else 1
    return _size(grad) * math.prod(kernel_size) * 4 + planes * math.prod(input_size) * 2


def adaptive_pooling(self, *others, output_size=(1, 1), **params) -> int:
    """adaptive_avg_pool2d: two small matrix products per plane (numpy's loop, not BLAS)."""
    shape = _shape(self)
    if len(shape) < 2:
        return _size(self)
    h, w = shape[-2], shape[-1]
    oh, ow = _at(output_size, 0, 1), _at(output_size, 1, 1)
    planes = math.prod(shape[:-2])
    return planes * (oh * h * w + oh * w * ow) + _size(self)


def adaptive_pooling_backward(grad, *others, input_size=(1, 1), **params) -> int:
    """Its backward: the same two products transposed, from the gradient's size to the input's."""
    return adaptive_pooling(grad, output_size=input_size)


def normalization(self, *others, **params) -> int:
    """layer_norm, batch_norm: several passes over the input, and its statistics."""
    return _size(self) * NORM_PASSES + sum(_size(x) for x in others)


# A float32 layer_norm's numpy calls (ops/torch_norms.py: its kernel's sequential steps,
# each over all the rows at once), each ~1-1.5 us: ELEMENTS_PER_WORK elements a unit, ~10
# units a call. Measured with benchmarks/cost_calibration.py's small layer_norm case.
NORM_CALL_ELEMENTS = 640


def layer_norm(self, *others, normalized=1, **params) -> int:
    """normalization, and for float32 the kernel's steps along a row of N values: up to 15
    Welford steps, a merge per chunk of 128, 8 lane merges and one step per value after
    the last vector of 8."""
    cost = normalization(self, *others)
    shape = getattr(self, "shape", ())
    if getattr(self, "dtype", None) != np.float32 or not shape:
        return cost
    size = math.prod(shape[len(shape) - normalized:])
    vectors = size // 8
    calls = 19 * max(min(16, vectors) - 1, 0) + 12 * -(-vectors // 16) + 160 + 5 * (size % 8) + 15
    return cost + calls * NORM_CALL_ELEMENTS


def batch_norm(self, *others, **params) -> int:
    """normalization, and for float32 its kernel's steps (ops/torch_norms.py): ~25 numpy calls,
    and for a 2-d input three per row of a thread's share (the variance's fma chains)."""
    cost = normalization(self, *others)
    shape = getattr(self, "shape", ())
    if getattr(self, "dtype", None) != np.float32 or len(shape) < 2:
        return cost
    calls = 25 + (3 * -(-shape[0] // 2) if len(shape) == 2 else 0)
    return cost + calls * NORM_CALL_ELEMENTS


def softmax(self, *others, **params) -> int:
    return _size(self) * SOFTMAX_PASSES


# A float32 softmax along the last dim computes SLEEF's exp step by step (ops/torch_math.py:
# ~45 numpy calls over float64 blocks): ~60 ns an element on a large input, ~100 us a call.
SLEEF_EXP_PASSES = 30


def kernel_exp(self, *others, **params) -> int:
    """sigmoid, silu: their elementwise weight, and for a float32 input of a whole vector
    step or more SLEEF's exp step by step (torch_math._kernel_exp), ~100 us a call."""
    size = _size(self)
    cost = size * ELEMENTWISE_WEIGHTS["sigmoid"]
    if getattr(self, "dtype", None) == np.float32 and size >= 32:
        cost += size * SLEEF_EXP_PASSES + 45 * NORM_CALL_ELEMENTS
    return cost


def softmax_lastdim(self, *others, dim=None, **params) -> int:
    """softmax: and for float32 along the last dim, SLEEF's exp (torch_math.sleef_exp32)."""
    cost = softmax(self)
    shape = getattr(self, "shape", ())
    if getattr(self, "dtype", None) == np.float32 and shape and isinstance(dim, int) and \
            dim % len(shape) == len(shape) - 1:
        cost += _size(self) * SLEEF_EXP_PASSES + 45 * NORM_CALL_ELEMENTS
    return cost


# A separable resampling's (ops/layers.py: interpolate and the reflect/replicate pads) work
# per element of each tensordot's output (its axis moves and the contraction over small
# matrices), and a scaled_dot_product_attention's per (batch x query) row: numpy's matmul
# over a batch of small matrices pays its loop per matrix. Measured with
# benchmarks/cost_calibration.py --check's cases and 4096 x 3 x 6 x 6 pads and interpolations.
RESAMPLE_OUT_WORK = 3
ATTENTION_ROW_WORK = 128


def resample(self, *others, matrices=(), **params) -> int:
    """One tensordot per trailing dim: its output's copies and its multiply-adds."""
    size, work = _size(self), 0
    for m in matrices:
        rows, cols = _shape(m)[:2] if len(_shape(m)) == 2 else (1, 1)
        size = size // max(cols, 1) * rows
        work += size * RESAMPLE_OUT_WORK + size * cols // (2 * _flop_rate(self, m))
    return work


def constant_pad(self, *others, pad=(), **params) -> int:
    """np.pad: the padded output written and the input copied in."""
    shape = list(_shape(self))
    n = len(pad) // 2
    for i in range(min(n, len(shape))):
        shape[-1 - i] += max(pad[2 * i], 0) + max(pad[2 * i + 1], 0)
    return (math.prod(shape) + _size(self)) * 2


def attention(query, key, value, *others, **params) -> int:
    """softmax(Q K^T) V: two batched products, the scores' softmax, and numpy's per-matrix loop."""
    q, k, v = _shape(query), _shape(key), _shape(value)
    if len(q) < 2 or len(k) < 2 or len(v) < 1:
        return _size(query) + _size(key) + _size(value)
    rows, depth, keys = q[-2], q[-1], k[-2]
    batch = max(_size(query) // max(rows * depth, 1), _size(key) // max(keys * depth, 1), 1)
    scores = batch * rows * keys
    products = scores * (depth + v[-1])
    return products // _flop_rate(query, key, value) + scores * SOFTMAX_PASSES \
        + batch * rows * ATTENTION_ROW_WORK + _size(query) + _size(key) + _size(value)


def charge_sort(x, dim: int, descending: bool) -> None:
    """Charge a sort of `x` along `dim` before it runs (the sorts choose their indices
    before the op): n log2 n comparisons a row, twice for descending (a two-key lexsort)."""
    shape = getattr(x, "shape", ())
    if not shape:
        return
    n = shape[dim]
    work = _size(x) * max(n.bit_length(), 1) * (6 if descending else 4)
    budget.charge_elements(work)


def slices(self, *others, dim=0, **params) -> int:
    """unbind: one Tensor made per slice along `dim` (~4 us each: 16 units' worth)."""
    shape = _shape(self)
    count = shape[_at((dim,), 0, 0) % len(shape)] if shape else 1
    return _size(self) + count * 1024
