"""The ops behind issue 27's layers: transposed convolution, resampling (interpolate and the
reflection/replication pads), pixel shuffle, PReLU, scaled dot-product attention, the
in-place transpose ATen's RNNs end with, and the 1-d pools and channel dropout composed
from existing ops.

Every op has PyTorch's node name. The linear ones come with their adjoint as another op
(conv_transpose <-> convolution, resample <-> resample by the transposed matrices,
pixel_shuffle <-> pixel_unshuffle), so gradients of any order stay in the table. A
resampling is separable: one matrix per spatial dimension (nearest, linear, a pad's
index map are all such matrices), applied with tensordot, which runs on SymPy object
arrays too (each op's SymPy counterpart is its forward).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ProgramError, ProgramValueError, ShapeError
from ..warn import warn
from .._tensor import Tensor
from .conv import _bias_grad, _conv_input_grad, _data, _objects, _spatial, _symbolic, _tuple
from . import costs
from .registry import TENSORS, apply, defop, export

# -- the in-place transpose of RNN and GRU (TransposeBackward1) --------------------------------


def _swap(self, dim0, dim1):
    return np.swapaxes(self, dim0, dim1)


transpose_result_op = defop(
    "transpose_result", "TransposeBackward1", _swap, public=False,
    rules=(lambda F, g, dim0, dim1: F.transpose(g, dim0, dim1),),
    formulas=("grad.transpose(dim0, dim1)",),
    sympy=_symbolic(_swap),
    domain=lambda rng: [((rng.uniform(-2, 2, (2, 3, 2)),), {"dim0": 0, "dim1": 1})],
)


def transpose_result(x, dim0, dim1):
    """x.transpose_(dim0, dim1) on a result no program holds: the node PyTorch's in-place one makes."""
    return apply(transpose_result_op, (x,), {"dim0": dim0, "dim1": dim1})


# -- transposed convolution (ConvolutionBackward0) ---------------------------------------------


def _conv_transpose(self, weight, bias, stride, padding, output_padding, dilation, groups):
    nd = len(stride)
    size = tuple((self.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (weight.shape[2 + i] - 1)
                 + output_padding[i] + 1 for i in range(nd))
    y = _conv_input_grad(self, weight, size, stride, padding, dilation, groups)
    if bias is not None:
        y = y + bias.reshape((1, -1) + (1,) * nd)
    return y


def _conv_transpose_cases(rng):
    u = lambda *shape: rng.uniform(-1, 1, shape)  # noqa: E731
    return [((u(2, 3, 4), u(3, 2, 2), u(2)),
             {"stride": (2,), "padding": (0,), "output_padding": (1,), "dilation": (1,), "groups": 1}),
            ((u(1, 2, 3, 3), u(2, 2, 3, 2), u(2)),
             {"stride": (2, 1), "padding": (1, 0), "output_padding": (0, 0), "dilation": (1, 1), "groups": 1}),
            ((u(1, 4, 3, 3), u(4, 1, 2, 2), None),
             {"stride": (1, 2), "padding": (0, 1), "output_padding": (0, 1), "dilation": (2, 1), "groups": 2})]


conv_transpose_op = defop(
    "conv_transpose", "ConvolutionBackward0", _conv_transpose, inputs=("self", "weight", "bias"), public=False,
    rules=(lambda F, g, weight, stride, padding, output_padding, dilation, groups:
           F.convolution(g, weight, None, stride, padding, dilation, groups),
           lambda F, g, self, weight_shape, stride, padding, output_padding, dilation, groups:
           F.conv_weight_grad(g, self, _spatial(weight_shape), stride, padding, dilation, groups),
           lambda F, g, self_shape, stride, padding, output_padding, dilation, groups: _bias_grad(F, g, self_shape)),
    formulas=("conv(grad, weight)", "conv_weight_grad(grad, self) (the correlation of grad and self)",
              "grad.sum(batch and spatial dims)"),
    sympy=_symbolic(_conv_transpose), domain=_conv_transpose_cases,
)


def _conv_transpose_nd(nd, input, weight, bias, stride, padding, output_padding, groups, dilation):
    name = f"conv_transpose{nd}d"
    x, w = _data(input), _data(weight)
    if x.ndim not in (nd + 1, nd + 2):
        raise ShapeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, "
                         f"but got input of size: [{', '.join(map(str, x.shape))}]")
    if x.ndim == nd + 1:
        out = _conv_transpose_nd(nd, TENSORS.unsqueeze(input, 0), weight, bias, stride, padding, output_padding,
                                 groups, dilation)
        return TENSORS.squeeze(out, 0)
    stride, padding = _tuple(stride, nd, "stride"), _tuple(padding, nd, "padding")
    output_padding, dilation = _tuple(output_padding, nd, "output_padding"), _tuple(dilation, nd, "dilation")
    groups = int(groups)
    if w.ndim != nd + 2:
        raise ShapeError(f"weight should have {nd + 2} dimensions for {name}, got {w.ndim}")
    if groups <= 0 or x.shape[1] != w.shape[0] or w.shape[0] % groups:
        raise ShapeError(f"Given transposed=1, weight of size [{', '.join(map(str, w.shape))}], expected input"
                         f"[{', '.join(map(str, x.shape))}] to have {w.shape[0]} channels, but got "
                         f"{x.shape[1]} channels instead")
    if any(op >= max(s, d) for op, s, d in zip(output_padding, stride, dilation)):
        raise ProgramValueError("output padding must be smaller than either stride or dilation")
    return apply(conv_transpose_op, (input, weight, bias),
                 {"stride": stride, "padding": padding, "output_padding": output_padding, "dilation": dilation,
                  "groups": groups})


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv1d in its input, over (N, C_in, L) (ConvolutionBackward0)."""
    return _conv_transpose_nd(1, input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv2d in its input, over (N, C_in, H, W) (ConvolutionBackward0)."""
    return _conv_transpose_nd(2, input, weight, bias, stride, padding, output_padding, groups, dilation)


