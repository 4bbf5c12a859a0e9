"""`torch.nn.init`: fill a tensor in place, outside the graph, with PyTorch's schemes.

Fans and gains are PyTorch's (`_calculate_fan_in_and_fan_out`, `calculate_gain`);
the random numbers come from gradcli's generator (`torch.manual_seed`), so
they differ from PyTorch's. Each function bumps the tensor's version counter
and keeps its dtype.
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor, bump_version
from ..errors import ProgramTypeError, ProgramValueError
from ..ops import factories

__all__ = ["calculate_gain", "constant_", "zeros_", "ones_", "eye_", "normal_", "uniform_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "trunc_normal_", "dirac_", "orthogonal_"]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity, param=None) -> float:
    """PyTorch's recommended gain for a nonlinearity."""
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ProgramValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ProgramValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor) -> tuple:
    dims = len(tensor.shape)
    if dims < 2:
        raise ProgramValueError("Fan in and fan out can not be computed for tensor with fewer "
                                "than 2 dimensions")
    receptive = int(np.prod(tensor.shape[2:])) if dims > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ProgramValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill(tensor, values):
    """Write `values` into `tensor`'s storage (its dtype), as under no_grad."""
    if not isinstance(tensor, Tensor):
        raise ProgramTypeError(f"expected a Tensor, got {type(tensor).__name__}")
    data = np.empty(tensor.shape, dtype=tensor._data.dtype)
    data[...] = values
    tensor._data = data
    bump_version(tensor)
    return tensor


def _rng(generator=None):
    return factories._rng(None)


def constant_(tensor, val):
    return _fill(tensor, float(val))


def zeros_(tensor):
    return _fill(tensor, 0.0)


def ones_(tensor):
    return _fill(tensor, 1.0)


def eye_(tensor):
    if len(tensor.shape) != 2:
        raise ProgramValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


def dirac_(tensor, groups=1):
    dims = len(tensor.shape)
    if dims not in (3, 4, 5):
        raise ProgramValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    values = np.zeros(tensor.shape)
    out_per_group = tensor.shape[0] // groups
    channels = min(out_per_group, tensor.shape[1])
    for g in range(groups):
        for d in range(channels):
            index = (g * out_per_group + d, d) + tuple(s // 2 for s in tensor.shape[2:])
            values[index] = 1
    return _fill(tensor, values)


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    return _fill(tensor, _rng(generator).uniform(float(a), float(b), tensor.shape))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    return _fill(tensor, _rng(generator).normal(float(mean), float(std), tensor.shape))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    values = _rng(generator).normal(float(mean), float(std), tensor.shape)
    return _fill(tensor, np.clip(values, a, b))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity) -> float:
    if 0 in tensor.shape:
        return 0.0
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix: Q of the QR of a normal matrix, signs fixed by R's diagonal
    (PyTorch's recipe; dimensions after the first are flattened)."""
    if len(tensor.shape) < 2:
        raise ProgramValueError("Only tensors with 2 or more dimensions are supported")
    if 0 in tensor.shape:
        return tensor
    rows = tensor.shape[0]
    cols = int(np.prod(tensor.shape)) // rows
    flat = _rng(generator).normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, q.reshape(tensor.shape) * float(gain))


FUNCTIONS = {name: globals()[name] for name in __all__}
