"""Every method and operator of the Tensor that comes from the ops, attached here, once.

The op modules record their methods in `METHODS` (`export(..., method=True)` and a
few methods PyTorch has only on the Tensor); `attach()` sets them on Tensor with
the Python operators and the in-place methods, in one place and one order, when
`gradcli.ops` has defined every op. `_tensor.py` is about the Tensor alone.

`a + 2` and `2 + a` both put the number second (`(a's, 0), (None, 0)`);
`1 - a` is RsubBackward1, `2 / a` is `reciprocal(a) * 2`, `2 ** a` is
PowBackward2: what PyTorch records for each form.
"""
from __future__ import annotations

from ..errors import ProgramTypeError
from .._tensor import Tensor
from ..graph.node_hooks import register_post_accumulate_grad_hook
from .registry import FUNCTIONS, METHODS, OPS, PROPERTIES, TENSORS
from .views import _check_inplace, _inplace, _rebase


def _radd(self, other):
    return TENSORS.add(self, other)


def _rmul(self, other):
    return TENSORS.mul(self, other)


def _rsub(self, other):
    return TENSORS.rsub(self, other)


def _rtruediv(self, other):
    return TENSORS.mul(TENSORS.reciprocal(self), other)


def _rfloordiv(self, other):
    return TENSORS.floor_divide(other, self)


def _rmod(self, other):
    return TENSORS.remainder(other, self)


def _rpow(self, other):
    return TENSORS.pow(other, self)


def _rmatmul(self, other):
    return TENSORS.matmul(other, self)


def _pos(self):
    return self


def _iter(self):
    if self._data.ndim == 0:
        raise ProgramTypeError("iteration over a 0-d tensor")
    return iter(TENSORS.unbind(self, 0))


# the op's own function, so that `x + y` makes one call
_FORWARD = {
    "__add__": "add", "__sub__": "sub", "__mul__": "mul", "__pow__": "pow",
    "__floordiv__": "floor_divide", "__mod__": "remainder",
    "__matmul__": "matmul", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
    "__eq__": "eq", "__ne__": "ne",
    "__abs__": "abs", "__neg__": "neg",
    "__getitem__": "getitem", "__setitem__": "setitem",
}
# the augmented assignments: the in-place methods themselves (`x += y` is `x.add_(y)`)
_AUGMENTED = {
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_",
    "__ifloordiv__": "floor_divide_", "__imod__": "remainder_", "__ipow__": "pow_",
}


def _inplace_method(name):
    op = getattr(TENSORS, name)

    def method(self, *args, **kwargs):
        return self._inplace(op, *args, **kwargs)

    method.__name__ = name + "_"
    return method


# PyTorch's in-place Tensor methods for the ops of the table (`x.exp_()`): each runs the op
# and writes the result into x, recorded under the op's own node name, as in PyTorch.
INPLACE = (
    "add sub mul div floor_divide remainder fmod pow atan2 neg abs sign exp exp2 expm1 log log2 log10 log1p sqrt rsqrt "
    "square reciprocal "
    "sin cos tan asin acos atan sinh cosh tanh sigmoid relu erf clamp_min clamp_max clip "
    "masked_fill tril triu cumsum cumprod"
).split()


def _imatmul(self, other):
    return self._inplace(TENSORS.matmul, other)


def _clamp_(self, min=None, max=None):
    return self._inplace(TENSORS.clamp, min, max)


for _name in INPLACE:
    if _name not in ("add", "sub"):   # arith.py's, with alpha=
        METHODS[_name + "_"] = _inplace_method(_name)
METHODS["clamp_"] = _clamp_
METHODS["register_post_accumulate_grad_hook"] = register_post_accumulate_grad_hook

# torch.sin_(x), torch.relu_(x), ...: the in-place methods PyTorch also has as functions
INPLACE_FUNCTIONS = (
    "neg_ abs_ exp_ expm1_ log_ log1p_ sqrt_ rsqrt_ square_ reciprocal_ sin_ cos_ tan_ asin_ "
    "acos_ atan_ sinh_ cosh_ tanh_ sigmoid_ relu_ erf_ clamp_min_ clamp_max_ clip_ clamp_ "
    "zero_ fill_"
).split()
for _name in INPLACE_FUNCTIONS:
    if _name not in FUNCTIONS:
        FUNCTIONS[_name] = METHODS[_name]


def attach() -> None:
    """Set every op method, operator and in-place method on Tensor (gradcli.ops calls it last)."""
    from .keywords import OUT_FUNCTIONS, keepdims, with_out

    for name, fn in list(METHODS.items()):
        METHODS[name] = keepdims(fn)
    for name, fn in list(FUNCTIONS.items()):
        FUNCTIONS[name] = with_out(name, fn) if name in OUT_FUNCTIONS else keepdims(fn)
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    for name, getter in PROPERTIES.items():
        setattr(Tensor, name, property(getter))
    # the engine's and the in-place machinery's own, never reachable by programs
    Tensor._check_inplace = _check_inplace
    Tensor._inplace = _inplace
    Tensor._rebase = _rebase
    Tensor._grad_copy = OPS["copy"].fn   # CopyBackwards: the engine's first .grad under create_graph
    for dunder, name in _FORWARD.items():
        setattr(Tensor, dunder, getattr(TENSORS, name))
    Tensor.__truediv__ = OPS["div"].fn   # the op itself: `div` is torch.div, with rounding_mode
    Tensor.__radd__ = _radd
    Tensor.__rfloordiv__ = _rfloordiv
    Tensor.__rmod__ = _rmod
    Tensor.__rmul__ = _rmul
    Tensor.__rsub__ = _rsub
    Tensor.__rtruediv__ = _rtruediv
    Tensor.__rpow__ = _rpow
    Tensor.__rmatmul__ = _rmatmul
    Tensor.__pos__ = _pos
    Tensor.__iter__ = _iter
    for dunder, name in _AUGMENTED.items():
        setattr(Tensor, dunder, getattr(Tensor, name))
    Tensor.__imatmul__ = _imatmul
    # the bitwise operators (ops/sampling.py's functions: no graph, as PyTorch's)
    for dunder in ("and", "or", "xor"):
        fn = FUNCTIONS["bitwise_" + dunder]
        setattr(Tensor, f"__{dunder}__", fn)
        setattr(Tensor, f"__r{dunder}__", lambda self, other, fn=fn: fn(other, self))
        setattr(Tensor, f"__i{dunder}__", lambda self, other, fn=fn: self._inplace(fn, other))
    Tensor.__invert__ = FUNCTIONS["bitwise_not"]