# -- separable resampling: interpolate and the pads ------------------------------------------


def _resample(self, matrices):
    """Apply one matrix (out_i x in_i) along each trailing dimension of `self`."""
    x = self
    lead = np.ndim(self) - len(matrices)
    for i, m in enumerate(matrices):
        x = np.moveaxis(np.tensordot(x, m, axes=([lead + i], [1])), -1, lead + i)
    return x


def _transposed(matrices):
    return tuple(np.ascontiguousarray(m.T) for m in matrices)


def _resample_rule(F, g, matrices):
    return F.resample(g, _transposed(matrices))


def _resample_cases(dims):
    def make(rng):
        cases = []
        for out in ((3,), (5,)) if dims == 1 else ((3, 4), (2, 5)):
            shape_in = (2, 2) + tuple(int(rng.integers(2, 4)) for _ in range(dims))
            mats = tuple(rng.uniform(0, 1, (o, s)) for o, s in zip(out, shape_in[2:]))
            cases.append(((rng.uniform(-1, 1, shape_in),), {"matrices": mats}))
        return cases
    return make


def _resample_op(name, node, dims, doc):
    return defop(
        name, node, _resample, public=False, rules=(_resample_rule,), cost=costs.resample,
        formulas=("grad resampled by the transposed matrices",),
        sympy=_symbolic(_resample), domain=_resample_cases(dims), doc=doc)


resample_op = _resample_op("resample", "ResampleBackward0", 2, "any separable resampling")
RESAMPLE_OPS = {
    ("nearest", 1): _resample_op("upsample_nearest1d", "UpsampleNearest1DBackward0", 1, "F.interpolate nearest"),
    ("nearest", 2): _resample_op("upsample_nearest2d", "UpsampleNearest2DBackward0", 2, "F.interpolate nearest"),
    ("linear", 1): _resample_op("upsample_linear1d", "UpsampleLinear1DBackward0", 1, "F.interpolate linear"),
    ("bilinear", 2): _resample_op("upsample_bilinear2d", "UpsampleBilinear2DBackward0", 2,
                                  "F.interpolate bilinear"),
    ("reflect", 1): _resample_op("reflection_pad1d", "ReflectionPad1DBackward0", 1, "F.pad reflect"),
    ("reflect", 2): _resample_op("reflection_pad2d", "ReflectionPad2DBackward0", 2, "F.pad reflect"),
    ("replicate", 1): _resample_op("replication_pad1d", "ReplicationPad1DBackward0", 1, "F.pad replicate"),
    ("replicate", 2): _resample_op("replication_pad2d", "ReplicationPad2DBackward0", 2, "F.pad replicate"),
}


def _one_hot_rows(index, size: int) -> np.ndarray:
    m = np.zeros((len(index), size))
    m[np.arange(len(index)), index] = 1.0
    return m


def _nearest_matrix(size_in: int, size_out: int, scale) -> np.ndarray:
    ratio = 1.0 / scale if scale is not None else size_in / size_out
    index = np.minimum(np.floor(np.arange(size_out) * np.float32(ratio)).astype(int), size_in - 1)
    return _one_hot_rows(index, size_in)


