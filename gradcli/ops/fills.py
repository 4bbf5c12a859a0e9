"""`x.fill_(v)` and `x.copy_(src)`: writes of new values, with PyTorch's nodes and casts.

Each is an op of the table (FillBackward2 for a number, FillBackward3 for a 0-d
tensor, CopyBackwards for copy_), so the written values are the given ones
exactly: inf, -inf and nan included (an arithmetic formula such as
`x * 0 + v` turns inf into nan). The value is cast to the written tensor's
dtype as PyTorch casts it: float into an integer tensor truncates toward zero.
The gradient to `x`'s old value is zero; to `src` it is the incoming gradient
summed over the broadcast dimensions and cast back to `src`'s dtype.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import ShapeError
from .._tensor import Tensor, no_grad
from .apply import _note_input_dtypes, apply
from .domains import cases
from .registry import defop
from .shapes import broadcast


def _cast(values, dtype):
    """numpy's cast, silent about nan or inf into an integer (PyTorch gives the same bits)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return dtypes.cast(values, dtype)


def _fill(self, value):
    dtype = np.asarray(self).dtype
    return np.full(np.shape(self), _cast(value, dtype), dtype=dtype) if np.ndim(self) else _cast(value, dtype)


def _fill_tensor(self, value):
    return np.broadcast_to(_cast(value, np.asarray(self).dtype), np.shape(self)).copy()


def _copy_into(self, src):
    shape = broadcast(np.shape(self), np.shape(src))
    return _cast(np.broadcast_to(src, shape), np.asarray(self).dtype)


fill_scalar = defop(
    "fill", "FillBackward2", _fill, public=False,
    rules=(lambda F, g: F.zero(g),), formulas=("zeros_like(grad)",),
    sympy=lambda sp, a, value: np.full(np.shape(a), sp.Float(value), dtype=object),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (3,)),), {"value": 2.5})),
)

fill_tensor = defop(
    "fill_tensor", "FillBackward3", _fill_tensor, inputs=("self", "value"), public=False,
    rules=(lambda F, g: F.zero(g), lambda F, g: F.sum(g)),
    formulas=("zeros_like(grad)", "grad.sum()"),
    sympy=lambda sp, a, v: np.full(np.shape(a), v.item() if np.ndim(v) == 0 else v, dtype=object),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, ())), {})),
)

copy_into = defop(
    "copy_into", "CopyBackwards", _copy_into, inputs=("self", "src"), public=False, broadcasts=True,
    rules=(lambda F, g: F.zero(g), lambda F, g: g), formulas=("zeros_like(grad)", "grad"),
    sympy=lambda sp, a, b: np.array(np.broadcast_to(np.asarray(b, dtype=object),
                                                    broadcast(np.shape(a), np.shape(b)))),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (3,)), rng.uniform(-1, 1, (3,))), {}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (3,))), {}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, ())), {})),
)


def _recorded(op, self: Tensor, other) -> Tensor:
    """The op's result; no graph into an integer or bool tensor (it cannot require grad), and
    the gradient to a tensor of another dtype cast back to it (float64 src into float32)."""
    if self._data.dtype.kind not in "fc":
        with no_grad():
            return apply(op, (self, other))
    result = apply(op, (self, other))
    if result.grad_fn is not None:
        _note_input_dtypes(result.grad_fn, (self, other), result._data.dtype)
    return result


def fill(self: Tensor, value) -> Tensor:
    """`self` filled with `value` (a number or a 0-d tensor), out of place: what fill_ writes."""
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise ShapeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                             f"{value._data.ndim} dimensions.")
        return _recorded(fill_tensor, self, value)
    if isinstance(value, bool):
        value = int(value)
    value = dtypes.checked_value(value, self._data.dtype, self._data.size)
    if self._data.dtype.kind not in "fc":
        with no_grad():
            return apply(fill_scalar, (self,), {"value": value})
    return apply(fill_scalar, (self,), {"value": value})


def copy(self: Tensor, src) -> Tensor:
    """`src` broadcast to `self`'s shape and cast to its dtype, out of place: what copy_ writes."""
    return _recorded(copy_into, self, src)
