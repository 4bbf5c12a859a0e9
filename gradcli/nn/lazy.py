"""The lazy layers: LazyLinear, LazyConv1d/2d, LazyBatchNorm1d/2d.

As PyTorch's, a lazy layer holds UninitializedParameters until its first call,
which reads the input's size, fills the same Parameter objects (an optimizer
made before the call keeps working), initialises them as the eager layer does,
and turns the layer into that layer (`LazyLinear` becomes a `Linear`, repr
included). The random numbers come from gradcli's generator.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, bump_version
from ..errors import ProgramValueError
from ..ops.factories import Parameter
from .modules import BatchNorm1d, BatchNorm2d, Conv1d, Conv2d, Linear, Module

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "UninitializedParameter", "UninitializedBuffer"]


class UninitializedParameter(Parameter):
    """A Parameter with no size yet: a lazy layer's first call materializes it in place."""

    __slots__ = ()

    def __init__(self, requires_grad=True, device=None, dtype=None):
        Parameter.__init__(self, None, requires_grad)

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__


class UninitializedBuffer(Tensor):
    """A buffer with no size yet (a lazy batch norm's running statistics)."""

    __slots__ = ()

    def __init__(self, requires_grad=False, device=None, dtype=None):
        Tensor.__init__(self, 0.0)
        self._data = np.zeros((0,))

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"

    __str__ = __repr__


def _np_dtype(dtype):
    from ..ops.factories import _np_dtype
    return _np_dtype(dtype)


def _fill(t: Tensor, shape: tuple, dtype, value: float) -> None:
    t._data = np.full(shape, value, dtype=_np_dtype(dtype))
    t.__class__ = Parameter if isinstance(t, Parameter) else Tensor
    bump_version(t)


def _uninitialized(module: Module) -> bool:
    return any(isinstance(t, (UninitializedParameter, UninitializedBuffer))
               for table in (module._parameters, module._buffers) for t in table.values())


class _Lazy(Module):
    """The first call sizes the parameters from the input, then the layer is `cls_to_become`."""

    cls_to_become: type = Module

    def has_uninitialized_params(self) -> bool:
        return _uninitialized(self)

    def __call__(self, *args, **kwargs):
        if _uninitialized(self) and args and isinstance(args[0], Tensor):
            self.initialize_parameters(args[0])
            object.__setattr__(self, "__class__", self.cls_to_become)
        return Module.__call__(self, *args, **kwargs)

    def _lazy_weight_and_bias(self, bias, dtype) -> None:
        """An uninitialized weight and bias (or no bias), to be sized by the first input."""
        self._lazy_dtype = dtype
        self.weight = UninitializedParameter()
        if bias:
            self.bias = UninitializedParameter()
        else:
            self.register_parameter("bias", None)

    def _fill_weight_and_bias(self, shape) -> None:
        """Sizes the weight as `shape` and the bias as its dimension 0, then initialises them."""
        _fill(self.weight, shape, self._lazy_dtype, 0.0)
        if self.bias is not None:
            _fill(self.bias, (shape[0],), self._lazy_dtype, 0.0)
        self.reset_parameters()


class LazyLinear(_Lazy):
    """torch.nn.LazyLinear(out_features): a Linear whose in_features is the input's last size."""

    public = Linear.public
    cls_to_become = Linear
    reset_parameters = Linear.reset_parameters
    extra_repr = Linear.extra_repr

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = 0, int(out_features)
        self._lazy_weight_and_bias(bias, dtype)

    def initialize_parameters(self, input) -> None:
        self.in_features = int(input.shape[-1]) if input.shape else 1
        self._fill_weight_and_bias((self.out_features, self.in_features))


class _LazyConvNd(_Lazy):
    n = 2

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if padding_mode != "zeros":
            raise ProgramValueError(f"padding_mode '{padding_mode}' is not supported (only 'zeros')")
        n = self.n
        self.in_channels, self.out_channels, self.groups = 0, int(out_channels), int(groups)
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation, self.padding_mode = _tuple(dilation, n), padding_mode
        self._lazy_weight_and_bias(bias, dtype)

    def initialize_parameters(self, input) -> None:
        batched = len(input.shape) == self.n + 2
        self.in_channels = int(input.shape[1 if batched else 0])
        if self.in_channels % self.groups:
            raise ProgramValueError("in_channels must be divisible by groups")
        shape = (self.out_channels, self.in_channels // self.groups) + self.kernel_size
        self._fill_weight_and_bias(shape)


class LazyConv1d(_LazyConvNd):
    """torch.nn.LazyConv1d(out_channels, kernel_size, ...): in_channels from the input."""

    n, cls_to_become = 1, Conv1d
    public = Conv1d.public
    reset_parameters = Conv1d.reset_parameters
    extra_repr = Conv1d.extra_repr


class LazyConv2d(_LazyConvNd):
    """torch.nn.LazyConv2d(out_channels, kernel_size, ...): in_channels from the input."""

    n, cls_to_become = 2, Conv2d
    public = Conv2d.public
    reset_parameters = Conv2d.reset_parameters
    extra_repr = Conv2d.extra_repr


class _LazyBatchNorm(_Lazy):
    public = BatchNorm2d.public

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = 0, float(eps), momentum
        self.affine, self.track_running_stats, self.has_bias = bool(affine), bool(track_running_stats), True
        self._lazy_dtype = dtype
        if self.affine:
            self.weight = UninitializedParameter()
            self.bias = UninitializedParameter()
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", UninitializedBuffer())
            self.register_buffer("running_var", UninitializedBuffer())
            self.register_buffer("num_batches_tracked", Tensor._make(np.array(0, dtype=np.int64)))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def initialize_parameters(self, input) -> None:
        self.num_features = n = int(input.shape[1])
        if self.affine:
            _fill(self.weight, (n,), self._lazy_dtype, 1.0)
            _fill(self.bias, (n,), self._lazy_dtype, 0.0)
        if self.track_running_stats:
            _fill(self.running_mean, (n,), self._lazy_dtype, 0.0)
            _fill(self.running_var, (n,), self._lazy_dtype, 1.0)

    def extra_repr(self):
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, " \
               f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"


class LazyBatchNorm1d(_LazyBatchNorm):
    """torch.nn.LazyBatchNorm1d(): num_features from the input's dimension 1."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyBatchNorm):
    """torch.nn.LazyBatchNorm2d(): num_features from the input's dimension 1."""

    cls_to_become = BatchNorm2d


def _tuple(value, n: int) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(int(v) for v in value)
    return (int(value),) * n