def _linear_matrix(size_in: int, size_out: int, scale, align_corners: bool) -> np.ndarray:
    if align_corners:
        ratio = (size_in - 1) / (size_out - 1) if size_out > 1 else 0.0
        src = np.arange(size_out) * ratio
    else:
        ratio = 1.0 / scale if scale is not None else size_in / size_out
        src = np.maximum((np.arange(size_out) + 0.5) * ratio - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(int), size_in - 1)
    i1 = np.minimum(i0 + 1, size_in - 1)
    lam = src - i0
    m = np.zeros((size_out, size_in))
    np.add.at(m, (np.arange(size_out), i0), 1.0 - lam)
    np.add.at(m, (np.arange(size_out), i1), lam)
    return m


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """F.interpolate for 'nearest', 'linear' (3-d input) and 'bilinear' (4-d input)."""
    x = _data(input)
    dims = x.ndim - 2
    if dims not in (1, 2):
        raise ProgramValueError(f"interpolate in gradcli takes 3-d or 4-d input, got {x.ndim}-d")
    if (size is None) == (scale_factor is None):
        raise ProgramValueError("either size or scale_factor should be defined" if size is None
                                else "only one of size or scale_factor should be defined")
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ProgramValueError("align_corners option can only be set with the interpolating modes: "
                                "linear | bilinear | bicubic | trilinear")
    if size is not None:
        sizes = tuple(int(s) for s in size) if isinstance(size, (tuple, list)) else (int(size),) * dims
        scales = (None,) * dims
    else:
        scales = tuple(float(s) for s in scale_factor) if isinstance(scale_factor, (tuple, list)) \
            else (float(scale_factor),) * dims
        sizes = tuple(int(math.floor(x.shape[2 + i] * scales[i])) for i in range(dims))
        if recompute_scale_factor:
            scales = (None,) * dims
    if len(sizes) != dims:
        raise ProgramValueError(f"Input and output must have the same number of spatial dimensions, but got "
                                f"input with spatial dimensions of {list(x.shape[2:])} and output size of "
                                f"{list(sizes)}.")
    wanted = {1: "linear", 2: "bilinear"}[dims]
    if mode == "nearest":
        mats = tuple(_nearest_matrix(x.shape[2 + i], sizes[i], scales[i]) for i in range(dims))
    elif mode == wanted:
        corners = bool(align_corners)
        mats = tuple(_linear_matrix(x.shape[2 + i], sizes[i], scales[i], corners) for i in range(dims))
    else:
        raise ProgramValueError(f"interpolate mode '{mode}' for {x.ndim}-d input is not supported in gradcli "
                                "(nearest; linear for 3-d, bilinear for 4-d)")
    return apply(RESAMPLE_OPS[(mode, dims)], (input,), {"matrices": _like(mats, x)})


def _like(mats, x):
    dtype = x.dtype if x.dtype.kind == "f" else np.float64
    return tuple(m.astype(dtype) for m in mats)


def _pad_matrix(size: int, before: int, after: int, mode: str) -> np.ndarray:
    j = np.arange(-before, size + after)
    if mode == "reflect":
        if before >= size or after >= size:
            raise ProgramValueError(f"Argument #4: Padding size should be less than the corresponding input "
                                    f"dimension, but got: padding ({before}, {after}) at dimension of input "
                                    f"size {size}")
        index = np.abs(j)
        index = np.where(index >= size, 2 * (size - 1) - index, index)
    else:
        index = np.clip(j, 0, size - 1)
    return _one_hot_rows(index, size)


def pad(input, pad, mode="constant", value=None):
    """F.pad: 'constant' (composed), 'reflect' and 'replicate' on the last one or two dims."""
    x = _data(input)
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise ProgramValueError("Padding length must be divisible by 2")
    n = len(pad) // 2
    if n > x.ndim:
        raise ProgramValueError("Padding length too large")
    if mode == "constant":
        return _constant_pad(input, pad, 0.0 if value is None else float(value))
    if mode not in ("reflect", "replicate") or n not in (1, 2) or x.ndim - n not in (1, 2):
        raise ProgramValueError(f"F.pad mode '{mode}' with {len(pad)} values on a {x.ndim}-d input is not "
                                "supported in gradcli")
    sizes = x.shape[x.ndim - n:]
    pairs = [(pad[2 * (n - 1 - i)], pad[2 * (n - 1 - i) + 1]) for i in range(n)]
    mats = tuple(_pad_matrix(sizes[i], *pairs[i], mode) for i in range(n))
    unbatched = x.ndim - n == 1
    if unbatched:
        input = TENSORS.unsqueeze(input, 0)
    out = apply(RESAMPLE_OPS[(mode, n)], (input,), {"matrices": _like(mats, x)})
    return TENSORS.squeeze(out, 0) if unbatched else out


def _constant_pad_nd(self, pad, value):
    n = len(pad) // 2
    widths = [(0, 0)] * (np.ndim(self) - n) + [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(n))]
    if self.dtype == object:
        out = np.full(tuple(s + a + b for s, (a, b) in zip(self.shape, widths)), value, dtype=object)
        out[tuple(slice(a, a + s) for s, (a, _) in zip(self.shape, widths))] = self
        return out
    return np.pad(self, widths, constant_values=value)


def _crop(grad, pad):
    n = len(pad) // 2
    lead = np.ndim(grad) - n
    index = (slice(None),) * lead + tuple(
        slice(pad[2 * i], grad.shape[lead + (n - 1 - i)] - pad[2 * i + 1]) for i in reversed(range(n)))
    return grad[index]


