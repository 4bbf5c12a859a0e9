"""Floor division, remainder and fmod (`//`, `%`), and `div`'s rounding modes.

What PyTorch records for each form:
- `a % b` is RemainderBackward1 (two edges), `a % 2` RemainderBackward0 (one edge);
  `torch.fmod` likewise FmodBackward1 / FmodBackward0. Their gradient is `grad` for the
  dividend and `-grad * (a / b rounded)` for a tensor divisor.
- `div(a, b, rounding_mode="floor"|"trunc")` is DivBackward2, with zero gradients.
- `a // b`, `a // 2`, `2 // a` and `2 % a` have no derivative in PyTorch: their node is
  `NotImplemented`, and reaching it in a backward is PyTorch's error.

Integers keep their dtype (`//` and `%` of int64 are int64), and an integer division by
zero is PyTorch's error rather than numpy's 0 and a warning.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..errors import AutogradError, ProgramError, ProgramTypeError
from .domains import elementwise_sympy, vectorize
from .apply import apply
from .registry import OPS, defop, export, POINTWISE


def _integral(a, b) -> bool:
    """Whether `a op b` is integer arithmetic (both operands integers after promotion)."""
    return np.result_type(a, b).kind in "iu"


def _checked(fn):
    """`fn(a, b)` with PyTorch's error for an integer divisor of zero."""
    def forward(a, b):
        if _integral(a, b):
            if np.any(np.asarray(b) == 0):
                raise ProgramError("ZeroDivisionError")
            with np.errstate(over="ignore"):   # INT64_MIN // -1 wraps, as in PyTorch
                return fn(a, b)
        with np.errstate(divide="ignore", invalid="ignore"):   # floats: inf and nan, as in PyTorch
            return fn(a, b)
    forward.__name__ = fn.__name__
    return forward


def _trunc_divide(a, b):
    if _integral(a, b):
        q = np.floor_divide(a, b)
        # round toward zero: one more where the signs differ and the division is not exact
        return q + ((np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0)))
    return np.trunc(np.true_divide(a, b))


_floor_divide = _checked(np.floor_divide)
_remainder = _checked(np.remainder)
_fmod = _checked(np.fmod)
_trunc = _checked(_trunc_divide)


_NO_DERIVATIVE_HINT = {
    "floor_divide": "PyTorch gives `//` no derivative: torch.div(a, b, rounding_mode='floor') has a zero "
                    "one, or compute it on a.detach()",
    "remainder": "PyTorch gives `number % tensor` no derivative: compute it on the tensor's .detach()",
}


def _not_implemented(aten: str):
    """The rule of a `NotImplemented` node: PyTorch's error when backward reaches it."""
    def rule(F, g):
        raise AutogradError(f"derivative for aten::{aten} is not implemented", hint=_NO_DERIVATIVE_HINT[aten])
    return rule


def _sympy_trunc(sp, e):
    return sp.Piecewise((sp.floor(e), e >= 0), (sp.ceiling(e), True))


def _away_from_jumps(rng):
    """Operands whose quotient stays 0.15 or more from an integer (remainder jumps there):
    tensor pairs (broadcasting ones too), then a tensor with a number."""
    out = []
    for sa, sb in (((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), ())):
        b = rng.choice([-1.0, 1.0], size=sb) * rng.uniform(1.2, 2.0, size=sb)
        q = rng.uniform(-2.9, 2.9, size=sa)
        q = np.floor(q) + np.clip(q - np.floor(q), 0.15, 0.85)
        out.append((np.asarray(q * b), np.asarray(b)))
    numbers = []
    for shape, other in (((3,), 1.7), ((), -1.3), ((2, 3), 0.9)):
        q = rng.uniform(-2.9, 2.9, size=shape)
        q = np.floor(q) + np.clip(q - np.floor(q), 0.15, 0.85)
        numbers.append(((np.asarray(q * other),), {"other": other}))
    return [((a, b), {}) for a, b in out] + numbers


def _pairs(rng):
    return [case for case in _away_from_jumps(rng) if len(case[0]) == 2]


def _with_number(rng):
    return [case for case in _away_from_jumps(rng) if len(case[0]) == 1]


def _remainder_other(F, g, self, other):
    return -g * F.div_floor(self, other)


def _fmod_other(F, g, self, other):
    return -g * F.div_trunc(self, other)


def _identity(F, g):
    return g


def _zero(F, g):
    return g * 0.0


