"""Convolution, pooling, embedding and normalisation: F.conv1d/conv2d, the pools, F.embedding,
F.layer_norm and F.batch_norm.

Each linear map here comes with its adjoint as an op of its own (convolution ->
conv_input_grad / conv_weight_grad, avg_pool2d -> avg_pool2d_backward...), and
each op's backward rule is the adjoint, so gradients of any order stay in the
table. The forwards use only slicing, matmul and sums, so the same code runs on
SymPy object arrays: it is also each op's SymPy counterpart.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..errors import ProgramValueError, ShapeError
from .._tensor import Tensor, bump_version
from ..limits import budget
from . import costs, torch_norms
from .apply import apply
from .registry import TENSORS, defop, export, LINEAR, BILINEAR


def _data(x):
    return x._data if isinstance(x, Tensor) else x


def _objects(*arrays):
    """SymPy inputs as object arrays (numbers and None pass through)."""
    return [np.asarray(a, dtype=object) if isinstance(a, np.ndarray) else a for a in arrays]


def _run(F, op, *inputs, **params):
    """Op `op` inside a rule: on Tensors (a graph) or on arrays, as `F` says (its public name is taken)."""
    return apply(op, inputs, params) if F is TENSORS else op.forward(*inputs, **params)


def _symbolic(forward):
    return lambda sp, *args, **params: forward(*_objects(*args), **params)


def _zeros(shape, like):
    return np.zeros(shape, dtype=like.dtype) if like.dtype != object else np.full(shape, 0, dtype=object)


# -- im2col and its adjoint ------------------------------------------------------------


def _window_slices(k, out, stride, dilation):
    return (slice(None), slice(None)) + tuple(
        slice(k[i] * dilation[i], k[i] * dilation[i] + stride[i] * (out[i] - 1) + 1, stride[i])
        for i in range(len(out)))


def _out_size(size, kernel, stride, padding, dilation):
    return tuple((size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
                 for i in range(len(size)))


# Work arrays of the last shapes seen, reused: im2col's columns and the padded input live
# only inside one forward, and a fresh array of megabytes costs more in page faults than
# the arithmetic done in it.
_SCRATCH: dict = {}


def _scratch(role, shape, dtype):
    if dtype == object:
        return np.empty(shape, dtype=object)
    key = (role, shape, np.dtype(dtype))
    buffer = _SCRATCH.get(key)
    if buffer is None:
        if len(_SCRATCH) >= 8:
            _SCRATCH.clear()
        buffer = _SCRATCH[key] = np.empty(shape, dtype=dtype)
    return buffer


def _cols(x, kernel, stride, padding, dilation, fill=0):
    """(N, C, *S) -> (N, C, prod(kernel), *out): every window's elements, one kernel offset at a time.

    The result is a work array, valid until the next call: use it at once.
    """
    out = _out_size(x.shape[2:], kernel, stride, padding, dilation)
    if any(padding):
        if x.dtype == object:
            x = _pad_objects(x, padding, fill)
        else:
            padded = _scratch("pad", x.shape[:2] + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding)), x.dtype)
            padded.fill(fill)
            padded[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, x.shape[2:]))] = x
            x = padded
    cols = _scratch("cols", x.shape[:2] + (math.prod(kernel),) + out, x.dtype)
    for j, k in enumerate(itertools.product(*(range(n) for n in kernel))):
        cols[:, :, j] = x[_window_slices(k, out, stride, dilation)]
    return cols, out


def _pad_objects(x, padding, fill):
    shape = x.shape[:2] + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding))
    out = np.full(shape, fill, dtype=object)
    out[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, x.shape[2:]))] = x
    return out


def _uncols(cols, size, kernel, stride, padding, dilation):
    """The adjoint of `_cols`: add each window's elements back where they came from."""
    out = cols.shape[3:]
    padded = cols.shape[:2] + tuple(s + 2 * p for s, p in zip(size, padding))
    if cols.dtype == object or not any(padding):
        x = _zeros(padded, cols)
    else:
        x = _scratch("uncols", padded, cols.dtype)
        x.fill(0)
    for j, k in enumerate(itertools.product(*(range(n) for n in kernel))):
        x[_window_slices(k, out, stride, dilation)] += cols[:, :, j]
    if not any(padding):
        return x
    return x[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, size))].copy()


# -- convolution -------------------------------------------------------------------------


