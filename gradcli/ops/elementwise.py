"""Elementwise functions of one tensor, and the rounding functions (round, floor,
ceil, trunc, frac).

Rules reuse `result` where that is cheaper (`exp: grad * result`), as PyTorch's
derivatives.yaml does. Conventions at kinks are PyTorch's and written where
they are made: abs'(0) = 0, relu'(0) = 0, sqrt'(0) = inf.
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import as_int
from .domains import unary, vectorize
from .apply import apply
from .registry import TENSORS, defop, export, POINTWISE
from . import costs, torch_math

_SQRT_PI = math.sqrt(math.pi)


def _erf(x):
    """erf on arrays, without SciPy: math.erf elementwise (exact to the last bit)."""
    x = np.asarray(x, dtype=np.float64)
    return np.vectorize(math.erf, otypes=[np.float64])(x) if x.ndim else np.asarray(math.erf(float(x)))


def _sigmoid(x):
    if x.__class__ is np.ndarray and x.dtype == np.float32:
        return torch_math.sigmoid32(x)   # PyTorch's float32 formula
    # exp of a negative argument only: no overflow warning for large |x|
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _softplus(x, beta=1.0, threshold=20.0):
    if x.__class__ is np.ndarray and x.dtype == np.float32:
        return torch_math.softplus32(x, beta, threshold)   # PyTorch's float32 formula
    bx = np.multiply(x, beta)
    return np.where(bx > threshold, x, np.logaddexp(0.0, bx) / beta)


def _relu(x):
    return np.maximum(x, 0)   # an int stays an int


def _rsqrt(x):
    return 1.0 / np.sqrt(x)


def _sign(x):
    return np.sign(x)


exp = defop("exp", "ExpBackward0", torch_math.exp,
            rules=(lambda F, g, result: g * result,), formulas=("grad * result",),
            sympy=lambda sp, x: vectorize(sp.exp)(x), domain=unary(), tangent=POINTWISE)

log = defop("log", "LogBackward0", torch_math.log,
            rules=(lambda F, g, self: g / self,), formulas=("grad / self",),
            sympy=lambda sp, x: vectorize(sp.log)(x), domain=unary(0.2, 3.0), tangent=POINTWISE)

# PyTorch's formulas multiply by ln 2 and ln 10 as doubles (M_LN2, M_LN10)
LN2, LN10 = 0.6931471805599453, 2.302585092994046
log2 = defop("log2", "Log2Backward0", torch_math.log2,
             rules=(lambda F, g, self: g / (self * LN2),), formulas=("grad / (self * 0.6931471805599453)",),
             sympy=lambda sp, x: vectorize(lambda e: sp.log(e, 2))(x), domain=unary(0.2, 3.0), tangent=POINTWISE)
log10 = defop("log10", "Log10Backward0", torch_math.log10,
              rules=(lambda F, g, self: g / (self * LN10),), formulas=("grad / (self * 2.302585092994046)",),
              sympy=lambda sp, x: vectorize(lambda e: sp.log(e, 10))(x), domain=unary(0.2, 3.0), tangent=POINTWISE)
exp2 = defop("exp2", "Exp2Backward0", torch_math.exp2,
             rules=(lambda F, g, result: g * result * LN2,), formulas=("grad * result * 0.6931471805599453",),
             sympy=lambda sp, x: vectorize(lambda e: 2 ** e)(x), domain=unary(), tangent=POINTWISE)

log1p = defop("log1p", "Log1PBackward0", torch_math.log1p,
              rules=(lambda F, g, self: g / (self + 1.0),), formulas=("grad / (self + 1)",),
              sympy=lambda sp, x: vectorize(lambda e: sp.log(1 + e))(x), domain=unary(-0.8, 2.0), tangent=POINTWISE)

expm1 = defop("expm1", "Expm1Backward0", torch_math.expm1,
              rules=(lambda F, g, result: g * (result + 1.0),), formulas=("grad * (result + 1)",),
              sympy=lambda sp, x: vectorize(lambda e: sp.exp(e) - 1)(x), domain=unary(), tangent=POINTWISE)

sqrt = defop("sqrt", "SqrtBackward0", np.sqrt,
             rules=(lambda F, g, result: g / (2.0 * result),), formulas=("grad / (2 * result)",),
             sympy=lambda sp, x: vectorize(sp.sqrt)(x), domain=unary(0.2, 3.0), tangent=POINTWISE)

rsqrt = defop("rsqrt", "RsqrtBackward0", _rsqrt,
              rules=(lambda F, g, result: -0.5 * g * result * result * result,),
              formulas=("-0.5 * grad * result ** 3",),
              sympy=lambda sp, x: vectorize(lambda e: 1 / sp.sqrt(e))(x), domain=unary(0.2, 3.0), tangent=POINTWISE)

sin = defop("sin", "SinBackward0", torch_math.sin,
            rules=(lambda F, g, self: g * F.cos(self),), formulas=("grad * cos(self)",),
            sympy=lambda sp, x: vectorize(sp.sin)(x), domain=unary(-3.0, 3.0), tangent=POINTWISE)

cos = defop("cos", "CosBackward0", torch_math.cos,
            rules=(lambda F, g, self: -g * F.sin(self),), formulas=("-grad * sin(self)",),
            sympy=lambda sp, x: vectorize(sp.cos)(x), domain=unary(-3.0, 3.0), tangent=POINTWISE)

tan = defop("tan", "TanBackward0", torch_math.tan,
            rules=(lambda F, g, result: g * (1.0 + result * result),),
            formulas=("grad * (1 + result ** 2)",),
            sympy=lambda sp, x: vectorize(sp.tan)(x), domain=unary(-1.2, 1.2), tangent=POINTWISE)

asin = defop("asin", "AsinBackward0", torch_math.asin,
             rules=(lambda F, g, self: g * F.rsqrt(1.0 - self * self),),
             formulas=("grad / sqrt(1 - self ** 2)",),
             sympy=lambda sp, x: vectorize(sp.asin)(x), domain=unary(-0.9, 0.9), tangent=POINTWISE)

acos = defop("acos", "AcosBackward0", torch_math.acos,
             rules=(lambda F, g, self: -g * F.rsqrt(1.0 - self * self),),
             formulas=("-grad / sqrt(1 - self ** 2)",),
             sympy=lambda sp, x: vectorize(sp.acos)(x), domain=unary(-0.9, 0.9), tangent=POINTWISE)

atan = defop("atan", "AtanBackward0", torch_math.atan,
             rules=(lambda F, g, self: g / (1.0 + self * self),),
             formulas=("grad / (1 + self ** 2)",),
             sympy=lambda sp, x: vectorize(sp.atan)(x), domain=unary(-3.0, 3.0), tangent=POINTWISE)

sinh = defop("sinh", "SinhBackward0", torch_math.sinh,
             rules=(lambda F, g, self: g * F.cosh(self),), formulas=("grad * cosh(self)",),
             sympy=lambda sp, x: vectorize(sp.sinh)(x), domain=unary(), tangent=POINTWISE)

cosh = defop("cosh", "CoshBackward0", torch_math.cosh,
             rules=(lambda F, g, self: g * F.sinh(self),), formulas=("grad * sinh(self)",),
             sympy=lambda sp, x: vectorize(sp.cosh)(x), domain=unary(), tangent=POINTWISE)

tanh = defop("tanh", "TanhBackward0", torch_math.tanh,
             rules=(lambda F, g, result: g * (1.0 - result * result),),
             formulas=("grad * (1 - result ** 2)",),
             sympy=lambda sp, x: vectorize(sp.tanh)(x), domain=unary(), tangent=POINTWISE)

sigmoid = defop("sigmoid", "SigmoidBackward0", _sigmoid, cost=costs.kernel_exp,
                rules=(lambda F, g, result: g * result * (1.0 - result),),
                formulas=("grad * result * (1 - result)",),
                sympy=lambda sp, x: vectorize(lambda e: 1 / (1 + sp.exp(-e)))(x), domain=unary(-3, 3), tangent=POINTWISE)

# relu'(0) = 0: the gradient flows only where the result is positive.
relu = defop("relu", "ReluBackward0", _relu,
             rules=(lambda F, g, result: F.where(result > 0, g, 0.0),),
             formulas=("grad * (result > 0)",),
             sympy=lambda sp, x: vectorize(lambda e: sp.Max(e, 0))(x), domain=unary(avoid=0.0), tangent=POINTWISE)


def _softplus_grad(F, g, self, beta, threshold):
    z = F.exp(self * beta)
    return F.where(self * beta > threshold, g, g * z / (z + 1.0))


softplus = defop("softplus", "SoftplusBackward0", _softplus,
                 rules=(_softplus_grad,),
                 formulas=("grad * sigmoid(beta * self) (grad where beta * self > threshold)",),
                 sympy=lambda sp, x, beta=1.0, threshold=20.0: vectorize(
                     lambda e: sp.log(1 + sp.exp(beta * e)) / beta)(x),
                 domain=unary(-3, 3), tangent=POINTWISE)

# abs'(0) = 0, as sign(0) = 0.
abs_ = defop("abs", "AbsBackward0", np.abs,
             rules=(lambda F, g, self: g * F.sign(self),), formulas=("grad * sign(self)",),
             sympy=lambda sp, x: vectorize(sp.Abs)(x), domain=unary(avoid=0.0), tangent=POINTWISE)

sign = defop("sign", "SignBackward0", _sign,
             rules=(lambda F, g: g * 0.0,), formulas=("0",),
             sympy=lambda sp, x: vectorize(sp.sign)(x), domain=unary(avoid=0.0), tangent=POINTWISE)

erf = defop("erf", "ErfBackward0", _erf,
            rules=(lambda F, g, self: g * (2.0 / _SQRT_PI) * F.exp(-(self * self)),),
            formulas=("grad * 2 / sqrt(pi) * exp(-self ** 2)",),
            sympy=lambda sp, x: vectorize(sp.erf)(x), domain=unary(), tangent=POINTWISE)


# -- rounding: flat between the jumps ------------------------------------------------
#
# PyTorch's derivative of round, floor, ceil and trunc is zeros_like(grad)
# everywhere (the jumps included); the rule `grad * 0` is itself an op, so a
# second derivative is a graph of zeros too. frac = self - trunc(self) has
# gradient 1.


def _off_jumps(jumps):
    """A unary domain kept 0.1 away from the points where `jumps(x)` says a value jumps."""
    def make(rng):
        out = []
        for (x,), params in unary(-2.7, 2.7)(rng):
            near = jumps(x)
            out.append(((np.where(np.abs(x - near) < 0.1, near + 0.3, x),), params))
        return out
    return make


_integers = _off_jumps(np.round)
_halves = _off_jumps(lambda x: np.floor(x) + 0.5)


def _round(self, decimals=0):
    # PyTorch's formula: scale, round half to even, unscale (a division by 10 ** -decimals
    # for negative decimals, as multiplying by 0.1 would round differently)
    if decimals == 0:
        return np.rint(self)
    if decimals > 0:
        scale = 10.0 ** decimals
        return np.rint(np.multiply(self, scale)) / scale
    scale = 10.0 ** -decimals
    return np.rint(np.divide(self, scale)) * scale


def _zero_rule(F, g):
    return g * 0.0


def _round_sympy(sp, x, decimals=0):
    scale = sp.Integer(10) ** decimals
    return vectorize(lambda e: sp.floor(e * scale + sp.Rational(1, 2)) / scale)(x)


round_ = defop("round", "RoundBackward0", np.rint, public=False,
               rules=(_zero_rule,), formulas=("zeros_like(grad)",),
               sympy=lambda sp, x: _round_sympy(sp, x), domain=_halves, tangent=POINTWISE)

round_decimals = defop(
    "round_decimals", "RoundBackward1", _round, public=False,
    rules=(_zero_rule,), formulas=("zeros_like(grad)",),
    sympy=_round_sympy,
    domain=lambda rng: [((np.where(np.abs(x * 10 - np.floor(x * 10) - 0.5) < 0.1, x + 0.03, x),),
                         {"decimals": 1}) for (x,), _ in unary()(rng)], tangent=POINTWISE,
)


def round(input, *, decimals=0):
    """Round half to even, to `decimals` places (RoundBackward0; RoundBackward1 with decimals)."""
    decimals = as_int(decimals, "decimals")
    if decimals == 0:
        return apply(round_, (input,))
    return apply(round_decimals, (input,), {"decimals": decimals})


export("round", round, array=lambda input, decimals=0: _round(input, decimals))

floor = defop("floor", "FloorBackward0", np.floor,
              rules=(_zero_rule,), formulas=("zeros_like(grad)",),
              sympy=lambda sp, x: vectorize(sp.floor)(x), domain=_integers, tangent=POINTWISE)

ceil = defop("ceil", "CeilBackward0", np.ceil,
             rules=(_zero_rule,), formulas=("zeros_like(grad)",),
             sympy=lambda sp, x: vectorize(sp.ceiling)(x), domain=_integers, tangent=POINTWISE)


def _trunc_sympy(sp, e):
    return sp.Piecewise((sp.floor(e), e >= 0), (sp.ceiling(e), True))


trunc = defop("trunc", "TruncBackward0", np.trunc,
              rules=(_zero_rule,), formulas=("zeros_like(grad)",),
              sympy=lambda sp, x: vectorize(lambda e: _trunc_sympy(sp, e))(x), domain=_integers, tangent=POINTWISE)


def _frac(self):
    return np.subtract(self, np.trunc(self))


frac = defop("frac", "FracBackward0", _frac,
             rules=(lambda F, g: g,), formulas=("grad",),
             sympy=lambda sp, x: vectorize(lambda e: e - _trunc_sympy(sp, e))(x), domain=_integers, tangent=POINTWISE)
export("fix", TENSORS.trunc)