constant_pad_op = defop(
    "constant_pad_nd", "ConstantPadNdBackward0", _constant_pad_nd, public=False, cost=costs.constant_pad,
    rules=(lambda F, g, pad: F.constant_pad_crop(g, pad),),
    formulas=("grad with the padding cut off",), sympy=_symbolic(_constant_pad_nd),
    domain=lambda rng: [((rng.uniform(-1, 1, (2, 3)),), {"pad": (1, 2), "value": 0.5}),
                        ((rng.uniform(-1, 1, (1, 2, 3)),), {"pad": (0, 1, 2, 1), "value": 0.0})],
)
constant_pad_crop_op = defop(
    "constant_pad_crop", "ConstantPadNdBackwardBackward0", _crop, public=False,
    rules=(lambda F, g, pad: F.constant_pad_nd(g, pad, 0.0),),
    formulas=("grad' padded with zeros",), sympy=_symbolic(_crop),
    domain=lambda rng: [((rng.uniform(-1, 1, (2, 6)),), {"pad": (1, 2)})],
)


def _constant_pad(input, pad, value):
    """A constant pad (ConstantPadNdBackward0); negative widths (cropping) are not supported."""
    if any(p < 0 for p in pad):
        raise ProgramValueError("F.pad with negative padding is not supported in gradcli")
    return apply(constant_pad_op, (input,), {"pad": tuple(pad), "value": value})


# -- packing a padded batch (PackPaddedSequenceBackward0) ------------------------------------


def _pack_rows(self, index):
    """The rows `index` of `self` flattened over its first two dims (time, batch)."""
    return self.reshape((-1,) + self.shape[2:])[index]


def _unpack_rows(grad, index, input_size):
    out = np.zeros((math.prod(input_size[:2]),) + tuple(input_size[2:]), dtype=grad.dtype)
    out[index] = grad
    return out.reshape(tuple(input_size))


pack_rows_op = defop(
    "pack_padded_sequence", "PackPaddedSequenceBackward0", _pack_rows, public=False,
    rules=(lambda F, g, self_shape, index: F.unpack_rows(g, index, tuple(self_shape)),),
    formulas=("grad put back at the packed steps, zeros elsewhere",), sympy=_symbolic(_pack_rows),
    domain=lambda rng: [((rng.uniform(-1, 1, (3, 2, 2)),), {"index": np.array([0, 1, 2, 3, 4])})],
)
unpack_rows_op = defop(
    "unpack_rows", "PackPaddedSequenceBackwardBackward0", _unpack_rows, public=False,
    rules=(lambda F, g, index: F.pack_padded_sequence(g, index),),
    formulas=("grad' at the packed steps",), sympy=_symbolic(_unpack_rows),
    domain=lambda rng: [((rng.uniform(-1, 1, (5, 2)),), {"index": np.array([0, 1, 2, 3, 4]),
                                                         "input_size": (3, 2, 2)})],
)


def pack_rows(input, index):
    """The packed steps of a time-major padded batch, rows `index` of its (T * B, *) view."""
    return apply(pack_rows_op, (input,), {"index": np.asarray(index, dtype=np.int64)})


# -- embedding_bag (EmbeddingBagBackward0) ----------------------------------------------------


def _bag_sum(weight, bags):
    """bags @ weight: bags is (num_bags, num_embeddings), the count (or weight) of each row in each
    bag; or (num_bags, dim, num_embeddings), the row each bag takes in each column (mode max)."""
    if np.ndim(bags) == 3:
        return (bags * np.swapaxes(weight, 0, 1)[None]).sum(-1)
    return np.matmul(bags, weight)


def _bag_sum_backward(grad, bags):
    if np.ndim(bags) == 3:
        return np.swapaxes((bags * grad[:, :, None]).sum(0), 0, 1)
    return np.matmul(np.swapaxes(bags, 0, 1), grad)


def _bag_cases(rng):
    bags = np.array([[1.0, 0, 2, 0], [0, 0.5, 0, 0.5], [0, 0, 0, 0]])
    picks = np.zeros((2, 3, 4))
    picks[0, [0, 1, 2], [1, 3, 3]] = 1.0
    picks[1, [0, 1, 2], [0, 0, 2]] = 1.0
    return [((rng.uniform(-1, 1, (4, 3)),), {"bags": bags}), ((rng.uniform(-1, 1, (4, 3)),), {"bags": picks})]


