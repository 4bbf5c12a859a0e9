"""LayerNorm, BatchNorm1d, BatchNorm2d."""
from __future__ import annotations

import numpy as np

from ...errors import ProgramValueError
from ..._tensor import Tensor, bump_version
from ...ops import FUNCTIONS
from ...ops.factories import Parameter
from .conv import _tuple
from .module import Module, _dt, _function


class LayerNorm(Module):
    public = ("normalized_shape", "eps", "elementwise_affine")

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = _tuple(normalized_shape, 1)
        self.eps, self.elementwise_affine = float(eps), bool(elementwise_affine)
        self.has_bias = bool(bias)
        if self.elementwise_affine:
            self.weight = Parameter(FUNCTIONS["ones"](*self.normalized_shape, **_dt(dtype)))
            if bias:
                self.bias = Parameter(FUNCTIONS["zeros"](*self.normalized_shape, **_dt(dtype)))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return _function("layer_norm")(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, " \
               f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"


class _BatchNorm(Module):
    """Batch statistics in training (updating running_mean/var by momentum, or a cumulative
    average when momentum is None); the running statistics in eval."""

    public = ("num_features", "eps", "momentum", "affine", "track_running_stats")
    dims = (2, 3)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), momentum
        self.affine, self.track_running_stats = bool(affine), bool(track_running_stats)
        self.has_bias = bool(bias)
        n = self.num_features
        if self.affine:
            self.weight = Parameter(FUNCTIONS["ones"](n, **_dt(dtype)))
            if bias:
                self.bias = Parameter(FUNCTIONS["zeros"](n, **_dt(dtype)))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", FUNCTIONS["zeros"](n, **_dt(dtype)))
            self.register_buffer("running_var", FUNCTIONS["ones"](n, **_dt(dtype)))
            self.register_buffer("num_batches_tracked", Tensor._make(np.array(0, dtype=np.int64)))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def forward(self, input):
        ndim = len(input.shape)
        if ndim not in self.dims:
            raise ProgramValueError(f"expected {' or '.join(f'{d}D' for d in self.dims)} input "
                                    f"(got {ndim}D input)")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            tracked = self.num_batches_tracked
            if tracked is not None:  # PyTorch counts only while the buffer is there
                tracked._data = tracked._data + 1
                bump_version(tracked)
            if self.momentum is None:  # float(None) is PyTorch's TypeError too
                momentum = 1.0 / float(None if tracked is None else tracked._data)
        use_batch = self.training or self.running_mean is None
        return _function("batch_norm")(
            input,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight, self.bias, use_batch, momentum, self.eps)

    def extra_repr(self):
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, " \
               f"affine={self.affine}, bias={self.bias is not None}, " \
               f"track_running_stats={self.track_running_stats}"


class BatchNorm1d(_BatchNorm):
    dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    dims = (4,)
