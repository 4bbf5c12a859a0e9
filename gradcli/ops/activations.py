"""More activations: F.selu, celu, mish, hardswish, hardsigmoid, glu and threshold as ops with
PyTorch's node names, and relu6, softmin, tanhshrink and cosine_similarity composed as
PyTorch composes them.

At a kink the gradient is the side PyTorch's kernel takes (written beside each rule).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import ProgramValueError, ShapeError
from .._tensor import as_int
from .domains import unary, vectorize
from .registry import TENSORS, apply, defop, export

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _f64(x):
    return np.asarray(x, dtype=np.float64) if np.asarray(x).dtype != object else np.asarray(x)


def _floating(x):
    """x as the float array PyTorch computes in: float32 and float64 as they are (half arrives
    as float32, `dtypes.half_opmath`), anything else as float64."""
    x = np.asarray(x)
    return x if x.dtype.kind == "f" else x.astype(np.float64)


# -- selu, celu (EluBackward0, CeluBackward0) ------------------------------------------------


def _selu(self):
    """PyTorch's elu kernel with selu's constants, in the input's float: x * scale where
    positive, else expm1(x) (correctly rounded) * (alpha * scale)."""
    x = _floating(self)
    t = x.dtype.type
    expm1 = np.expm1(np.minimum(x, 0).astype(np.float64)).astype(x.dtype)
    return np.where(x > 0, x * t(SELU_SCALE), expm1 * (t(SELU_ALPHA) * t(SELU_SCALE)))


selu_op = defop(
    "selu", "EluBackward0", _selu, public=False,
    rules=(lambda F, g, self: F.where(self > 0, g * SELU_SCALE, g * (SELU_SCALE * SELU_ALPHA) * F.exp(self)),),
    formulas=("where(self > 0, grad * scale, grad * scale * alpha * exp(self)) (at 0 the negative side)",),
    sympy=lambda sp, x: vectorize(lambda e: sp.Float(SELU_SCALE) * sp.Piecewise(
        (e, e > 0), (sp.Float(SELU_ALPHA) * (sp.exp(e) - 1), True)))(x),
    domain=unary(avoid=0.0),
)


def selu(input, inplace=False):
    """scale * (max(0, x) + min(0, alpha * (exp(x) - 1))) (EluBackward0)."""
    return apply(selu_op, (input,))


def _celu(self, alpha=1.0):
    x = _f64(self)
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0) / alpha))


celu_op = defop(
    "celu", "CeluBackward0", _celu, public=False,
    rules=(lambda F, g, self, alpha: F.where(self > 0, g, g * F.exp(self / alpha)),),
    formulas=("where(self > 0, grad, grad * exp(self / alpha)) (at 0 the negative side)",),
    sympy=lambda sp, x, alpha=1.0: vectorize(lambda e: sp.Piecewise(
        (e, e > 0), (sp.Float(alpha) * (sp.exp(e / sp.Float(alpha)) - 1), True)))(x),
    domain=lambda rng: unary(avoid=0.0)(rng) + [((a,), {"alpha": 0.5}) for (a,), _ in unary(avoid=0.0)(rng)],
)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (CeluBackward0)."""
    if float(alpha) == 0:
        raise ProgramValueError("ZeroDivisionError")
    return apply(celu_op, (input,), {"alpha": float(alpha)})


# -- mish (MishBackward0) ----------------------------------------------------------------------


def _mish(self):
    """PyTorch's x * tanh(log1p(exp(x))), each step rounded to the input's float (each
    function correctly rounded: 95% of float32 results are PyTorch's, 70% computed in double)."""
    x = _floating(self)
    with np.errstate(over="ignore"):
        if x.dtype == np.float64:
            return x * np.tanh(np.log1p(np.exp(x)))
        wide = np.float64
        e = np.exp(x.astype(wide)).astype(x.dtype)
        soft = np.log1p(e.astype(wide)).astype(x.dtype)
        return x * np.tanh(soft.astype(wide)).astype(x.dtype)