embedding_bag_op = defop(
    "embedding_bag_rows", "EmbeddingBagBackward0", _bag_sum, inputs=("weight",), public=False,
    rules=(lambda F, g, bags: F.embedding_bag_backward(g, bags),),
    formulas=("bags^T @ grad (each bag's gradient to its rows)",), sympy=_symbolic(_bag_sum),
    domain=_bag_cases,
)
embedding_bag_backward_op = defop(
    "embedding_bag_backward", "EmbeddingBagBackwardBackward0", _bag_sum_backward, public=False,
    rules=(lambda F, g, bags: F.embedding_bag_rows(g, bags),),
    formulas=("bags @ grad'",), sympy=_symbolic(_bag_sum_backward),
    domain=lambda rng: [((rng.uniform(-1, 1, (b.shape[:-1])),), {"bags": b})
                        for b in (case[1]["bags"] for case in _bag_cases(rng))],
)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """The sum, mean or max of the embeddings in each bag: the rows of a 2-d `input`, or the
    runs of a 1-d `input` that `offsets` start (EmbeddingBagBackward0 for sum and mean)."""
    index = np.asarray(_data(input)).astype(np.int64)
    w = _data(weight)
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise ProgramValueError("embedding_bag(): max_norm, scale_grad_by_freq and sparse are not supported")
    if mode not in ("sum", "mean", "max"):
        raise ProgramValueError("mode has to be one of sum, mean or max")
    if index.ndim == 2:
        if offsets is not None:
            raise ProgramValueError(f"if input is 2D, then offsets has to be None, as input is treated is a "
                                    f"mini-batch of fixed length sequences. However, found offsets of type "
                                    f"{type(offsets).__name__}")
        starts = np.arange(0, index.size, index.shape[1])
        flat = index.reshape(-1)
    elif index.ndim == 1:
        if offsets is None:
            raise ProgramValueError("offsets has to be a 1D Tensor but got None")
        starts = np.asarray(_data(offsets)).astype(np.int64).reshape(-1)
        flat = index
    else:
        raise ProgramValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {index.ndim}")
    ends = list(starts[1:]) + [len(flat)]
    if include_last_offset:
        starts, ends = starts[:-1], ends[:-1]
    psw = None if per_sample_weights is None else np.asarray(_data(per_sample_weights)).reshape(-1)
    if psw is not None and mode != "sum":
        raise ProgramValueError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                "on GitHub.")
    keep = np.ones(len(flat), dtype=bool) if padding_idx is None else flat != int(padding_idx) % w.shape[0]
    if mode == "max":
        # the row each bag takes in each column, as a one-hot (bags, dim, rows) selection
        picks = np.zeros((len(starts), w.shape[1], w.shape[0]), dtype=w.dtype)
        for bag, (a, b) in enumerate(zip(starts, ends)):
            members = flat[[i for i in range(a, b) if keep[i]]]
            if len(members):
                best = members[np.argmax(w[members], axis=0)]
                picks[bag, np.arange(w.shape[1]), best] = 1.0
        return apply(embedding_bag_op, (weight,), {"bags": picks})
    bags = np.zeros((len(starts), w.shape[0]), dtype=w.dtype)
    for bag, (a, b) in enumerate(zip(starts, ends)):
        members = [i for i in range(a, b) if keep[i]]
        for i in members:
            bags[bag, flat[i]] += 1.0 if psw is None else psw[i]
        if mode == "mean" and members:
            bags[bag] /= len(members)
    return apply(embedding_bag_op, (weight,), {"bags": bags})


# -- pixel shuffle ------------------------------------------------------------------------------


