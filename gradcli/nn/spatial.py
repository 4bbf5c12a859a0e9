"""Layers over spatial dimensions beyond `modules`': transposed convolutions, the 1-d pools,
channel dropout, pixel shuffle, the pads, Upsample, instance norm, adaptive max pooling.

Each holds its options and calls its F function (`gradcli.ops.layers`, `ops.conv`) when
called; reprs and initialisation are PyTorch's (the random numbers are gradcli's generator's).
"""
from __future__ import annotations

import math

from .._tensor import Tensor
from ..errors import ProgramValueError
from ..ops import FUNCTIONS, NN_FUNCTIONS
from ..ops.factories import Parameter
from . import init
from .modules import Dropout, Module
from .modules.conv import _conv_extra_repr, _conv_init, _options_repr, _tuple

__all__ = ["ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d",
           "AdaptiveMaxPool2d", "Dropout1d", "Dropout2d", "PixelShuffle", "PixelUnshuffle", "ReflectionPad1d",
           "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "ZeroPad2d", "ConstantPad1d",
           "ConstantPad2d", "Upsample", "InstanceNorm1d", "InstanceNorm2d", "EmbeddingBag"]


def _f(name):
    return NN_FUNCTIONS.get(name) or FUNCTIONS[name]


class _ConvTransposeNd(Module):
    public = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "output_padding", "dilation",
              "groups", "padding_mode")
    n = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        _conv_init(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                   padding_mode, dtype, transposed=True)
        self.output_padding = _tuple(output_padding, self.n)
        self.reset_parameters()

    def reset_parameters(self):
        """kaiming_uniform_(a=sqrt(5)), the bias uniform in +-1/sqrt(fan_in) (fan_in from the weight's
        dimension 1, as PyTorch's _ConvNd computes it for a transposed weight too)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _output_padding(self, input, output_size) -> tuple:
        """The output_padding that makes the output `output_size` (PyTorch's _output_padding)."""
        if output_size is None:
            return self.output_padding
        n = self.n
        sizes = [int(s) for s in output_size]
        if len(sizes) == n + 2 or (len(sizes) == n + 1 and len(input.shape) == n + 1):
            sizes = sizes[-n:]
        if len(sizes) != n:
            raise ProgramValueError(f"ConvTranspose{n}D: for {len(input.shape)}D input, output_size must have "
                                    f"{n} or {n + 2} elements (got {len(sizes)})")
        out = []
        for d in range(n):
            least = (input.shape[d - n] - 1) * self.stride[d] - 2 * self.padding[d] + \
                self.dilation[d] * (self.kernel_size[d] - 1) + 1
            if not least <= sizes[d] < least + self.stride[d]:
                raise ProgramValueError(f"requested an output size of {sizes}, but valid sizes range from "
                                        f"{least} to {least + self.stride[d] - 1} (for an input of "
                                        f"{list(input.shape[-n:])})")
            out.append(sizes[d] - least)
        return tuple(out)

    def forward(self, input, output_size=None):
        return _f(f"conv_transpose{self.n}d")(input, self.weight, self.bias, self.stride, self.padding,
                                              self._output_padding(input, output_size), self.groups,
                                              self.dilation)

    def extra_repr(self):
        return _conv_extra_repr(self, self.output_padding)


class ConvTranspose1d(_ConvTransposeNd):
    """torch.nn.ConvTranspose1d: F.conv_transpose1d with a (C_in, C_out / groups, k) weight."""

    n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """torch.nn.ConvTranspose2d: F.conv_transpose2d with a (C_in, C_out / groups, kh, kw) weight."""

    n = 2


class MaxPool1d(Module):
    public = ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode")

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = bool(return_indices), bool(ceil_mode)

    def forward(self, input):
        return _f("max_pool1d")(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, " \
               f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"


class AvgPool1d(Module):
    public = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad")

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, 1)
        self.stride = _tuple(kernel_size if stride is None else stride, 1)
        self.padding = _tuple(padding, 1)
        self.ceil_mode, self.count_include_pad = bool(ceil_mode), bool(count_include_pad)

    def forward(self, input):
        return _f("avg_pool1d")(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _Adaptive(Module):
    public = ("output_size",)
    function = ""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return _f(self.function)(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    function = "adaptive_avg_pool1d"


class AdaptiveMaxPool2d(_Adaptive):
    """The max of each adaptive window: max_pool2d when the input divides into equal windows."""

    function = "adaptive_max_pool2d"

    def forward(self, input):
        h, w = input.shape[-2:]
        out = _tuple(self.output_size, 2) if not isinstance(self.output_size, (tuple, list)) else \
            tuple(s if s is not None else d for s, d in zip(self.output_size, (h, w)))
        if h % out[0] or w % out[1]:
            raise ProgramValueError("AdaptiveMaxPool2d in gradcli needs the input size to be a multiple of "
                                    f"output_size (got {h}x{w} for {out[0]}x{out[1]})")
        kernel = (h // out[0], w // out[1])
        return _f("max_pool2d")(input, kernel, kernel)


class _DropoutNd(Dropout):
    function = "dropout2d"

    def forward(self, input):
        return _f(self.function)(input, self.p, self.training)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of (N, C, L) in training."""

    function = "dropout1d"


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W) in training."""

    function = "dropout2d"


class PixelShuffle(Module):
    public = ("upscale_factor",)

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = int(upscale_factor)

    def forward(self, input):
        return _f("pixel_shuffle")(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    public = ("downscale_factor",)

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = int(downscale_factor)

    def forward(self, input):
        return _f("pixel_unshuffle")(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class _Pad(Module):
    public = ("padding",)
    mode, n = "constant", 2

    def __init__(self, padding):
        super().__init__()
        self.padding = _tuple(padding, 2 * self.n)

    def forward(self, input):
        return _f("pad")(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_Pad):
    mode, n = "reflect", 1


class ReflectionPad2d(_Pad):
    mode, n = "reflect", 2


class ReplicationPad1d(_Pad):
    mode, n = "replicate", 1


class ReplicationPad2d(_Pad):
    mode, n = "replicate", 2


class ZeroPad2d(_Pad):
    mode, n = "constant", 2


class _ConstantPad(_Pad):
    public = ("padding", "value")

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = float(value)

    def forward(self, input):
        return _f("pad")(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPad):
    n = 1


class ConstantPad2d(_ConstantPad):
    n = 2


class Upsample(Module):
    public = ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor")

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size = tuple(size) if isinstance(size, list) else size
        self.scale_factor = float(scale_factor) if isinstance(scale_factor, (int, float)) else scale_factor
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return _f("interpolate")(input, self.size, self.scale_factor, self.mode, self.align_corners,
                                 recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class _InstanceNorm(Module):
    public = ("num_features", "eps", "momentum", "affine", "track_running_stats")
    dims = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False,
                 device=None, dtype=None):
        super().__init__()
        if track_running_stats:
            raise ProgramValueError("InstanceNorm with track_running_stats=True is not supported in gradcli")
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), momentum
        self.affine, self.track_running_stats = bool(affine), False
        kw = {} if dtype is None else {"dtype": dtype}
        if self.affine:
            self.weight = Parameter(FUNCTIONS["ones"](self.num_features, **kw))
            self.bias = Parameter(FUNCTIONS["zeros"](self.num_features, **kw))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            self.register_buffer(name, None)

    def forward(self, input):
        if not isinstance(input, Tensor):
            raise ProgramValueError("InstanceNorm expects a Tensor")
        batched = len(input.shape) == self.dims + 2
        if len(input.shape) not in (self.dims + 1, self.dims + 2):
            raise ProgramValueError(f"expected {self.dims + 1}D or {self.dims + 2}D input "
                                    f"(got {len(input.shape)}D input)")
        x = input if batched else FUNCTIONS["unsqueeze"](input, 0)
        out = _f("instance_norm")(x, None, None, self.weight, self.bias, True, self.momentum, self.eps)
        return out if batched else FUNCTIONS["squeeze"](out, 0)

    def extra_repr(self):
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, " \
               f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"


class InstanceNorm1d(_InstanceNorm):
    dims = 1


class InstanceNorm2d(_InstanceNorm):
    dims = 2


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings; weight ~ N(0, 1)."""

    public = ("num_embeddings", "embedding_dim", "max_norm", "norm_type", "scale_grad_by_freq", "mode",
              "sparse", "include_last_offset", "padding_idx")

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None,
                 device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset
        if padding_idx is not None:
            padding_idx = int(padding_idx) % self.num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            kw = {} if dtype is None else {"dtype": dtype}
            self.weight = Parameter(FUNCTIONS["empty"](self.num_embeddings, self.embedding_dim, **kw))
            init.normal_(self.weight)
            if padding_idx is not None:
                self.weight._data[padding_idx] = 0
        else:
            self.weight = Parameter(_weight)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return _f("embedding_bag")(input, self.weight, offsets, self.max_norm, self.norm_type,
                                   self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
                                   self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        return _options_repr(f"{self.num_embeddings}, {self.embedding_dim}",
                             ("max_norm", self.max_norm, self.max_norm is not None),
                             ("norm_type", self.norm_type, self.norm_type != 2),
                             ("scale_grad_by_freq", self.scale_grad_by_freq, self.scale_grad_by_freq is not False),
                             ("mode", repr(self.mode), True),
                             ("padding_idx", self.padding_idx, self.padding_idx is not None))
