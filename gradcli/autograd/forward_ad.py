"""torch.autograd.forward_ad: dual levels, make_dual, unpack_dual.

A thin layer over ops/dual.py, with PyTorch's checks and messages: one level
at a time (PyTorch's forward_ad does not nest; torch.func.jvp does, through the
same levels), a dual tensor is a view of its primal with a tangent of its size.
"""
from __future__ import annotations

from ..errors import AutogradError, ProgramTypeError, ProgramValueError
from .._tensor import Tensor, shape_str
from ..ops import dual

_OWN: list = []   # the levels this API entered (torch.func's are not its to see or exit)


class UnpackedDualTensor(tuple):
    """(primal, tangent), a named tuple as PyTorch's: `.primal`, `.tangent`, or by index."""

    __slots__ = ()

    def __new__(cls, primal, tangent):
        return tuple.__new__(cls, (primal, tangent))

    @property
    def primal(self):
        return self[0]

    @property
    def tangent(self):
        return self[1]

    def __repr__(self) -> str:
        return f"UnpackedDualTensor(primal={self[0]!r}, tangent={self[1]!r})"

    __str__ = __repr__


def enter_dual_level() -> int:
    """Enter a new level; PyTorch allows one at a time."""
    if _OWN:
        raise AutogradError("Nested forward mode AD is not supported at the moment")
    _OWN.append(dual.enter_level())
    return len(_OWN) - 1


def exit_dual_level(*, level=None) -> None:
    if not _OWN or level not in (None, len(_OWN) - 1):
        raise AutogradError("Trying to exit a forward AD level that was not the last one that was created. "
                            "This is not supported.")
    dual.exit_level(_OWN.pop())


class dual_level:
    """`with dual_level():` tangents live inside; every dual tensor loses its tangent at the exit."""

    __slots__ = ("_level",)

    def __enter__(self):
        self._level = enter_dual_level()
        return self._level

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def _level(level):
    if not _OWN:
        return None
    if level not in (None, 0):
        raise AutogradError(f"Trying to access a forward AD level ({level}) that does not exist")
    return _OWN[-1]


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` whose tangent is `tangent`, at the current level."""
    for name, value in (("tensor", tensor), ("tangent", tangent)):
        if not isinstance(value, Tensor):
            raise ProgramTypeError(f"make_dual(): argument '{name}' must be Tensor, not {type(value).__name__}")
    found = _level(level)
    if found is None:
        raise AutogradError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                            "enter_dual_level() first.")
    if tensor._data.dtype.kind not in "fc":
        raise ProgramValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if tangent._data.dtype.kind not in "fc":
        raise ProgramValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent._data.shape != tensor._data.shape:
        raise AutogradError("Trying to set a forward gradient that has a different size than that of the "
                            f"original Tensor, this is not supported. Tensor is of size "
                            f"{shape_str(tensor._data.shape)} while the given forward gradient is of size "
                            f"{shape_str(tangent._data.shape)}.")
    return dual_view(tensor, tangent, found)


def dual_view(tensor: Tensor, tangent: Tensor, level) -> Tensor:
    """A view of `tensor` (its gradient flows back to it) with `tangent` at `level`."""
    from .. import ops

    depth = dual.ACTIVE[0]
    dual.ACTIVE[0] = level.index   # the view takes no tangent of its own at this level or inner ones
    try:
        view = ops.FUNCTIONS["reshape"](tensor, tensor._data.shape)
    finally:
        dual.ACTIVE[0] = depth
    if tangent._data.dtype != tensor._data.dtype:
        tangent = ops.FUNCTIONS["to"](tangent, tensor.dtype)
    level.set(view, tangent)
    return view


def unpack_dual(tensor, *, level=None) -> UnpackedDualTensor:
    """(a view of the primal without the tangent, the tangent or None)."""
    if not isinstance(tensor, Tensor):
        raise ProgramTypeError(f"unpack_dual(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")
    found = _level(level)
    if found is None:
        return UnpackedDualTensor(tensor, None)
    tangent = found.get(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(primal_view(tensor, found), tangent)


def primal_view(tensor: Tensor, level) -> Tensor:
    """A view of `tensor` without its tangent at `level` (outer levels' tangents kept)."""
    from .. import ops

    depth = dual.ACTIVE[0]
    dual.ACTIVE[0] = level.index
    try:
        return ops.FUNCTIONS["reshape"](tensor, tensor._data.shape)
    finally:
        dual.ACTIVE[0] = depth


NAMESPACE = {
    "dual_level": dual_level, "make_dual": make_dual, "unpack_dual": unpack_dual,
    "enter_dual_level": enter_dual_level, "exit_dual_level": exit_dual_level,
    "UnpackedDualTensor": UnpackedDualTensor,
}