def _pixel_shuffle(self, upscale_factor):
    r = upscale_factor
    *lead, c, h, w = self.shape
    x = self.reshape(tuple(lead) + (c // (r * r), r, r, h, w))
    k = len(lead)
    x = x.transpose(tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return x.reshape(tuple(lead) + (c // (r * r), h * r, w * r))


def _pixel_unshuffle(self, downscale_factor):
    r = downscale_factor
    *lead, c, h, w = self.shape
    x = self.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    k = len(lead)
    x = x.transpose(tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return x.reshape(tuple(lead) + (c * r * r, h // r, w // r))


pixel_shuffle_op = defop(
    "pixel_shuffle", "PixelShuffleBackward0", _pixel_shuffle, public=False,
    rules=(lambda F, g, upscale_factor: F.pixel_unshuffle_op(g, upscale_factor),),
    formulas=("pixel_unshuffle(grad, upscale_factor)",), sympy=_symbolic(_pixel_shuffle),
    domain=lambda rng: [((rng.uniform(-1, 1, (1, 8, 2, 3)),), {"upscale_factor": 2})],
)
pixel_unshuffle_op = defop(
    "pixel_unshuffle_op", "PixelUnshuffleBackward0", _pixel_unshuffle, public=False,
    rules=(lambda F, g, downscale_factor: F.pixel_shuffle(g, downscale_factor),),
    formulas=("pixel_shuffle(grad, downscale_factor)",), sympy=_symbolic(_pixel_unshuffle),
    domain=lambda rng: [((rng.uniform(-1, 1, (1, 2, 4, 6)),), {"downscale_factor": 2})],
)


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r) (PixelShuffleBackward0)."""
    r, shape = int(upscale_factor), _data(input).shape
    if len(shape) < 3:
        raise ShapeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                         f"{len(shape)} dimension(s)")
    if shape[-3] % (r * r):
        raise ShapeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                         f"of upscale_factor, but input.size(-3)={shape[-3]} is not divisible by {r * r}")
    return apply(pixel_shuffle_op, (input,), {"upscale_factor": r})


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W) (PixelUnshuffleBackward0)."""
    r, shape = int(downscale_factor), _data(input).shape
    if len(shape) < 3 or shape[-1] % r or shape[-2] % r:
        raise ShapeError("pixel_unshuffle expects height and width to be divisible by downscale_factor")
    return apply(pixel_unshuffle_op, (input,), {"downscale_factor": r})


# -- PReLU (PreluKernelBackward0) ------------------------------------------------------------


def _channel(weight, ndim):
    """The weight (C,) or (1,) shaped to broadcast over dim 1 of an `ndim`-d input."""
    return weight.reshape((1, -1) + (1,) * (ndim - 2)) if ndim >= 2 else weight


def _prelu(self, weight):
    w = _channel(weight, np.ndim(self))
    return np.where(self > 0, self, w * self)


def _prelu_sympy(sp, x, weight):
    x, weight = _objects(x, weight)
    w = np.broadcast_to(_channel(weight, x.ndim), x.shape)
    return np.vectorize(lambda a, b: sp.Piecewise((a, a > 0), (b * a, True)), otypes=[object])(x, w)


def _prelu_input_rule(F, g, self, weight):
    w = _channel(weight, len(self.shape))
    return g * F.where(self > 0, 1.0, w) if F is not TENSORS else \
        g * TENSORS.where(self > 0, TENSORS.ones_like(self), w + TENSORS.zeros_like(self))


def _prelu_weight_rule(F, g, self, weight_shape):
    part = g * F.where(self > 0, 0.0, self) if F is not TENSORS else \
        g * TENSORS.where(self > 0, TENSORS.zeros_like(self), self)
    ndim = len(self.shape)
    dims = tuple(d for d in range(ndim) if d != 1 or weight_shape[0] == 1) if ndim >= 2 else tuple(range(ndim))
    total = F.sum(part, dims) if dims else part
    return F.reshape(total, tuple(weight_shape))


def _prelu_cases(rng):
    def away(*shape):
        x = rng.uniform(-2, 2, shape)
        return np.where(np.abs(x) < 0.1, 0.3, x)
    return [((away(2, 3, 4), rng.uniform(0, 0.5, (3,))), {}), ((away(2, 3), rng.uniform(0, 0.5, (1,))), {})]


prelu_op = defop(
    "prelu", "PreluKernelBackward0", _prelu, inputs=("self", "weight"), public=False,
    rules=(_prelu_input_rule, _prelu_weight_rule),
    formulas=("grad * where(self > 0, 1, weight)", "sum of grad * where(self > 0, 0, self) per channel"),
    sympy=_prelu_sympy, domain=_prelu_cases,
)


def prelu(input, weight):
    """max(0, x) + weight * min(0, x), weight per channel (dim 1) or one (PreluKernelBackward0)."""
    n = _data(weight).size
    x = _data(input)
    channels = x.shape[1] if x.ndim >= 2 else 1
    if n != 1 and n != channels:
        raise ShapeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                         f"{n} and channel size = {channels}.")
    return apply(prelu_op, (input, weight))


# -- scaled dot-product attention (ScaledDotProductFlashAttentionForCpuBackward0) ----------


def _softmax_last(s):
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def _attention(query, key, value, mask, scale):
    p = _softmax_last(np.matmul(query, np.swapaxes(key, -1, -2)) * scale + mask)
    return np.matmul(p, value)


def _probs(F, query, key, mask, scale):
    if F is TENSORS:
        scores = TENSORS.matmul(query, TENSORS.transpose(key, -1, -2)) * scale
        return TENSORS.softmax(scores + Tensor._make(np.asarray(mask, dtype=scores._data.dtype)), -1)
    return _softmax_last(np.matmul(query, np.swapaxes(key, -1, -2)) * scale + mask)


def _t(F, x):
    return TENSORS.transpose(x, -1, -2) if F is TENSORS else np.swapaxes(x, -1, -2)


def _mm(F, a, b):
    return TENSORS.matmul(a, b) if F is TENSORS else np.matmul(a, b)


def _unbroadcast(F, grad, shape):
    """Sum a gradient of a broadcast batch back to `shape` (grouped key/value heads)."""
    shape = tuple(shape)
    if tuple(grad.shape) == shape:
        return grad
    lead = len(grad.shape) - len(shape)
    dims = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and grad.shape[i + lead] != 1)
    out = F.sum(grad, dims, True) if dims else grad
    return F.reshape(out, shape)


def _dscores(F, g, query, key, value, mask, scale):
    p = _probs(F, query, key, mask, scale)
    dp = _mm(F, g, _t(F, value))
    inner = F.sum(dp * p, (-1,), True)
    return p, p * (dp - inner)


def _q_rule(F, g, query, key, value, mask, scale):
    _, ds = _dscores(F, g, query, key, value, mask, scale)
    return _unbroadcast(F, _mm(F, ds, key) * scale, query.shape)


def _k_rule(F, g, query, key, value, mask, scale):
    _, ds = _dscores(F, g, query, key, value, mask, scale)
    return _unbroadcast(F, _mm(F, _t(F, ds), query) * scale, key.shape)


def _v_rule(F, g, query, key, value, mask, scale):
    p = _probs(F, query, key, mask, scale)
    return _unbroadcast(F, _mm(F, _t(F, p), g), value.shape)


def _attention_sympy(sp, q, k, v, mask, scale):
    q, k, v = _objects(q, k, v)
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * sp.Float(scale) + mask
    e = np.vectorize(sp.exp, otypes=[object])(s)
    return np.matmul(e / e.sum(axis=-1, keepdims=True), v)


def _attention_cases(rng):
    u = lambda *s: rng.uniform(-1, 1, s)  # noqa: E731
    causal = np.where(np.tril(np.ones((3, 3))) > 0, 0.0, -np.inf)
    # small: the SymPy check expands every softmax symbolically
    return [((u(1, 2, 2), u(1, 3, 2), u(1, 3, 1)), {"mask": 0.0, "scale": 0.5}),
            ((u(1, 1, 3, 1), u(1, 1, 3, 1), u(1, 1, 3, 2)), {"mask": causal, "scale": 0.7})]


attention_op = defop(
    "scaled_dot_product_attention", "ScaledDotProductFlashAttentionForCpuBackward0", _attention,
    inputs=("query", "key", "value"), public=False, cost=costs.attention,
    rules=(_q_rule, _k_rule, _v_rule),
    formulas=("dS @ key * scale, dS = P * (grad @ value^T - rowsum(P * (grad @ value^T)))",
              "dS^T @ query * scale", "P^T @ grad, P = softmax(query @ key^T * scale + mask)"),
    sympy=_attention_sympy, domain=_attention_cases,
)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(Q K^T * scale + mask) V over the last two dims; a boolean mask says which keys each
    query may attend to, a float mask is added; `is_causal` masks the keys after each query."""
    q, k = _data(query), _data(key)
    L, S = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    if is_causal and attn_mask is not None:
        raise ProgramValueError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                                "is_causal=True")
    dtype = q.dtype if q.dtype.kind == "f" else np.float64
    mask = np.zeros((), dtype=dtype)
    if is_causal:
        mask = np.where(np.tril(np.ones((L, S), dtype=bool)), 0.0, -np.inf).astype(dtype)
    elif attn_mask is not None:
        m = _data(attn_mask)
        mask = np.where(m, 0.0, -np.inf).astype(dtype) if m.dtype == bool else m.astype(dtype)
    if enable_gqa and q.shape[-3] != k.shape[-3]:
        reps = q.shape[-3] // k.shape[-3]
        key = TENSORS.repeat_interleave(key, reps, -3) if hasattr(TENSORS, "repeat_interleave") else key
        value = TENSORS.repeat_interleave(value, reps, -3) if hasattr(TENSORS, "repeat_interleave") else value
    fused = q.ndim == 4 and _data(value).ndim == 4 and k.ndim == 4 and q.shape[-1] == k.shape[-1] == \
        _data(value).shape[-1]
    if not fused or (dropout_p and float(dropout_p) > 0):
        # PyTorch's math path (_scaled_dot_product_attention_math): the fused CPU kernel takes 4-d
        # inputs with one head size; each side is scaled by sqrt(scale)
        root = math.sqrt(scale)
        scores = TENSORS.matmul(query * root, TENSORS.transpose(key, -2, -1) * root)
        if is_causal or attn_mask is not None:
            scores = scores + Tensor._make(mask)
        weights = TENSORS.softmax(scores, -1)
        if dropout_p and float(dropout_p) > 0:
            weights = TENSORS.dropout(weights, float(dropout_p), True)
        return TENSORS.matmul(weights, value)
    return apply(attention_op, (query, key, value), {"mask": mask, "scale": scale})


# -- the 1-d pools and channel dropout, composed as PyTorch composes them -------------------


def _pool1d(name, input, call):
    x = _data(input)
    if x.ndim not in (2, 3):
        raise ShapeError(f"{name}() Expected 2D or 3D input tensor, but got {list(x.shape)}")
    out = call(TENSORS.unsqueeze(input, -2))
    return TENSORS.squeeze(out, -2)


def _one(value, name):
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise ProgramValueError(f"{name} must be a single int, or a tuple of one int")
        value = value[0]
    return int(value)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """max_pool2d over a (N, C, 1, L) view, squeezed back (SqueezeBackward1)."""
    k = _one(kernel_size, "kernel_size")
    s = k if stride is None or stride == [] else _one(stride, "stride")
    if return_indices:
        out, idx = TENSORS.max_pool2d(TENSORS.unsqueeze(input, -2), (1, k), (1, s), (0, _one(padding, "padding")),
                                      (1, _one(dilation, "dilation")), ceil_mode, True)
        return TENSORS.squeeze(out, -2), TENSORS.squeeze(idx, -2)
    return _pool1d("max_pool1d", input, lambda x: TENSORS.max_pool2d(
        x, (1, k), (1, s), (0, _one(padding, "padding")), (1, _one(dilation, "dilation")), ceil_mode))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """avg_pool2d over a (N, C, 1, L) view, squeezed back (SqueezeBackward1)."""
    k = _one(kernel_size, "kernel_size")
    s = k if stride is None or stride == [] else _one(stride, "stride")
    return _pool1d("avg_pool1d", input, lambda x: TENSORS.avg_pool2d(
        x, (1, k), (1, s), (0, _one(padding, "padding")), ceil_mode, count_include_pad))


def adaptive_avg_pool1d(input, output_size):
    """adaptive_avg_pool2d over a (N, C, 1, L) view, squeezed back (SqueezeBackward1)."""
    return _pool1d("adaptive_avg_pool1d", input,
                   lambda x: TENSORS.adaptive_avg_pool2d(x, (1, _one(output_size, "output_size"))))


def _channel_dropout(name, input, p, training, spatial):
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ProgramValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    x = _data(input)
    if spatial == 2:   # PyTorch's dropout2d: feature dropout over dims 0 and 1 of any input of 2+ dims
        _dropout2d_warnings(x.ndim)
        if x.ndim < 2:
            raise ProgramError("Feature dropout requires at least 2 dimensions in the input")
        shape = x.shape[:2] + (1,) * (x.ndim - 2)
    else:
        if x.ndim not in (spatial + 1, spatial + 2):
            raise ShapeError(
                f"{name}: Expected {spatial + 1}D or {spatial + 2}D input, but received a {x.ndim}D input. "
                f"Note that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial "
                f"dimension{'s' if spatial > 1 else ''}, a channel dimension, and an optional batch dimension "
                f"(i.e. {spatial + 1}D or {spatial + 2}D inputs).")
        shape = (x.shape[:2] if x.ndim == spatial + 2 else x.shape[:1]) + (1,) * spatial
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * Tensor._make(np.zeros(shape, dtype=x.dtype))
    from .factories import _rng
    from .nn import dropout_noise
    return input * dropout_noise(input, _rng(None).random(shape) >= p, p)


def _dropout2d_warnings(ndim: int) -> None:
    """PyTorch's warnings for a dropout2d input that is not (N, C, H, W) or (C, H, W)."""
    if ndim not in (3, 4):
        warn(f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated and will result in an "
             "error in a future release. To retain the behavior and silence this warning, please use dropout "
             "instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
             "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).")
    if ndim == 3:
        warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
             "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
             "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
             "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
             "instead.")


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) with probability p, scale the rest by 1/(1-p) (MulBackward0)."""
    return _channel_dropout("dropout1d", input, p, training, 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) with probability p, scale the rest by 1/(1-p) (MulBackward0)."""
    return _channel_dropout("dropout2d", input, p, training, 2)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Each (sample, channel) normalised over its own spatial values: batch_norm over a (1, N*C, ...)
    view, viewed back (ViewBackward0), as PyTorch composes it."""
    if not use_input_stats or running_mean is not None:
        raise ProgramValueError("instance_norm with running statistics is not supported in gradcli")
    shape = tuple(input.shape)
    n, c = shape[0], shape[1]
    x = TENSORS.reshape(input, (1, n * c) + shape[2:])
    w = TENSORS.cat([weight] * n) if weight is not None else None
    b = TENSORS.cat([bias] * n) if bias is not None else None
    out = TENSORS.batch_norm(x, None, None, w, b, True, momentum, eps)
    return TENSORS.view(out, shape)


for _name, _function in [("conv_transpose1d", conv_transpose1d), ("conv_transpose2d", conv_transpose2d),
                         ("interpolate", interpolate), ("pad", pad), ("pixel_shuffle", pixel_shuffle),
                         ("pixel_unshuffle", pixel_unshuffle), ("prelu", prelu),
                         ("scaled_dot_product_attention", scaled_dot_product_attention),
                         ("max_pool1d", max_pool1d), ("avg_pool1d", avg_pool1d),
                         ("adaptive_avg_pool1d", adaptive_avg_pool1d), ("dropout1d", dropout1d),
                         ("dropout2d", dropout2d), ("instance_norm", instance_norm),
                         ("embedding_bag", embedding_bag)]:
    export(_name, _function, method=False, nn=True)