def _mish_rule(F, g, self):
    t = F.tanh(F.softplus(self))
    return g * (t + self * F.sigmoid(self) * (1 - t * t))


mish_op = defop(
    "mish", "MishBackward0", _mish, public=False, rules=(_mish_rule,),
    formulas=("grad * (tanh(softplus(self)) + self * sigmoid(self) * (1 - tanh(softplus(self))^2))",),
    sympy=lambda sp, x: vectorize(lambda e: e * sp.tanh(sp.log(1 + sp.exp(e))))(x),
    domain=unary(-3, 3),
)


def mish(input, inplace=False):
    """x * tanh(softplus(x)) (MishBackward0)."""
    return apply(mish_op, (input,))


# -- hardswish, hardsigmoid ------------------------------------------------------------------


def _relu6_shifted(self):
    """(x, min(max(x + 3, 0), 6)) in the input's float, as PyTorch's hardsigmoid and hardswish
    kernels compute them (each then divides by 6 in that float)."""
    x = _floating(self)
    t = x.dtype.type
    return x, np.clip(x + t(3), t(0), t(6)), t(6)


def _hardsigmoid(self):
    x, clipped, six = _relu6_shifted(self)
    return clipped / six


def _kinks_away(lo, hi):
    def make(rng):
        out = []
        for (a,), p in unary(-4, 4)(rng):
            for b in (lo, hi):
                a = np.where(np.abs(a - b) < 0.1, b + 0.3, a)
            out.append(((np.asarray(a),), p))
        return out
    return make


# PyTorch's hardsigmoid_backward multiplies by 1.0f / 6.0f, a float32 constant, in every dtype
ONE_SIXTH_F32 = float(np.float32(1.0) / np.float32(6.0))

hardsigmoid_op = defop(
    "hardsigmoid", "HardsigmoidBackward0", _hardsigmoid, public=False,
    rules=(lambda F, g, self: F.where((self > -3.0) & (self < 3.0), g * ONE_SIXTH_F32, 0.0),),
    formulas=("where(-3 < self < 3, grad / 6, 0) (1/6 rounded to float32, as PyTorch's kernel has it)",),
    sympy=lambda sp, x: vectorize(lambda e: sp.Min(sp.Max(e / 6 + sp.Rational(1, 2), 0), 1))(x),
    domain=_kinks_away(-3.0, 3.0),
)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6 (HardsigmoidBackward0)."""
    return apply(hardsigmoid_op, (input,))


def _hardswish(self):
    x, clipped, six = _relu6_shifted(self)
    return x * clipped / six


# PyTorch's hardswish_backward: 0 below -3, grad above 3, grad * (2x + 3) / 6 on [-3, 3]
hardswish_op = defop(
    "hardswish", "HardswishBackward0", _hardswish, public=False,
    rules=(lambda F, g, self: F.where(self < -3.0, 0.0, F.where(self <= 3.0, g * (2.0 * self + 3.0) / 6.0, g)),),
    formulas=("where(self < -3, 0, where(self <= 3, grad * (2 self + 3) / 6, grad))",),
    sympy=lambda sp, x: vectorize(lambda e: e * sp.Min(sp.Max(e + 3, 0), 6) / 6)(x),
    domain=_kinks_away(-3.0, 3.0),
)


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6 (HardswishBackward0)."""
    return apply(hardswish_op, (input,))


# -- glu (GluBackward0) ------------------------------------------------------------------------


def _glu(self, dim=-1):
    a, b = np.split(self, 2, axis=dim)
    s = 1.0 / (1.0 + np.exp(-b)) if self.dtype != object else vectorize(
        lambda e: 1 / (1 + __import__("sympy").exp(-e)))(b)
    return a * s


