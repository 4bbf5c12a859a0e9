"""Dtype conversion: .to(dtype) .type(dtype) .float() .double() .half() .long() .int()
.short() .char() .byte() .bool() and .to(other_tensor).

A conversion to the tensor's own dtype returns the tensor itself; any other is a
copy, recorded as ToCopyBackward0 (whose gradient is cast back to the input's
dtype) when the result is floating, as PyTorch records it. An integer or bool
result never requires grad.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from .._tensor import Tensor, no_grad
from ..errors import ProgramTypeError
from .domains import cases
from .apply import apply
from .registry import METHODS, defop, export, LINEAR


def _to_copy(self, dtype, source):
    return dtypes.cast(self, dtype)


to_copy = defop(
    "_to_copy", "ToCopyBackward0", _to_copy, public=False,
    rules=(lambda F, g, source: F._to_copy(g, source, None),),
    formulas=("grad.to(self.dtype)",),
    sympy=lambda sp, a, dtype, source: a,
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (3,)),), {"dtype": np.dtype(np.float64),
                                                            "source": np.dtype(np.float64)})), tangent=LINEAR,
)


def convert(self: Tensor, dtype) -> Tensor:
    """`self` as `dtype`: itself when it already is, else a copy."""
    target = dtypes.resolve(dtype)
    if target.np == self._data.dtype:
        return self
    if not target.is_floating_point:
        with no_grad():
            return apply(to_copy, (self,), {"dtype": target.np, "source": self._data.dtype})
    return apply(to_copy, (self,), {"dtype": target.np, "source": self._data.dtype})


def to(self, *args, **kwargs) -> Tensor:
    """`.to(dtype)`, `.to(other)` (other's dtype), `.to(device)` (ignored: there is only the CPU)."""
    dtype = kwargs.get("dtype")
    for arg in args:
        if isinstance(arg, Tensor):
            dtype = arg.dtype
        elif isinstance(arg, (dtypes.dtype, dtypes.Unsupported)) or arg in (float, int, bool):
            dtype = arg
        elif not isinstance(arg, str) and arg is not None:
            raise ProgramTypeError(f"to() received an invalid combination of arguments: {type(arg).__name__}")
    if "other" in kwargs:
        dtype = kwargs["other"].dtype
    return self if dtype is None else convert(self, dtype)


_LEGACY = {"torch." + d.legacy + "Tensor": d for d in dtypes.ALL}


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """`.type()`: the legacy name (torch.FloatTensor); `.type(dtype)`: a conversion."""
    if dtype is None:
        return "torch." + self.dtype.legacy + "Tensor"
    if isinstance(dtype, str) and dtype in _LEGACY:
        dtype = _LEGACY[dtype]
    return convert(self, dtype)


def _method(target):
    def method(self, memory_format=None):
        return convert(self, target)
    method.__doc__ = f"This tensor as {target!r} (itself if it already is)."
    return method


for _name, _target in (("float", dtypes.float32), ("double", dtypes.float64), ("half", dtypes.float16),
                       ("long", dtypes.int64), ("int", dtypes.int32), ("short", dtypes.int16),
                       ("char", dtypes.int8), ("byte", dtypes.uint8), ("bool", dtypes.bool_)):
    _fn = _method(_target)
    _fn.__name__ = _fn.__qualname__ = _name
    METHODS[_name] = _fn
for _name, _fn in (("to", to), ("type", type_)):
    METHODS[_name] = _fn


# -- torch.* functions about dtypes ---------------------------------------------------------


def is_floating_point(input) -> bool:
    if not isinstance(input, Tensor):
        raise ProgramTypeError(f"is_floating_point(): argument 'input' (position 1) must be Tensor, not "
                               f"{type(input).__name__}")
    return input.is_floating_point()


def _legacy_constructor(name, target):
    """`torch.FloatTensor(data)` or `torch.FloatTensor(2, 3)` (sizes: zeros here); `torch.Tensor`
    is the default dtype's."""
    def construct(*args, requires_grad=False):
        from .factories import new_tensor as tensor, zeros

        d = dtypes.get_default_dtype() if target is None else target
        if len(args) == 1 and not isinstance(args[0], (int, float, bool)) or not args:
            return tensor(args[0] if args else [], dtype=d, requires_grad=requires_grad)
        for a in args:
            if not isinstance(a, int) or isinstance(a, bool):
                raise ProgramTypeError(f"new(): argument 'size' must be tuple of ints, but found element of "
                                       f"type {type(a).__name__}")
        return zeros(*args, dtype=d, requires_grad=requires_grad)
    construct.__name__ = construct.__qualname__ = name
    return construct


for _name, _fn in (("is_floating_point", is_floating_point), ("result_type", dtypes.result_type),
                   ("promote_types", dtypes.promote_types), ("can_cast", dtypes.can_cast),
                   ("set_default_dtype", dtypes.set_default_dtype),
                   ("get_default_dtype", dtypes.get_default_dtype),
                   ("finfo", dtypes.finfo), ("iinfo", dtypes.iinfo)):
    export(_name, _fn, method=False)
export("Tensor", _legacy_constructor("Tensor", None), method=False)
for _d in dtypes.ALL:
    export(_d.legacy + "Tensor", _legacy_constructor(_d.legacy + "Tensor", _d), method=False)