def _convolution(self, weight, bias, stride, padding, dilation, groups):
    n, c = self.shape[:2]
    o = weight.shape[0]
    kernel = weight.shape[2:]
    cols, out = _cols(self, kernel, stride, padding, dilation)
    cols = cols.reshape(n, groups, (c // groups) * math.prod(kernel), math.prod(out))
    w = weight.reshape(groups, o // groups, -1)
    y = np.matmul(w, cols).reshape((n, o) + out)
    if bias is not None:
        b = bias.reshape((1, o) + (1,) * len(out))
        # in place on the fresh product when the dtypes allow: one large array less to fault in
        y = np.add(y, b, out=y) if np.result_type(y, b) == y.dtype else y + b
    return y


def _dense(grad):
    """A gradient as a contiguous array: sum()'s backward hands on a broadcast view (zero
    strides), which numpy's matmul would multiply element by element instead of by BLAS."""
    return grad if grad.dtype == object or grad.flags.c_contiguous else np.ascontiguousarray(grad)


def _conv_input_grad(grad, weight, input_size, stride, padding, dilation, groups):
    grad = _dense(grad)
    n, o = grad.shape[:2]
    c = weight.shape[1] * groups
    kernel = weight.shape[2:]
    g = grad.reshape(n, groups, o // groups, -1)
    w = weight.reshape(groups, o // groups, -1).swapaxes(1, 2)
    shape = (n, groups, w.shape[1], g.shape[3])
    if grad.dtype == object:
        cols = np.matmul(w, g)
    else:
        cols = np.matmul(w, g, out=_scratch("grad cols", shape, np.result_type(w, g)))
    cols = cols.reshape((n, c, math.prod(kernel)) + grad.shape[2:])
    return _uncols(cols, tuple(input_size), kernel, stride, padding, dilation)


def _conv_weight_grad(self, grad, kernel_size, stride, padding, dilation, groups):
    grad = _dense(grad)
    n, c = self.shape[:2]
    o = grad.shape[1]
    cols, out = _cols(self, tuple(kernel_size), stride, padding, dilation)
    ck = (c // groups) * math.prod(kernel_size)
    cols = cols.reshape(n, groups, ck, -1).swapaxes(2, 3)
    g = grad.reshape(n, groups, o // groups, -1)
    # one (O/G, L) @ (L, CK) product per sample, summed: no transposed copy of the columns
    return np.matmul(g, cols).sum(axis=0).reshape((o, c // groups) + tuple(kernel_size))


def _spatial(shape):
    return tuple(shape[2:])


def _bias_grad(F, g, self_shape):
    return F.sum(g, (0,) + tuple(range(2, len(self_shape))))


_CONV = "stride, padding, dilation, groups"


def _conv_cases(rng):
    u = lambda *shape: rng.uniform(-1, 1, shape)  # noqa: E731
    one, zero = (1,), (0,)
    return [((u(2, 2, 5), u(3, 2, 2), u(3)), {"stride": one, "padding": zero, "dilation": one, "groups": 1}),
            ((u(1, 2, 5, 4), u(2, 2, 2, 2), u(2)),
             {"stride": (1, 1), "padding": (1, 0), "dilation": (1, 1), "groups": 1}),
            ((u(1, 4, 5, 5), u(2, 2, 2, 2), None),
             {"stride": (2, 1), "padding": (1, 1), "dilation": (2, 1), "groups": 2})]


convolution_op = defop(
    "convolution", "ConvolutionBackward0", _convolution, inputs=("self", "weight", "bias"), public=False,
    cost=costs.convolution,
    rules=(lambda F, g, weight, self_shape, stride, padding, dilation, groups:
           F.conv_input_grad(g, weight, _spatial(self_shape), stride, padding, dilation, groups),
           lambda F, g, self, weight_shape, stride, padding, dilation, groups:
           F.conv_weight_grad(self, g, _spatial(weight_shape), stride, padding, dilation, groups),
           _bias_grad),
    formulas=("conv_transpose(grad, weight)", "conv(self^T, grad^T) (the correlation of self and grad)",
              "grad.sum(batch and spatial dims)"),
    sympy=_symbolic(_convolution), domain=_conv_cases,
)


def _input_grad_cases(rng):
    out = []
    for (x, w, _), p in _conv_cases(rng):
        y = _convolution(x, w, None, **p)
        out.append(((rng.uniform(-1, 1, y.shape), w), {"input_size": x.shape[2:], **p}))
    return out


def _weight_grad_cases(rng):
    out = []
    for (x, w, _), p in _conv_cases(rng):
        y = _convolution(x, w, None, **p)
        out.append(((x, rng.uniform(-1, 1, y.shape)), {"kernel_size": w.shape[2:], **p}))
    return out


conv_input_grad_op = defop(
    "conv_input_grad", "ConvolutionBackwardBackward0", _conv_input_grad, inputs=("grad", "weight"),
    public=False, cost=costs.conv_input_grad,
    rules=(lambda F, g, weight, stride, padding, dilation, groups:
           F.convolution(g, weight, None, stride, padding, dilation, groups),
           lambda F, g, grad, weight_shape, stride, padding, dilation, groups:
           F.conv_weight_grad(g, grad, _spatial(weight_shape), stride, padding, dilation, groups)),
    formulas=("conv(grad', weight)", "conv_weight_grad(grad', grad)"),
    sympy=_symbolic(_conv_input_grad), domain=_input_grad_cases, tangent=BILINEAR,
)

conv_weight_grad_op = defop(
    "conv_weight_grad", "ConvolutionBackwardBackward0", _conv_weight_grad, inputs=("self", "grad"),
    public=False, cost=costs.conv_weight_grad,
    rules=(lambda F, g, grad, self_shape, stride, padding, dilation, groups:
           F.conv_input_grad(grad, g, _spatial(self_shape), stride, padding, dilation, groups),
           lambda F, g, self, stride, padding, dilation, groups:
           F.convolution(self, g, None, stride, padding, dilation, groups)),
    formulas=("conv_input_grad(grad, grad')", "conv(self, grad')"),
    sympy=_symbolic(_conv_weight_grad), domain=_weight_grad_cases, tangent=BILINEAR,
)


def _tuple(value, nd, name):
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            value = tuple(value) * nd
        if len(value) != nd:
            raise ProgramValueError(f"expected {name} to be a single integer value or a list of {nd} values "
                                    f"to match the convolution dimensions, but got {name}={list(value)}")
        return tuple(int(v) for v in value)
    return (int(value),) * nd


def _conv(nd, input, weight, bias, stride, padding, dilation, groups):
    name = f"conv{nd}d"
    x, w = _data(input), _data(weight)
    groups = int(groups)
    if x.ndim not in (nd + 1, nd + 2):
        raise ShapeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, "
                         f"but got input of size: [{', '.join(map(str, x.shape))}]")
    if x.ndim == nd + 1:
        out = _conv(nd, TENSORS.unsqueeze(input, 0), weight, bias, stride, padding, dilation, groups)
        return TENSORS.squeeze(out, 0)
    stride, dilation = _tuple(stride, nd, "stride"), _tuple(dilation, nd, "dilation")
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise ProgramValueError("padding='same' is not supported for strided convolutions")
            total = [dilation[i] * (w.shape[2 + i] - 1) for i in range(nd)]
            if any(t % 2 for t in total):
                raise ProgramValueError("padding='same' with an even kernel is not supported")
            padding = tuple(t // 2 for t in total)
        else:
            raise ProgramValueError(f"Invalid padding string '{padding}'")
    padding = _tuple(padding, nd, "padding")
    if w.ndim != nd + 2:
        raise ShapeError(f"weight should have {nd + 2} dimensions for {name}, got {w.ndim}")
    if groups <= 0 or x.shape[1] != w.shape[1] * groups or w.shape[0] % groups:
        raise ShapeError(
            f"Given groups={groups}, weight of size [{', '.join(map(str, w.shape))}], expected input"
            f"[{', '.join(map(str, x.shape))}] to have {w.shape[1] * groups} channels, but got "
            f"{x.shape[1]} channels instead")
    padded = [x.shape[2 + i] + 2 * padding[i] for i in range(nd)]
    if any(padded[i] < dilation[i] * (w.shape[2 + i] - 1) + 1 for i in range(nd)):
        raise ShapeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                         f"Kernel size: ({' x '.join(map(str, w.shape[2:]))}). "
                         "Kernel size can't be greater than actual input size")
    return apply(convolution_op, (input, weight, bias),
                 {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups})


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """A 1-d cross-correlation over (N, C, L) (ConvolutionBackward0)."""
    return _conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """A 2-d cross-correlation over (N, C, H, W): im2col and matmul (ConvolutionBackward0)."""
    return _conv(2, input, weight, bias, stride, padding, dilation, groups)


# -- pooling ---------------------------------------------------------------------------------


def _pool_args(x, kernel_size, stride, padding, name):
    kernel = _tuple(kernel_size, 2, "kernel_size")
    stride = kernel if stride is None or stride == [] or stride == () else _tuple(stride, 2, "stride")
    padding = _tuple(padding, 2, "padding")
    if any(p * 2 > k for p, k in zip(padding, kernel)):
        raise ProgramValueError("pad should be at most half of effective kernel size, but got "
                                f"pad={padding[0]}, kernel_size={kernel[0]} and dilation=1")
    if np.ndim(x) not in (3, 4):
        raise ShapeError(f"{name}: Expected 3D or 4D (batch mode) tensor for input")
    return kernel, stride, padding


def _max_pool_index(x, kernel_size, stride, padding, dilation):
    """The flat index (into each (H, W) plane) of each window's maximum, as PyTorch's indices."""
    cols, out = _cols(np.asarray(x, dtype=np.float64), kernel_size, stride, padding, dilation, fill=-np.inf)
    j = np.argmax(np.where(np.isnan(cols), np.inf, cols), axis=2)
    ki, kj = np.unravel_index(j, kernel_size)
    rows = np.arange(out[0]).reshape(-1, 1) * stride[0] - padding[0] + ki * dilation[0]
    cols_ = np.arange(out[1]).reshape(1, -1) * stride[1] - padding[1] + kj * dilation[1]
    return rows * x.shape[3] + cols_


def _plane_gather(x, index):
    flat = x.reshape(x.shape[:2] + (-1,))
    return np.take_along_axis(flat, index.reshape(index.shape[:2] + (-1,)), 2).reshape(index.shape)


def _plane_scatter(grad, index, input_size):
    n, c = grad.shape[:2]
    out = _zeros((n, c, math.prod(input_size)), grad)
    i = index.reshape(n, c, -1)
    g = grad.reshape(n, c, -1)
    for a in range(n):
        for b in range(c):
            np.add.at(out[a, b], i[a, b], g[a, b])
    return out.reshape((n, c) + tuple(input_size))


def _max_pool2d(self, kernel_size, stride, padding, dilation):
    return _plane_gather(self, _max_pool_index(self, kernel_size, stride, padding, dilation))


def _max_pool2d_sympy(sp, x, kernel_size, stride, padding, dilation):
    x = np.asarray(x, dtype=object)
    cols, out = _cols(x, kernel_size, stride, padding, dilation, fill=-sp.oo)
    result = np.empty(cols.shape[:2] + out, dtype=object)
    for idx in np.ndindex(result.shape):
        result[idx] = sp.Max(*cols[idx[:2] + (slice(None),) + idx[2:]].tolist())
    return result


def _pool_params(kernel, stride=None, padding=(0, 0), dilation=(1, 1)):
    return {"kernel_size": kernel, "stride": stride or kernel, "padding": padding, "dilation": dilation}


def _distinct(rng, *shape):
    """Inputs with well-separated values (the max stays put under a finite difference)."""
    return rng.permutation(math.prod(shape)).reshape(shape) * 0.1 + rng.uniform(-0.01, 0.01, shape)


max_pool2d_op = defop(
    "max_pool2d", "MaxPool2DWithIndicesBackward0", _max_pool2d, public=False, cost=costs.pooling,
    rules=(lambda F, g, self, kernel_size, stride, padding, dilation:
           F.max_pool2d_backward(g, _max_pool_index(_data(self), kernel_size, stride, padding, dilation),
                                 _data(self).shape[2:]),),
    formulas=("grad scattered to each window's argmax",),
    sympy=_max_pool2d_sympy,
    domain=lambda rng: [((_distinct(rng, 1, 2, 4, 4),), _pool_params((2, 2))),
                        ((_distinct(rng, 2, 1, 5, 4),), _pool_params((3, 2), (2, 1), (1, 1))),
                        ((_distinct(rng, 1, 1, 5, 5),), _pool_params((2, 2), (1, 1), (0, 0), (2, 2)))],
)


def _max_pool2d_backward(grad, index, input_size):
    return _plane_scatter(grad, index, input_size)


def _scatter_sympy(sp, g, index, input_size):
    return _plane_scatter(np.asarray(g, dtype=object), index, input_size)


def _scatter_cases(rng):
    index = np.array([[[[0, 3], [5, 5]]]])
    return [((rng.uniform(-1, 1, (1, 1, 2, 2)),), {"index": index, "input_size": (2, 3)})]


max_pool2d_backward_op = defop(
    "max_pool2d_backward", "MaxPool2DWithIndicesBackwardBackward0", _max_pool2d_backward, public=False,
    cost=costs.pooling_backward,
    rules=(lambda F, g, index: F.max_pool2d_gather(g, index),),
    formulas=("grad' gathered at the indices",),
    sympy=_scatter_sympy, domain=_scatter_cases, tangent=LINEAR,
)

max_pool2d_gather_op = defop(
    "max_pool2d_gather", "GatherBackward0", _plane_gather, public=False,
    rules=(lambda F, g, self_shape, index: F.max_pool2d_backward(g, index, self_shape[2:]),),
    formulas=("grad scattered to the indices",),
    sympy=lambda sp, x, index: _plane_gather(np.asarray(x, dtype=object), index),
    domain=lambda rng: [((rng.uniform(-1, 1, (1, 1, 2, 3)),), {"index": np.array([[[[0, 3], [5, 5]]]])})], tangent=LINEAR,
)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each window (MaxPool2DWithIndicesBackward0); ceil_mode is not supported."""
    if ceil_mode:
        raise ProgramValueError("max_pool2d(): ceil_mode=True is not supported")
    kernel, stride, padding = _pool_args(_data(input), kernel_size, stride, padding, "max_pool2d")
    dilation = _tuple(dilation, 2, "dilation")
    if np.ndim(_data(input)) == 3:
        return TENSORS.squeeze(max_pool2d(TENSORS.unsqueeze(input, 0), kernel, stride, padding, dilation), 0)
    params = {"kernel_size": kernel, "stride": stride, "padding": padding, "dilation": dilation}
    out = apply(max_pool2d_op, (input,), params)
    if return_indices:
        return out, Tensor._make(_max_pool_index(_data(input), **params).astype(np.int64))
    return out


def _avg_divisor(size, kernel, stride, padding, count_include_pad, divisor_override):
    if divisor_override:
        return float(divisor_override)
    if count_include_pad:
        return float(math.prod(kernel))
    ones = np.ones((1, 1) + tuple(size))
    cols, out = _cols(ones, kernel, stride, padding, (1, 1))
    return cols.sum(axis=2)[0, 0]


def _avg_pool2d(self, kernel_size, stride, padding, count_include_pad=True, divisor_override=None):
    total = _cols(self, kernel_size, stride, padding, (1, 1))[0].sum(axis=2)   # before the next _cols
    divisor = _avg_divisor(self.shape[2:], kernel_size, stride, padding, count_include_pad, divisor_override)
    return total / (_like(divisor, self) if isinstance(divisor, np.ndarray) else divisor)


def _avg_pool2d_backward(grad, input_size, kernel_size, stride, padding, count_include_pad=True,
                         divisor_override=None):
    divisor = _avg_divisor(input_size, kernel_size, stride, padding, count_include_pad, divisor_override)
    g = grad / (_like(divisor, grad) if isinstance(divisor, np.ndarray) else divisor)
    cols = np.broadcast_to(np.expand_dims(g, 2), g.shape[:2] + (math.prod(kernel_size),) + g.shape[2:])
    return _uncols(np.ascontiguousarray(cols), tuple(input_size), kernel_size, stride, padding, (1, 1))


_AVG = dict(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))


def _avg_cases(rng):
    return [((rng.uniform(-1, 1, (1, 2, 4, 4)),), dict(_AVG)),
            ((rng.uniform(-1, 1, (2, 1, 5, 4)),),
             {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 1), "count_include_pad": False})]


avg_pool2d_op = defop(
    "avg_pool2d", "AvgPool2DBackward0", _avg_pool2d, public=False, cost=costs.pooling,
    rules=(lambda F, g, self_shape, kernel_size, stride, padding, count_include_pad, divisor_override:
           F.avg_pool2d_backward(g, self_shape[2:], kernel_size, stride, padding, count_include_pad,
                                 divisor_override),),
    formulas=("grad / divisor spread over each window",),
    sympy=_symbolic(_avg_pool2d), domain=_avg_cases, tangent=LINEAR,
)

avg_pool2d_backward_op = defop(
    "avg_pool2d_backward", "AvgPool2DBackwardBackward0", _avg_pool2d_backward, public=False,
    cost=costs.pooling_backward,
    rules=(lambda F, g, kernel_size, stride, padding, count_include_pad, divisor_override:
           _run(F, avg_pool2d_op, g, kernel_size=kernel_size, stride=stride, padding=padding,
                count_include_pad=count_include_pad, divisor_override=divisor_override),),
    formulas=("avg_pool2d(grad')",),
    sympy=_symbolic(_avg_pool2d_backward),
    domain=lambda rng: [((rng.uniform(-1, 1, _avg_pool2d(x, **p).shape),), {"input_size": x.shape[2:], **p})
                        for (x,), p in _avg_cases(rng)], tangent=LINEAR,
)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each window (AvgPool2DBackward0); ceil_mode is not supported."""
    if ceil_mode:
        raise ProgramValueError("avg_pool2d(): ceil_mode=True is not supported")
    kernel, stride, padding = _pool_args(_data(input), kernel_size, stride, padding, "avg_pool2d")
    if np.ndim(_data(input)) == 3:
        return TENSORS.squeeze(avg_pool2d(TENSORS.unsqueeze(input, 0), kernel, stride, padding, False,
                                          count_include_pad, divisor_override), 0)
    if divisor_override is not None and int(divisor_override) == 0:
        raise ProgramValueError("divisor must be not zero")
    return apply(avg_pool2d_op, (input,), {"kernel_size": kernel, "stride": stride, "padding": padding,
                                           "count_include_pad": bool(count_include_pad),
                                           "divisor_override": divisor_override})


def _adaptive_matrix(size, out):
    """(out, size): row i averages PyTorch's window [floor(i size / out), ceil((i + 1) size / out))."""
    m = np.zeros((out, size))
    for i in range(out):
        start, end = (i * size) // out, -(-((i + 1) * size) // out)
        m[i, start:end] = 1.0 / (end - start)
    return m


def _like(m, x):
    """A float64 constant in x's float dtype (a float32 input stays float32)."""
    return m.astype(x.dtype) if x.dtype.kind == "f" else m


def _adaptive_avg_pool2d(self, output_size):
    a = _like(_adaptive_matrix(self.shape[2], output_size[0]), self)
    b = _like(_adaptive_matrix(self.shape[3], output_size[1]), self)
    return np.matmul(np.matmul(a, self), b.T)


def _adaptive_avg_pool2d_backward(grad, input_size):
    a = _like(_adaptive_matrix(input_size[0], grad.shape[2]), grad)
    b = _like(_adaptive_matrix(input_size[1], grad.shape[3]), grad)
    return np.matmul(np.matmul(a.T, grad), b)


adaptive_avg_pool2d_op = defop(
    "adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", _adaptive_avg_pool2d, public=False,
    cost=costs.adaptive_pooling,
    rules=(lambda F, g, self_shape: F.adaptive_avg_pool2d_backward(g, self_shape[2:]),),
    formulas=("A_h^T grad A_w (each window's share of grad)",),
    sympy=_symbolic(_adaptive_avg_pool2d),
    domain=lambda rng: [((rng.uniform(-1, 1, (1, 2, 5, 4)),), {"output_size": (2, 3)}),
                        ((rng.uniform(-1, 1, (2, 1, 4, 4)),), {"output_size": (1, 1)})], tangent=LINEAR,
)

adaptive_avg_pool2d_backward_op = defop(
    "adaptive_avg_pool2d_backward", "AdaptiveAvgPool2DBackwardBackward0", _adaptive_avg_pool2d_backward,
    public=False, cost=costs.adaptive_pooling_backward,
    rules=(lambda F, g, self_shape: _run(F, adaptive_avg_pool2d_op, g, output_size=self_shape[2:]),),
    formulas=("adaptive_avg_pool2d(grad')",),
    sympy=_symbolic(_adaptive_avg_pool2d_backward),
    domain=lambda rng: [((rng.uniform(-1, 1, (1, 2, 2, 3)),), {"input_size": (5, 4)})], tangent=LINEAR,
)


def adaptive_avg_pool2d(input, output_size):
    """The mean over PyTorch's adaptive windows (AdaptiveAvgPool2DBackward0)."""
    x = _data(input)
    if x.ndim == 3:
        return TENSORS.squeeze(adaptive_avg_pool2d(TENSORS.unsqueeze(input, 0), output_size), 0)
    if x.ndim != 4:
        raise ShapeError("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                         f"[{', '.join(map(str, x.shape))}]")
    size = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * 2
    size = tuple(x.shape[2 + i] if s is None else int(s) for i, s in enumerate(size))
    return apply(adaptive_avg_pool2d_op, (input,), {"output_size": size})


# -- embedding -----------------------------------------------------------------------------


def _embedding(weight, indices, padding_idx=None):
    return weight[indices]


def _embedding_backward(grad, indices, num_weights, padding_idx):
    dim = grad.shape[-1]
    out = _zeros((num_weights, dim), grad)
    flat = indices.reshape(-1)
    g = grad.reshape(-1, dim)
    if padding_idx is not None:
        keep = flat != padding_idx
        flat, g = flat[keep], g[keep]
    np.add.at(out, flat, g)
    return out


def _embedding_mask(indices, padding_idx):
    return (indices != padding_idx).astype(np.float64)[..., None]


def _embedding_cases(rng):
    return [((rng.uniform(-1, 1, (4, 3)),), {"indices": np.array([[0, 2], [2, 3]])}),
            ((rng.uniform(-1, 1, (4, 2)),), {"indices": np.array([1, 0, 1])})]


embedding_op = defop(
    "embedding", "EmbeddingBackward0", _embedding, inputs=("weight",), public=False,
    rules=(lambda F, g, weight_shape, indices, padding_idx:
           F.embedding_backward(g, indices, weight_shape[0], padding_idx),),
    formulas=("grad rows added into the rows of the indices (none into padding_idx)",),
    sympy=lambda sp, w, indices, padding_idx=None: np.asarray(w, dtype=object)[indices],
    domain=_embedding_cases, tangent=LINEAR,   # padding_idx drops a row's gradient on purpose: tests/ops/test_conv.py
)


def _embedding_backward_rule(F, g, indices, padding_idx):
    out = _run(F, embedding_op, g, indices=indices, padding_idx=None)
    if padding_idx is None:
        return out
    return out * _like(_embedding_mask(indices, padding_idx), np.asarray(_data(g)))


embedding_backward_op = defop(
    "embedding_backward", "EmbeddingBackwardBackward0", _embedding_backward, public=False,
    rules=(_embedding_backward_rule,),
    formulas=("grad' rows gathered at the indices (0 at padding_idx)",),
    sympy=lambda sp, g, indices, num_weights, padding_idx: _embedding_backward(
        np.asarray(g, dtype=object), indices, num_weights, padding_idx),
    domain=lambda rng: [((rng.uniform(-1, 1, (3, 2)),), {"indices": np.array([0, 2, 0]), "num_weights": 4,
                                                        "padding_idx": None}),
                        ((rng.uniform(-1, 1, (3, 2)),), {"indices": np.array([0, 2, 0]), "num_weights": 4,
                                                        "padding_idx": 2})], tangent=LINEAR,
)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of `weight` at the indices `input` (EmbeddingBackward0)."""
    index = np.asarray(_data(input))
    if index.dtype.kind == "f":
        if not np.all(np.isfinite(index)) or np.any(index != np.round(index)):
            raise ProgramValueError("Expected tensor for argument #1 'indices' to have one of the following "
                                    "scalar types: Long, Int")
        index = index.astype(np.int64)
    elif index.dtype.kind not in "iu":
        raise ProgramValueError("Expected tensor for argument #1 'indices' to have one of the following "
                                "scalar types: Long, Int")
    w = _data(weight)
    if w.ndim != 2:
        raise ShapeError("'weight' must be 2-D")
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise ProgramValueError("embedding(): max_norm, scale_grad_by_freq and sparse are not supported")
    rows = w.shape[0]
    if index.size and (index.min() < -rows or index.max() >= rows):
        raise ProgramValueError("index out of range in self")
    index = np.where(index < 0, index + rows, index)
    if padding_idx is not None:
        padding_idx = int(padding_idx)
        if not -rows <= padding_idx < rows:
            raise ProgramValueError("Padding_idx must be within num_embeddings")
        padding_idx %= rows
    return apply(embedding_op, (weight,), {"indices": index, "padding_idx": padding_idx})


# -- layer_norm, batch_norm ----------------------------------------------------------------


def _normalize(x, axes, eps):
    """(x - mean) * rstd over `axes`, and rstd, PyTorch's way: biased variance, rstd = 1 / sqrt(var + eps)."""
    n = max(math.prod(x.shape[a] for a in axes), 1)   # (nothing to normalize: empty arrays)
    mean = x.sum(axis=axes, keepdims=True) / n
    d = x - mean
    var = (d * d).sum(axis=axes, keepdims=True) / n
    rstd = (var + eps) ** -0.5 if x.dtype == object else 1.0 / np.sqrt(var + eps)
    return d * rstd, rstd


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def _norm_input_grad(F, g, self, weight, axes, eps, param_shape):
    """d(normalised self) / d self applied to g * weight: rstd (gw - mean(gw) - xhat mean(gw xhat))."""
    n = max(math.prod(_data(self).shape[a] for a in axes), 1)   # (an empty batch: empty arrays)
    d = self - F.sum(self, axes, True) / n
    rstd = F.rsqrt(F.sum(d * d, axes, True) / n + eps)
    xhat = d * rstd
    gw = g if weight is None else g * F.reshape(weight, param_shape)
    return rstd * (gw - F.sum(gw, axes, True) / n - xhat * (F.sum(gw * xhat, axes, True) / n))


def _xhat(F, self, axes, eps):
    n = max(math.prod(_data(self).shape[a] for a in axes), 1)
    d = self - F.sum(self, axes, True) / n
    return d * F.rsqrt(F.sum(d * d, axes, True) / n + eps)


def _norm_weight_grad(F, g, self, weight_shape, axes, eps, reduce_axes):
    return F.reshape(F.sum(g * _xhat(F, self, axes, eps), reduce_axes, False), weight_shape)


def _layer_axes(ndim, normalized):
    return tuple(range(ndim - normalized, ndim))


def _layer_norm(self, weight, bias, normalized, eps):
    if self.dtype == np.float32 and self.size and all(
            p is None or p.dtype == np.float32 for p in (weight, bias)):
        # PyTorch's kernel, step for step: its digits (ops/torch_norms.py)
        size = math.prod(self.shape[self.ndim - normalized:])
        rows = self.reshape(-1, size)
        flat = [None if p is None else p.reshape(-1) for p in (weight, bias)]
        return torch_norms.layer_norm(rows, *flat, eps).reshape(self.shape)
    axes = _layer_axes(self.ndim, normalized)
    y, _ = _normalize(self, axes, eps)
    return _affine(y, weight, bias, self.shape[self.ndim - normalized:])


def _layer_rules():
    def input_rule(F, g, self, weight, normalized, eps):
        nd = len(_data(self).shape)
        return _norm_input_grad(F, g, self, weight, _layer_axes(nd, normalized), eps,
                                _data(self).shape[nd - normalized:])

    def weight_rule(F, g, self, weight_shape, normalized, eps):
        nd = len(_data(self).shape)
        return _norm_weight_grad(F, g, self, weight_shape, _layer_axes(nd, normalized), eps,
                                 tuple(range(nd - normalized)))

    def bias_rule(F, g, self_shape, normalized):
        return F.sum(g, tuple(range(len(self_shape) - normalized)), False)
    return input_rule, weight_rule, bias_rule


def _layer_cases(rng):
    u = lambda *s: rng.uniform(-1, 1, s)  # noqa: E731
    return [((u(2, 3), u(3), u(3)), {"normalized": 1, "eps": 1e-5}),
            ((u(2, 2, 3), u(2, 3), None), {"normalized": 2, "eps": 1e-5}),
            ((u(3, 4), None, None), {"normalized": 1, "eps": 0.1})]


layer_norm_op = defop(
    "layer_norm", "NativeLayerNormBackward0", _layer_norm, inputs=("self", "weight", "bias"), public=False,
    cost=costs.layer_norm,
    rules=_layer_rules(),
    formulas=("rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = grad * weight",
              "(grad * xhat).sum(batch dims)", "grad.sum(batch dims)"),
    sympy=_symbolic(_layer_norm), domain=_layer_cases,
)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """(input - mean) / sqrt(var + eps) * weight + bias over the last dims (NativeLayerNormBackward0)."""
    shape = tuple(normalized_shape) if isinstance(normalized_shape, (list, tuple)) else (int(normalized_shape),)
    x = _data(input)
    if x.shape[x.ndim - len(shape):] != shape or len(shape) > x.ndim:
        raise ShapeError(
            f"Given normalized_shape=[{', '.join(map(str, shape))}], expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size[{', '.join(map(str, x.shape))}]")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(_data(p).shape) != shape:
            raise ShapeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                             f"[{', '.join(map(str, _data(p).shape))}] and normalized_shape = "
                             f"[{', '.join(map(str, shape))}]")
    return apply(layer_norm_op, (input, weight, bias), {"normalized": len(shape), "eps": float(eps)})


def _channel_shape(ndim, c):
    return (1, c) + (1,) * (ndim - 2)


def _bn_axes(ndim):
    return (0,) + tuple(range(2, ndim))


def _kernel_layout(x, *params):
    """Whether ATen's float32 batch_norm kernel for a contiguous input is what PyTorch would
    run (ops/torch_norms.py emulates it): float32 throughout, C-contiguous, not empty."""
    return x.dtype == np.float32 and x.size and x.flags.c_contiguous and all(
        p is None or p.dtype == np.float32 for p in params)


def _batch_norm(self, weight, bias, mean, var, eps):
    """Training (mean None): batch statistics; eval: the given running statistics, as constants."""
    if not self.size:   # an empty batch (or no channel): an empty result
        return self.copy()
    shape = _channel_shape(self.ndim, self.shape[1])
    if _kernel_layout(self, weight, bias, mean, var):   # PyTorch's kernel, step for step
        return torch_norms.batch_norm(self, weight, bias, mean, var, eps)
    if mean is None:
        y, _ = _normalize(self, _bn_axes(self.ndim), eps)
    else:
        rstd = 1.0 / np.sqrt(var + eps)
        y = (self - mean.reshape(shape)) * rstd.reshape(shape)
    return _affine(y, weight, bias, (self.shape[1],) + (1,) * (self.ndim - 2))


def _bn_input_rule(F, g, self, weight, mean, var, eps):
    nd = len(_data(self).shape)
    shape = _channel_shape(nd, _data(self).shape[1])
    if mean is None:
        return _norm_input_grad(F, g, self, weight, _bn_axes(nd), eps, shape)
    scale = (1.0 / np.sqrt(var + eps)).reshape(shape)
    return (g if weight is None else g * F.reshape(weight, shape)) * scale


def _bn_weight_rule(F, g, self, weight_shape, mean, var, eps):
    nd = len(_data(self).shape)
    if mean is None:
        return _norm_weight_grad(F, g, self, weight_shape, _bn_axes(nd), eps, _bn_axes(nd))
    shape = _channel_shape(nd, _data(self).shape[1])
    xhat = (self - mean.reshape(shape)) * (1.0 / np.sqrt(var + eps)).reshape(shape)
    return F.sum(g * xhat, _bn_axes(nd), False)


def _batch_norm_sympy(sp, x, weight, bias, mean, var, eps):
    x = np.asarray(x, dtype=object)
    shape = _channel_shape(x.ndim, x.shape[1])
    if mean is None:
        y, _ = _normalize(x, _bn_axes(x.ndim), eps)
    else:
        y = (x - mean.reshape(shape)) * (1.0 / np.sqrt(var + eps)).reshape(shape)
    w, b = _objects(weight, bias)
    return _affine(y, w, b, (x.shape[1],) + (1,) * (x.ndim - 2))


def _bn_cases(rng):
    u = lambda *s: rng.uniform(-1, 1, s)  # noqa: E731
    return [((u(3, 2), u(2), u(2)), {"mean": None, "var": None, "eps": 1e-5}),
            ((u(2, 2, 3), None, None), {"mean": None, "var": None, "eps": 1e-5}),
            ((u(3, 2), u(2), u(2)), {"mean": u(2), "var": rng.uniform(0.5, 2, 2), "eps": 1e-5})]


batch_norm_op = defop(
    "batch_norm", "NativeBatchNormBackward0", _batch_norm, inputs=("self", "weight", "bias"), public=False,
    cost=costs.batch_norm,
    rules=(_bn_input_rule, _bn_weight_rule,
           lambda F, g, self_shape: F.sum(g, _bn_axes(len(self_shape)), False)),
    formulas=("training: rstd * (gw - mean(gw) - xhat * mean(gw * xhat)); eval: grad * weight * rstd",
              "(grad * xhat).sum(all dims but 1)", "grad.sum(all dims but 1)"),
    sympy=_batch_norm_sympy, domain=_bn_cases,
)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    """Normalise each channel (dim 1) by the batch's statistics (training) or the running ones (eval).

    In training the running statistics are updated in place, as PyTorch does:
    (1 - momentum) * running + momentum * batch, with the unbiased batch variance.
    """
    x = _data(input)
    if x.ndim < 2:
        raise ShapeError(f"Expected 2D or more input (got {x.ndim}D input)")
    c = x.shape[1]
    for name, p in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if p is not None and _data(p).size != c:
            raise ShapeError(f"{name} should contain {c} elements not {_data(p).size}")
    if training:
        n = x.shape[0] * math.prod(x.shape[2:])   # values per channel (also with no channel)
        if n == 1:   # (none at all is an empty result, as in PyTorch)
            raise ProgramValueError(f"Expected more than 1 value per channel when training, got input size "
                                    f"torch.Size([{', '.join(map(str, x.shape))}])")
        out = apply(batch_norm_op, (input, weight, bias), {"mean": None, "var": None, "eps": float(eps)})
        m = float(momentum) if momentum is not None else 0.1
        stats = [s if isinstance(s, Tensor) and x.size else None for s in (running_mean, running_var)]
        if all(stat is None for stat in stats):   # none, or an empty batch: nothing to update
            return out
        arrays = [None if s is None else s._data for s in stats]
        if _kernel_layout(x, *arrays):
            budget.charge_elements(costs.batch_norm(x))   # (the batch's statistics once more)
            torch_norms.update_running(x, *arrays, m)
        else:
            axes = _bn_axes(x.ndim)
            mean = x.mean(axis=axes)
            var = ((x - mean.reshape(_channel_shape(x.ndim, c))) ** 2).sum(axis=axes) / (n - 1)
            for stat, batch in zip(stats, (mean, var)):
                if stat is not None:
                    stat._data[...] = (1.0 - m) * stat._data + m * batch
        for stat in stats:
            if stat is not None:
                bump_version(stat)
        return out
    if running_mean is None or running_var is None:
        raise ProgramValueError("running_mean and running_var must be defined in evaluation mode")
    return apply(batch_norm_op, (input, weight, bias),
                 {"mean": np.array(_data(running_mean), dtype=x.dtype),
                  "var": np.array(_data(running_var), dtype=x.dtype), "eps": float(eps)})


for _name, _function in (("conv1d", conv1d), ("conv2d", conv2d), ("max_pool2d", max_pool2d),
                         ("avg_pool2d", avg_pool2d), ("adaptive_avg_pool2d", adaptive_avg_pool2d),
                         ("embedding", embedding), ("layer_norm", layer_norm), ("batch_norm", batch_norm)):
    export(_name, _function, method=False, nn=True)
