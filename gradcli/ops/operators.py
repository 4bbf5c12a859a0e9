"""Python's operators and the in-place methods on Tensor, in terms of the ops.

`a + 2` and `2 + a` both put the number second (`(a's, 0), (None, 0)`);
`1 - a` is RsubBackward1, `2 / a` is `reciprocal(a) * 2`, `2 ** a` is
PowBackward2: what PyTorch records for each form.
"""
from __future__ import annotations

from .._tensor import Tensor
from . import arith
from .registry import FUNCTIONS, METHODS


def _fn(name):
    return FUNCTIONS[name]


def _radd(self, other):
    return arith.add.fn(self, other)


def _rmul(self, other):
    return arith.mul.fn(self, other)


def _rsub(self, other):
    return arith.rsub_(self, other)


def _rtruediv(self, other):
    return arith.mul.fn(arith.reciprocal.fn(self), other)


def _rpow(self, other):
    return arith.pow(other, self)


def _pos(self):
    return self


_BINARY = {
    "__add__": "add", "__sub__": "sub", "__mul__": "mul", "__truediv__": "div", "__pow__": "pow",
    "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__eq__": "eq", "__ne__": "ne",
    "__and__": "logical_and", "__or__": "logical_or",
}
for dunder, name in _BINARY.items():
    setattr(Tensor, dunder, FUNCTIONS[name])
for dunder, name in {"__matmul__": "matmul", "__rmatmul__": None, "__getitem__": "getitem",
                     "__setitem__": "setitem", "__abs__": "abs", "__neg__": "neg",
                     "__invert__": "logical_not"}.items():
    if name in FUNCTIONS:
        setattr(Tensor, dunder, FUNCTIONS[name])
if "matmul" in FUNCTIONS:
    Tensor.__rmatmul__ = lambda self, other: FUNCTIONS["matmul"](other, self)
Tensor.__radd__ = _radd
Tensor.__rmul__ = _rmul
Tensor.__rsub__ = _rsub
Tensor.__rtruediv__ = _rtruediv
Tensor.__rpow__ = _rpow
Tensor.__pos__ = _pos
Tensor.__hash__ = object.__hash__


def _inplace_method(name):
    op = FUNCTIONS[name]

    def method(self, *args, **kwargs):
        return self._inplace(op, *args, **kwargs)

    method.__name__ = name + "_"
    return method


# PyTorch's in-place Tensor methods for the ops of the table (`x.exp_()`): each runs the op
# and writes the result into x, recorded under the op's own node name, as in PyTorch.
INPLACE = (
    "add sub mul div pow atan2 neg abs sign exp expm1 log log1p sqrt rsqrt square reciprocal "
    "sin cos tan asin acos atan sinh cosh tanh sigmoid relu erf clamp_min clamp_max clip "
    "masked_fill tril triu cumsum cumprod"
).split()
for name in INPLACE:
    if name in FUNCTIONS:
        method = _inplace_method(name)
        setattr(Tensor, name + "_", method)
        METHODS[name + "_"] = method
Tensor.__iadd__ = Tensor.add_
Tensor.__isub__ = Tensor.sub_
Tensor.__imul__ = Tensor.mul_
Tensor.__itruediv__ = Tensor.div_
Tensor.__ipow__ = Tensor.pow_
if "clamp" in FUNCTIONS:
    Tensor.clamp_ = lambda self, min=None, max=None: self._inplace(FUNCTIONS["clamp"], min, max)
    METHODS["clamp_"] = Tensor.clamp_
if "matmul" in FUNCTIONS:
    Tensor.__imatmul__ = lambda self, other: self._inplace(FUNCTIONS["matmul"], other)
