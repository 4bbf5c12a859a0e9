"""Convolutions and pooling: Conv1d, Conv2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d."""
from __future__ import annotations

from ...errors import ProgramValueError
from ...ops import FUNCTIONS
from ...ops.factories import Parameter
from .linear import Linear
from .module import Module, _dt, _function, _tensor_arg


# --- layers over nn-ops' functions (looked up when called) --------------------


def _tuple(value, n: int) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(int(v) for v in value)
    return (int(value),) * n


class _ConvNd(Module):
    public = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
              "groups", "padding_mode")
    n = 2
    function = "conv2d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        n = self.n
        in_channels, out_channels, groups = int(in_channels), int(out_channels), int(groups)
        if groups <= 0:
            raise ProgramValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ProgramValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ProgramValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise ProgramValueError(f"padding_mode '{padding_mode}' is not supported (only 'zeros')")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation, self.padding_mode = _tuple(dilation, n), padding_mode
        shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(FUNCTIONS["empty"](*shape, **_dt(dtype)))
        if bias:
            self.bias = Parameter(FUNCTIONS["empty"](out_channels, **_dt(dtype)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    reset_parameters = Linear.reset_parameters

    def forward(self, input):
        weight = _tensor_arg(self.weight, self.function, "weight", 2)
        return _function(self.function)(input, weight, self.bias, self.stride, self.padding,
                                        self.dilation, self.groups)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * self.n:
            s += f", padding={self.padding!r}"
        if self.dilation != (1,) * self.n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv1d(_ConvNd):
    n, function = 1, "conv1d"


class Conv2d(_ConvNd):
    n, function = 2, "conv2d"


class _Pool2d(Module):
    public = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding


class MaxPool2d(_Pool2d):
    public = _Pool2d.public + ("dilation", "return_indices", "ceil_mode")

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, padding)
        self.dilation, self.return_indices, self.ceil_mode = dilation, bool(return_indices), bool(ceil_mode)

    def forward(self, input):
        return _function("max_pool2d")(input, self.kernel_size, self.stride, self.padding,
                                       self.dilation, ceil_mode=self.ceil_mode,
                                       return_indices=self.return_indices)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, " \
               f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"


class AvgPool2d(_Pool2d):
    public = _Pool2d.public + ("ceil_mode", "count_include_pad", "divisor_override")

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__(kernel_size, stride, padding)
        self.ceil_mode, self.count_include_pad = bool(ceil_mode), bool(count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input):
        return _function("avg_pool2d")(input, self.kernel_size, self.stride, self.padding,
                                       self.ceil_mode, self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    public = ("output_size",)

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return _function("adaptive_avg_pool2d")(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"
