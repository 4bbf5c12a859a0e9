"""Arithmetic: + - * / ** and negation, with PyTorch's node names for each form.

A number on either side of a binary op is an input that needs no gradient
(edge `(None, 0)`, second); `1 - a` and `2 ** a` are their own nodes
(RsubBackward1, PowBackward2) with one edge, as in PyTorch.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from .domains import binary, cases, unary
from .._tensor import Tensor
from ..errors import ProgramError, ProgramValueError
from .apply import apply
from .registry import FUNCTIONS, METHODS, TENSORS, Op, defop, export, POINTWISE
from . import torch_loops
from .torch_ranges import fma

add = defop(
    "add", "AddBackward0", np.add, inputs=("self", "other"), broadcasts=True,
    rules=(lambda F, g: g, lambda F, g: g),
    formulas=("grad", "grad"),
    sympy=lambda sp, a, b: a + b, domain=binary(), tangent=POINTWISE,
)

sub = defop(
    "sub", "SubBackward0", np.subtract, inputs=("self", "other"), broadcasts=True,
    rules=(lambda F, g: g, lambda F, g: -g),
    formulas=("grad", "-grad"),
    sympy=lambda sp, a, b: a - b, domain=binary(), tangent=POINTWISE,
)


# -- add and sub with alpha= ------------------------------------------------------------

def _alpha_forward(sign: int):
    """self + sign * alpha * other as PyTorch's add kernel computes it: one fused multiply-add
    (`vec::fmadd`, and the compiler's contraction in the scalar loop) in float32 and float64,
    but for the scalar loop's tail where `other` is a broadcast number (its `alpha * other`
    rounded once, outside the loop: `torch_loops.hoisted`); in half, alpha is rounded to half,
    the vector loop's fma is in float, and the scalar loop rounds the product to half before
    the sum (`torch_loops.vector_body`)."""
    def forward(self, other, alpha):
        a = np.asarray(self)
        b = np.asarray(other)
        if b.dtype != a.dtype:   # a number: the tensor's dtype, as PyTorch wraps it
            b = dtypes.cast(b, a.dtype)
        alpha = sign * alpha
        if a.dtype.kind not in "f":
            with np.errstate(over="ignore"):
                return a + (alpha * b if a.dtype.kind != "b" else alpha * b.astype(np.int64))
        with np.errstate(over="ignore", invalid="ignore"):
            if a.dtype != np.float16:
                t = a.dtype.type
                fused = fma(b, t(alpha), a, a.dtype)
                lanes, width = (8, 4) if a.dtype == np.float32 else (4, 2)
                where = torch_loops.hoisted(fused.shape, (a, b), lanes, width)
                return fused if where is None else np.where(where, a + t(alpha) * b, fused)
            h = np.float32(dtypes.to_half(alpha))
            a32, b32 = a.astype(np.float32), b.astype(np.float32)
            fused = fma(b32, h, a32, np.float32).astype(np.float16)
            product = (h * b32).astype(np.float16).astype(np.float32)
            separate = (a32 + product).astype(np.float16)
        return np.where(torch_loops.vector_body(fused.shape, (a, b), 16), fused, separate)
    forward.__name__ = "add_alpha" if sign > 0 else "sub_alpha"
    return forward


def _alpha_cases(rng):
    shapes = (((3,), (3,)), ((2, 3), (3,)))
    return [((rng.uniform(-2, 2, sa), rng.uniform(-2, 2, sb)), {"alpha": 0.7}) for sa, sb in shapes] \
        + [((rng.uniform(-2, 2, (3,)), float(rng.uniform(-2, 2))), {"alpha": -1.5})]


add_alpha = defop(
    "add_alpha", "AddBackward0", _alpha_forward(1), inputs=("self", "other"), broadcasts=True, public=False,
    rules=(lambda F, g: g, lambda F, g, alpha: g * alpha),
    formulas=("grad", "grad * alpha"),
    sympy=lambda sp, a, b, alpha: a + alpha * b, domain=_alpha_cases, tangent=POINTWISE,
)
sub_alpha = defop(
    "sub_alpha", "SubBackward0", _alpha_forward(-1), inputs=("self", "other"), broadcasts=True, public=False,
    rules=(lambda F, g: g, lambda F, g, alpha: -g * alpha),
    formulas=("grad", "-grad * alpha"),
    sympy=lambda sp, a, b, alpha: a - alpha * b, domain=_alpha_cases, tangent=POINTWISE,
)


def _alpha_refused(input, other, alpha):
    """PyTorch's refusals of an alpha that the result's dtype cannot take."""
    result = dtypes.result_type(input, other)
    if isinstance(alpha, bool) and result is not dtypes.bool_:
        raise ProgramError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and not result.is_floating_point:
        raise ProgramError("For integral input tensors, argument alpha must not be a floating point number.")


def _with_alpha(op: Op, alpha_op: Op):
    """torch.add / torch.sub: `input + alpha * other` as one node (AddBackward0 saving alpha)."""
    plain = op.fn

    def fn(input, other, *, alpha=1, out=None):
        if isinstance(alpha, Tensor):
            alpha = alpha.item()
        if alpha.__class__ is int and alpha == 1:
            return plain(input, other)
        _alpha_refused(input, other, alpha)
        if not isinstance(input, Tensor):   # a number first: PyTorch's deprecated form
            return plain(input, TENSORS.mul(other, alpha))
        return apply(alpha_op, (input, other), {"alpha": alpha})
    fn.__name__ = fn.__qualname__ = op.name
    return fn


def _inplace_with_alpha(op: Op, fn):
    plain = op.fn

    def method(self, other, *, alpha=1):
        if alpha.__class__ is int and alpha == 1:   # `x += y`
            return self._inplace(plain, other)
        return self._inplace(lambda t, o: fn(t, o, alpha=alpha), other)
    method.__name__ = op.name + "_"
    return method


# torch.add and Tensor.add take alpha=; `x + y` (and the rules' F.add) stays the op's own function
for _op, _alpha_op in ((add, add_alpha), (sub, sub_alpha)):
    FUNCTIONS[_op.name] = METHODS[_op.name] = _public = _with_alpha(_op, _alpha_op)
    METHODS[_op.name + "_"] = _inplace_with_alpha(_op, _public)


def _rsub(self, other):
    return np.subtract(other, self)


rsub = defop(
    "rsub", "RsubBackward1", _rsub, inputs=("self",), public=False,
    rules=(lambda F, g: -g,),
    formulas=("-grad",),
    sympy=lambda sp, a, other: other - a,
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (3,)),), {"other": 1.5})), tangent=POINTWISE,
)

mul = defop(
    "mul", "MulBackward0", np.multiply, inputs=("self", "other"), broadcasts=True,
    rules=(lambda F, g, other: g * other, lambda F, g, self: g * self),
    formulas=("grad * other", "grad * self"),
    sympy=lambda sp, a, b: a * b, domain=binary(), tangent=POINTWISE,
)

div = defop(
    "div", "DivBackward0", np.true_divide, inputs=("self", "other"), broadcasts=True,
    rules=(lambda F, g, other: g / other, lambda F, g, self, other: -g * (self / other / other)),
    formulas=("grad / other", "-grad * ((self / other) / other)"),   # PyTorch's div_tensor_other_backward
    sympy=lambda sp, a, b: a / b, domain=binary(-2, 2, 0.5, 2), tangent=POINTWISE,
)

neg = defop(
    "neg", "NegBackward0", np.negative,
    rules=(lambda F, g: -g,), formulas=("-grad",),
    sympy=lambda sp, a: -a, domain=unary(), tangent=POINTWISE,
)


_MULTIPLIED = (np.dtype(np.float32), np.dtype(np.float64))


def _pow_scalar(self, exponent):
    # PyTorch's float and double kernels multiply for these exponents (x ** 3 is x * x * x,
    # two roundings, not pow's one)
    kind = self.dtype if self.__class__ is np.ndarray else None
    if exponent == 3 and kind in _MULTIPLIED:
        return self * self * self
    if exponent == -2 and kind in _MULTIPLIED:
        with np.errstate(divide="ignore", over="ignore"):
            return self.dtype.type(1) / (self * self)
    return np.power(self, exponent)


def _pow_scalar_grad(F, g, self, exponent):
    # PyTorch: the gradient of x ** 0 is 0 everywhere, even at x = 0.
    if exponent == 0:
        return g * 0.0
    return g * exponent * self ** (exponent - 1.0)


pow_scalar = defop(
    "pow", "PowBackward0", _pow_scalar, inputs=("self",), public=False,
    rules=(_pow_scalar_grad,),
    formulas=("grad * exponent * self ** (exponent - 1)",),
    sympy=lambda sp, a, exponent: a ** sp.nsimplify(exponent),
    domain=cases(*[
        (lambda e: lambda rng: ((rng.uniform(0.5, 2, shape),), {"exponent": e}))(e)
        for e, shape in ((2.0, (3,)), (3.0, ()), (0.5, (2, 3)), (-1.5, (3,)), (0.0, (3,)))
    ]), tangent=POINTWISE,
)


def _pow_tensor_exponent_grad(F, g, self, exponent, result):
    # PyTorch masks 0 ** y (y >= 0) to a zero gradient instead of the nan of log(0).
    return g * F.where((self == 0) & (exponent >= 0), 0.0, result * F.log(self))


pow_tensor = defop(
    "pow_tensor", "PowBackward1", np.power, inputs=("self", "exponent"), broadcasts=True, public=False,
    rules=(lambda F, g, self, exponent: g * exponent * self ** (exponent - 1.0),
           _pow_tensor_exponent_grad),
    formulas=("grad * exponent * self ** (exponent - 1)", "grad * result * log(self)"),
    sympy=lambda sp, a, b: a ** b, domain=binary(0.5, 2.0, -2.0, 2.0, scalar=False), tangent=POINTWISE,
)


def _rpow(exponent, base):
    return np.power(base, exponent)


def _rpow_grad(F, g, result, base):
    # PyTorch: 0 ** y has gradient 0 (not the nan of log(0)).
    if base == 0:
        return g * 0.0
    return g * result * float(np.log(base))


pow_scalar_base = defop(
    "rpow", "PowBackward2", _rpow, inputs=("exponent",), public=False,
    rules=(_rpow_grad,),
    formulas=("grad * result * log(base)",),
    sympy=lambda sp, b, base: sp.nsimplify(base) ** b,
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (3,)),), {"base": 2.0}),
                 lambda rng: ((rng.uniform(-2, 2, ()),), {"base": 0.5})), tangent=POINTWISE,
)


def _reciprocal_grad(F, g, result):
    return -g * result * result


reciprocal = defop(
    "reciprocal", "ReciprocalBackward0", np.reciprocal,
    rules=(_reciprocal_grad,), formulas=("-grad * result * result",),
    sympy=lambda sp, a: 1 / a, domain=unary(0.3, 2.0), tangent=POINTWISE,
)

square = defop(
    "square", "PowBackward0", np.square,
    rules=(lambda F, g, self: g * 2.0 * self,), formulas=("grad * 2 * self",),
    sympy=lambda sp, a: a ** 2, domain=unary(), tangent=POINTWISE,
)


# -- comparisons: boolean results, no gradient -------------------------------------

def _compare(name, ufunc):
    return defop(name, None, ufunc, inputs=("self", "other"), broadcasts=True)


lt = _compare("lt", np.less)
le = _compare("le", np.less_equal)
gt = _compare("gt", np.greater)
ge = _compare("ge", np.greater_equal)
eq = _compare("eq", np.equal)
ne = _compare("ne", np.not_equal)
logical_and = _compare("logical_and", np.logical_and)
logical_or = _compare("logical_or", np.logical_or)
logical_not = defop("logical_not", None, np.logical_not)


def pow(input, exponent):
    """input ** exponent: PowBackward0 for a number exponent, 1 for a tensor one, 2 for a number base."""
    if isinstance(exponent, Tensor):
        if isinstance(input, Tensor):
            return apply(pow_tensor, (input, exponent))
        return apply(pow_scalar_base, (exponent,), {"base": _number(input)})
    if isinstance(exponent, int) and exponent < 0 and isinstance(input, Tensor) and input._data.dtype.kind in "iu":
        raise ProgramValueError("Integers to negative integer powers are not allowed.")
    return apply(pow_scalar, (input,), {"exponent": _number(exponent)})


def _number(value):
    """A Python number as an op parameter: an int stays one (int ** 2 is int64, as PyTorch)."""
    return value if value.__class__ is int else float(value)


export("pow", pow, array=lambda input, exponent: np.power(input, exponent))


# The node PyTorch's AccumulateGrad leaves on a `.grad` stored under create_graph=True
# (it copies the incoming gradient): identity backward.
grad_copy = defop(
    "copy", "CopyBackwards", np.copy, public=False,
    rules=(lambda F, g: g,), formulas=("grad",),
    sympy=lambda sp, a: a, domain=unary(), tangent=POINTWISE,
)