def _glu_rule(F, g, self, dim):
    a, b = (TENSORS.chunk(self, 2, dim) if F is TENSORS else np.split(self, 2, axis=dim))
    s = F.sigmoid(b)
    parts = [g * s, g * a * s * (1 - s)]
    return TENSORS.cat(parts, dim) if F is TENSORS else np.concatenate(parts, axis=dim)


glu_op = defop(
    "glu", "GluBackward0", _glu, public=False, rules=(_glu_rule,),
    formulas=("cat(grad * sigmoid(b), grad * a * sigmoid(b) * (1 - sigmoid(b))), self = cat(a, b) along dim",),
    sympy=lambda sp, x, dim=-1: _glu(np.asarray(x, dtype=object), dim),
    domain=lambda rng: [((rng.uniform(-2, 2, (2, 4)),), {"dim": -1}), ((rng.uniform(-2, 2, (2, 3)),), {"dim": 0})],
)


def glu(input, dim=-1):
    """a * sigmoid(b), input split in halves a, b along dim (GluBackward0)."""
    shape = tuple(input.shape)
    if not shape:
        raise ShapeError("glu does not support scalars because halving size must be even")
    d = as_int(dim, "dim") % len(shape)
    if shape[d] % 2:
        raise ShapeError(f"Halving dimension must be even, but dimension {d} is size {shape[d]}")
    return apply(glu_op, (input,), {"dim": d})


# -- threshold (ThresholdBackward0) -----------------------------------------------------------


def _threshold(self, threshold, value):
    x = np.asarray(self)   # compared with the threshold in the input's dtype, as PyTorch's kernel
    if x.dtype.kind == "f":
        threshold, value = dtypes.cast(threshold, x.dtype), dtypes.cast(value, x.dtype)
    return np.where(x > threshold, x, value)


threshold_op = defop(
    "threshold", "ThresholdBackward0", _threshold, public=False,
    rules=(lambda F, g, self, threshold, value: F.where(self > threshold, g, 0.0),),
    formulas=("where(self > threshold, grad, 0)",),
    sympy=lambda sp, x, threshold, value: vectorize(lambda e: sp.Piecewise(
        (e, e > sp.Float(threshold)), (sp.Float(value), True)))(x),
    domain=lambda rng: [((a,), {"threshold": 0.5, "value": -1.0}) for (a,), _ in _kinks_away(0.5, 0.5)(rng)],
)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else value (ThresholdBackward0)."""
    return apply(threshold_op, (input,), {"threshold": float(threshold), "value": float(value)})


# -- composed ----------------------------------------------------------------------------------


def relu6(input, inplace=False):
    """hardtanh(x, 0, 6) (HardtanhBackward0)."""
    return TENSORS.hardtanh(input, 0.0, 6.0)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) (SoftmaxBackward0)."""
    return TENSORS.softmax(-input, dim, dtype=dtype)


def tanhshrink(input):
    """x - tanh(x) (SubBackward0)."""
    return input - TENSORS.tanh(input)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum((x1 / max(|x1|, eps)) * (x2 / max(|x2|, eps))) over dim, as ATen composes it (SumBackward1)."""
    n1 = TENSORS.norm(x1, 2.0, dim, True)
    n2 = TENSORS.norm(x2, 2.0, dim, True)
    # clamp_min_ under no_grad, as ATen does: the values change, the graph does not
    n1._data = np.maximum(n1._data, eps)
    n2._data = np.maximum(n2._data, eps)
    return TENSORS.sum((x1 / n1) * (x2 / n2), dim)



for _name, _function in [("selu", selu), ("celu", celu), ("mish", mish), ("hardsigmoid", hardsigmoid),
                         ("hardswish", hardswish), ("glu", glu), ("threshold", threshold), ("relu6", relu6),
                         ("softmin", softmin), ("tanhshrink", tanhshrink), ("cosine_similarity", cosine_similarity)]:
    export(_name, _function, method=False, nn=True)