remainder = defop(
    "remainder", "RemainderBackward1", _remainder, inputs=("self", "other"), broadcasts=True,
    public=False, rules=(_identity, _remainder_other),
    formulas=("grad", "-grad * div(self, other, rounding_mode='floor')"),
    sympy=elementwise_sympy(lambda sp, x, y: x - y * sp.floor(x / y)),
    domain=_pairs, tangent=POINTWISE,
)
remainder_scalar = defop(
    "remainder_scalar", "RemainderBackward0", lambda self, other: _remainder(self, other),
    public=False, rules=(_identity,), formulas=("grad",),
    sympy=lambda sp, a, other: vectorize(lambda x: x - other * sp.floor(x / other))(a),
    domain=_with_number, tangent=POINTWISE,
)
fmod = defop(
    "fmod", "FmodBackward1", _fmod, inputs=("self", "other"), broadcasts=True,
    public=False, rules=(_identity, _fmod_other),
    formulas=("grad", "-grad * div(self, other, rounding_mode='trunc')"),
    sympy=elementwise_sympy(lambda sp, x, y: x - y * _sympy_trunc(sp, x / y)),
    domain=_pairs, tangent=POINTWISE,
)
fmod_scalar = defop(
    "fmod_scalar", "FmodBackward0", lambda self, other: _fmod(self, other),
    public=False, rules=(_identity,), formulas=("grad",),
    sympy=lambda sp, a, other: vectorize(lambda x: x - other * _sympy_trunc(sp, x / other))(a),
    domain=_with_number, tangent=POINTWISE,
)
div_floor = defop(
    "div_floor", "DivBackward2", _floor_divide, inputs=("self", "other"), broadcasts=True,
    public=False, rules=(_zero, _zero), formulas=("zeros_like(grad)", "zeros_like(grad)"),
    sympy=elementwise_sympy(lambda sp, x, y: sp.floor(x / y)),
    domain=_pairs, tangent=POINTWISE,
)
div_trunc = defop(
    "div_trunc", "DivBackward2", _trunc, inputs=("self", "other"), broadcasts=True,
    public=False, rules=(_zero, _zero), formulas=("zeros_like(grad)", "zeros_like(grad)"),
    sympy=elementwise_sympy(lambda sp, x, y: _sympy_trunc(sp, x / y)),
    domain=_pairs, tangent=POINTWISE,
)
# no derivative in PyTorch: a NotImplemented node, whose backward is PyTorch's error
floor_divide_tensor = defop(
    "floor_divide", "NotImplemented", _floor_divide, inputs=("self", "other"), broadcasts=True,
    public=False, rules=(_not_implemented("floor_divide"),) * 2, formulas=("not implemented",) * 2,
)
floor_divide_scalar = defop(
    "floor_divide_scalar", "NotImplemented", lambda self, other: _floor_divide(self, other),
    public=False, rules=(_not_implemented("floor_divide"),), formulas=("not implemented",),
)
rfloor_divide = defop(
    "rfloor_divide", "NotImplemented", lambda self, other: _floor_divide(other, self),
    public=False, rules=(_not_implemented("floor_divide"),), formulas=("not implemented",),
)
rremainder = defop(
    "rremainder", "NotImplemented", lambda self, other: _remainder(other, self),
    public=False, rules=(_not_implemented("remainder"),), formulas=("not implemented",),
)

NOT_IMPLEMENTED = (floor_divide_tensor, floor_divide_scalar, rfloor_divide, rremainder)


def _number(value):
    """A Python (or numpy) number as an op parameter: an int stays one, as in `arith.pow`."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return float(value)


def _binary(tensor_op, scalar_op, reversed_op=None):
    """The public function of a binary op: the tensor-tensor, tensor-number or
    number-tensor node, as PyTorch picks it from its operands."""
    def fn(input, other):
        if isinstance(other, Tensor):
            if isinstance(input, Tensor):
                return apply(tensor_op, (input, other))
            if reversed_op is None:
                raise ProgramTypeError(f"{tensor_op.name}(): argument 'input' (position 1) must be Tensor, "
                                        f"not {type(input).__name__}")
            return apply(reversed_op, (other,), {"other": _number(input)})
        return apply(scalar_op, (input,), {"other": _number(other)})
    fn.__name__ = fn.__qualname__ = tensor_op.name
    return fn


floor_divide = export("floor_divide", _binary(floor_divide_tensor, floor_divide_scalar, rfloor_divide),
                      array=lambda input, other: _floor_divide(input, other))
remainder_fn = export("remainder", _binary(remainder, remainder_scalar, rremainder),
                      array=lambda input, other: _remainder(input, other))
fmod_fn = export("fmod", _binary(fmod, fmod_scalar), array=lambda input, other: _fmod(input, other))

_true_divide = OPS["div"].fn


def div(input, other, *, rounding_mode=None):
    """`torch.div`: true division, or rounded with `rounding_mode="floor"|"trunc"` (DivBackward2)."""
    if rounding_mode is None:
        return _true_divide(input, other)
    if rounding_mode == "floor":
        return apply(div_floor, (input, other))
    if rounding_mode == "trunc":
        return apply(div_trunc, (input, other))
    raise ProgramError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                       f"'{rounding_mode}'")


export("div", div, array=lambda input, other, rounding_mode=None: (
    np.true_divide(input, other) if rounding_mode is None else
    _floor_divide(input, other) if rounding_mode == "floor" else _trunc(input, other)))
export("divide", div)
export("true_divide", _true_divide)
