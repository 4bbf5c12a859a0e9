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


def _conv_init(module, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
               padding_mode, dtype, transposed=False):
    """Checks and stores a convolution's options and makes its empty weight and bias: one place for
    _ConvNd and the transposed convolutions (nn.spatial), as PyTorch's _ConvNd serves both."""
    n = module.n
    in_channels, out_channels, groups = int(in_channels), int(out_channels), int(groups)
    if groups <= 0:
        raise ProgramValueError("groups must be a positive integer")
    if in_channels % groups:
        raise ProgramValueError("in_channels must be divisible by groups")
    if out_channels % groups:
        raise ProgramValueError("out_channels must be divisible by groups")
    if padding_mode != "zeros":
        raise ProgramValueError(f'Only "zeros" padding mode is supported for {type(module).__name__}'
                                if transposed else f"padding_mode '{padding_mode}' is not supported (only 'zeros')")
    module.in_channels, module.out_channels, module.groups = in_channels, out_channels, groups
    module.kernel_size, module.stride = _tuple(kernel_size, n), _tuple(stride, n)
    module.padding = padding if isinstance(padding, str) and not transposed else _tuple(padding, n)
    module.dilation, module.padding_mode = _tuple(dilation, n), padding_mode
    channels = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
    module.weight = Parameter(FUNCTIONS["empty"](*(channels + module.kernel_size), **_dt(dtype)))
    if bias:
        module.bias = Parameter(FUNCTIONS["empty"](out_channels, **_dt(dtype)))
    else:
        module.register_parameter("bias", None)


def _options_repr(head: str, *options) -> str:
    """`head`, then `, name=value` for each (name, value, shown) option shown (PyTorch's reprs name an
    option only where it is not at its default)."""
    return head + "".join(f", {name}={value}" for name, value, shown in options if shown)


def _conv_extra_repr(module, output_padding=None) -> str:
    """The repr of a convolution's options (a transposed one also names its output_padding)."""
    n = module.n
    return _options_repr(
        f"{module.in_channels}, {module.out_channels}, kernel_size={module.kernel_size}, stride={module.stride}",
        ("padding", repr(module.padding), module.padding != (0,) * n),
        ("dilation", module.dilation, module.dilation != (1,) * n),
        ("output_padding", output_padding, output_padding is not None and output_padding != (0,) * n),
        ("groups", module.groups, module.groups != 1),
        ("bias", False, module.bias is None))


class _ConvNd(Module):
    public = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
              "groups", "padding_mode")
    n = 2
    function = "conv2d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        _conv_init(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                   padding_mode, dtype)
        self.reset_parameters()

    reset_parameters = Linear.reset_parameters

    def forward(self, input):
        weight = _tensor_arg(self.weight, self.function, "weight", 2)
        return _function(self.function)(input, weight, self.bias, self.stride, self.padding,
                                        self.dilation, self.groups)

    def extra_repr(self):
        return _conv_extra_repr(self)


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
