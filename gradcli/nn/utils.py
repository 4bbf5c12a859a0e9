"""`torch.nn.utils`: gradient clipping and the flat parameter vector.

clip_grad_norm_ and clip_grad_value_ change the `.grad` of each parameter in
place, outside the graph (as PyTorch's run under no_grad), and return what
PyTorch returns (the total norm as a 0-d tensor; None).
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor, bump_version
from ..errors import ProgramError, ProgramTypeError
from ..ops import reduce

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters"]


def _params(parameters) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def _norm(array: np.ndarray, norm_type: float) -> float:
    if norm_type == 2 and array.dtype == np.float32 and array.size:   # linalg.vector_norm's own
        return reduce._norm(np.ascontiguousarray(array))[()]
    flat = np.abs(array.reshape(-1))
    if math.isinf(norm_type):
        return float(flat.max()) if flat.size else 0.0
    return float(np.sum(flat ** norm_type) ** (1.0 / norm_type))


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (a 0-d tensor in their dtype)."""
    tensors = [t for t in _params(tensors) if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return Tensor._make(np.array(0.0))
    norms = np.array([_norm(t._data, norm_type) for t in tensors])
    if all(t._data.dtype == np.float32 for t in tensors):   # stacked in their dtype, as PyTorch
        norms = norms.astype(np.float32)
    total = _norm(norms, norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise ProgramError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and scale the "
                           "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return Tensor._make(np.array(total, dtype=tensors[0]._data.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale every gradient by max_norm / (total_norm + 1e-6) when that is below 1."""
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    if not grads:
        return total
    # PyTorch's tensor arithmetic in the norm's dtype: max_norm / (total + 1e-6) is
    # reciprocal(total + 1e-6) * max_norm, clamped to 1, and every gradient multiplied by it
    t = total._data.dtype.type
    coef = min(t(1) / (total._data + t(1e-6)) * t(max_norm), t(1))
    for g in grads:
        g._data = (g._data * coef).astype(g._data.dtype)
        bump_version(g)
    return total


clip_grad_norm = clip_grad_norm_


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient into [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    for p in _params(parameters):
        if p.grad is not None:
            p.grad._data = np.clip(p.grad._data, -clip_value, clip_value)
            bump_version(p.grad)


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated (CatBackward0 over ViewBackward0s)."""
    from ..ops import FUNCTIONS
    return FUNCTIONS["cat"]([FUNCTIONS["reshape"](p, (-1,)) for p in _params(parameters)])


def vector_to_parameters(vec, parameters) -> None:
    """Copy slices of `vec` into the parameters' data."""
    if not isinstance(vec, Tensor):
        raise ProgramTypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for p in _params(parameters):
        n = int(np.prod(p.shape))
        p._data = np.array(vec._data[offset:offset + n].reshape(p.shape), dtype=p._data.dtype)
        bump_version(p)
        offset += n
