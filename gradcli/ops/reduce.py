"""Reductions: sum, mean, prod, norm, logsumexp, var, std, nansum; and the scans cumsum,
cumprod. The extremes (max, min, amax, amin, argmax, argmin) are in `extremes.py`, the
sorts (sort, argsort, topk, kthvalue) in `sorting.py`; the helpers about dims here serve all three.

A whole-tensor reduction and its `dim` form are separate ops when PyTorch gives
them separate node names (SumBackward0 / SumBackward1); the public function
picks one by its arguments, as PyTorch's overloads do. Backward rules restore
the reduced dims with `unsqueeze`/`expand`, so they stay differentiable.
Subgradient choices are PyTorch's and written where they are made: a zero norm
or zero std has gradient 0.

This module defines `sum`, shadowing Python's builtin: its code uses numpy's
and SymPy's (`np.sum`, `sp.Add`) instead.
"""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import as_floating
from ..errors import ProgramTypeError, ProgramValueError, ShapeError
from .._tensor import Tensor, _dim, _dims, as_int
from .domains import SHAPES, _sample, cases
from . import costs
from .costs import reduction
from . import torch_norms, torch_order
from .apply import apply
from .registry import ARRAYS, defop, export, LINEAR

# -- dims ------------------------------------------------------------------------

def _axes(dim, ndim):
    """`dim` (an int, a tuple, or None/() for all) as sorted numpy axes; () for a 0-d tensor.

    A dim is checked against the tensor (a 0-d tensor accepts 0 and -1, as in PyTorch).
    """
    if dim.__class__ is int and -ndim <= dim < ndim:   # the common case, checked: one dim
        return (dim % ndim,)
    if dim is None:
        return tuple(range(ndim))
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if not dims:
        return tuple(range(ndim))
    axes = _dims(dims, ndim)   # checked even for a 0-d tensor
    return tuple(sorted(axes)) if ndim else ()


def _ndim(a):
    """np.ndim without its Python-level call for an array (a sum's overhead)."""
    return a.ndim if a.__class__ is np.ndarray else np.ndim(a)


def _count(shape, dim):
    """How many elements each output element of a reduction over `dim` reduces."""
    return math.prod(shape[a] for a in _axes(dim, len(shape)))


def _keep(F, t, shape, dim, keepdim):
    """`t` (a reduction's gradient or result) with its reduced dims back as size 1."""
    if keepdim or dim is None:
        return t  # kept already, or 0-d: either broadcasts against the input
    for a in _axes(dim, len(shape)):
        t = F.unsqueeze(t, a)
    return t


def _restore(F, g, shape, dim, keepdim):
    """Broadcast a reduced gradient back to `shape` (undoing keepdim=False first)."""
    return F.expand(_keep(F, g, shape, dim, keepdim), shape)


def _array(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _quiet():
    """numpy's divide/invalid warnings off, for rules whose 0/0 are masked as PyTorch masks them."""
    return np.errstate(divide="ignore", invalid="ignore")


def _reduce_objects(x, dim, keepdim, fn):
    """A reduction of an object array of SymPy expressions: `fn(list of elements)` per output."""
    x = np.asarray(x, dtype=object)
    axes = _axes(dim, x.ndim)
    rest = [a for a in range(x.ndim) if a not in axes]
    rows = np.transpose(x, rest + list(axes)).reshape(-1, _count(x.shape, dim))
    out = np.empty(len(rows), dtype=object)
    for i, row in enumerate(rows):
        out[i] = fn(list(row))
    if keepdim:
        return out.reshape([1 if a in axes else x.shape[a] for a in range(x.ndim)])
    return out.reshape([x.shape[a] for a in rest])


def _case(shape, lo=-2.0, hi=2.0, fix=None, **params):
    """A domain builder: one input of `shape` sampled in [lo, hi] (then `fix`ed), with `params`."""
    def build(rng):
        x = np.asarray(_sample(rng, lo, hi, shape), dtype=np.float64)
        if fix is not None:
            x = np.asarray(fix(x), dtype=np.float64)
        return (x,), dict(params)
    return build


def _whole(fix=None, lo=-2.0, hi=2.0, **params):
    """Whole-tensor builders on every shape of SHAPES."""
    return [_case(shape, lo, hi, fix, **params) for shape in SHAPES]


# -- sum, mean ---------------------------------------------------------------------

def _sum_all(self):
    return torch_order.sum(self)


def _sum_dim(self, dim, keepdim=False):
    return torch_order.sum(self, _axes(dim, _ndim(self)), keepdim)


sum_all = defop(
    "sum", "SumBackward0", _sum_all, public=False,
    rules=(lambda F, g, self_shape: F.expand(g, self_shape),),
    formulas=("grad.expand(self.shape)",),
    sympy=lambda sp, x: np.asarray(sp.Add(*x.reshape(-1).tolist()), dtype=object),
    domain=cases(*_whole()), tangent=LINEAR,
)

sum_dim = defop(
    "sum_dim", "SumBackward1", _sum_dim, public=False, cost=reduction,
    rules=(lambda F, g, self_shape, dim, keepdim: _restore(F, g, self_shape, dim, keepdim),),
    formulas=("grad.unsqueeze(dim).expand(self.shape)",),
    sympy=lambda sp, x, dim, keepdim=False: _reduce_objects(x, dim, keepdim, lambda xs: sp.Add(*xs)),
    domain=cases(_case((2, 3), dim=1), _case((2, 3), dim=0, keepdim=True), _case((3,), dim=-1),
                 _case((2, 3), dim=(0, 1)), _case((), dim=0), _case((2, 3), dim=None, keepdim=True)), tangent=LINEAR,
)


def sum(input, dim=None, keepdim=False, dtype=None):
    """Sum of all elements (SumBackward0) or over `dim` (SumBackward1)."""
    if dim is None and not keepdim:
        return apply(sum_all, (input,))
    return apply(sum_dim, (input,), {"dim": dim, "keepdim": bool(keepdim)})


export("sum", sum, array=lambda input, dim=None, keepdim=False: (
    _sum_all(input) if dim is None and not keepdim else _sum_dim(input, dim, keepdim)))


def _mean_all(self):
    return torch_order.mean(self)


def _mean_dim(self, dim, keepdim=False):
    return torch_order.mean(self, _axes(dim, _ndim(self)), keepdim)


mean_all = defop(
    "mean", "MeanBackward0", _mean_all, public=False,
    rules=(lambda F, g, self_shape: F.expand(g / float(_count(self_shape, None)), self_shape),),
    formulas=("grad.expand(self.shape) / self.numel()",),
    sympy=lambda sp, x: np.asarray(sp.Add(*x.reshape(-1).tolist()) / x.size, dtype=object),
    domain=cases(*_whole()), tangent=LINEAR,
)

mean_dim = defop(
    "mean_dim", "MeanBackward1", _mean_dim, public=False, cost=reduction,
    rules=(lambda F, g, self_shape, dim, keepdim:
           _restore(F, g, self_shape, dim, keepdim) / float(_count(self_shape, dim)),),
    formulas=("grad.unsqueeze(dim).expand(self.shape) / self.size(dim)",),
    sympy=lambda sp, x, dim, keepdim=False: _reduce_objects(
        x, dim, keepdim, lambda xs: sp.Add(*xs) / len(xs)),
    domain=cases(_case((2, 3), dim=1), _case((2, 3), dim=0, keepdim=True), _case((2, 3), dim=(-1, 0))), tangent=LINEAR,
)


def mean(input, dim=None, keepdim=False, dtype=None):
    """Mean of all elements (MeanBackward0) or over `dim` (MeanBackward1)."""
    if dim is None and not keepdim:
        return apply(mean_all, (input,))
    return apply(mean_dim, (input,), {"dim": dim, "keepdim": bool(keepdim)})


export("mean", mean, array=lambda input, dim=None, keepdim=False: (
    _mean_all(input) if dim is None and not keepdim else _mean_dim(input, dim, keepdim)))


# -- prod: exact with zeros, at every order ----------------------------------------

def _prod_all(self):
    return np.prod(self)


def _prod_dim(self, dim, keepdim=False):
    return np.prod(self, axis=_axes(dim, np.ndim(self)), keepdims=keepdim)


def _others_product(F, x, axis):
    """For each element of `x`, the product of the other elements along `axis`.

    This is the gradient of prod where `result / x` cannot be used (x has zeros).
    At first order (`F` on arrays) it is PyTorch's exclusive products from the left
    and from the right, O(n). Under create_graph it must differentiate again, with
    zeros still present, so it is built from ops: n copies of `x` along a new axis,
    with ones on the diagonal, multiplied along the copies (O(n^2) elements).
    """
    shape = tuple(np.shape(_array(x)))
    n = shape[axis]
    if n == 0:
        return x
    if F is ARRAYS:
        x = np.moveaxis(x, axis, -1)
        ones = np.ones(x.shape[:-1] + (1,))
        left = np.cumprod(np.concatenate([ones, x[..., :-1]], -1), -1)
        right = np.cumprod(np.concatenate([ones, x[..., :0:-1]], -1), -1)[..., ::-1]
        return np.moveaxis(left * right, -1, axis)
    copies = F.expand(F.unsqueeze(x, axis), shape[:axis] + (n,) + shape[axis:])
    diagonal = np.eye(n, dtype=bool).reshape((1,) * axis + (n, n) + (1,) * (len(shape) - axis - 1))
    return F.prod(F.where(diagonal, 1.0, copies), axis + 1)


def _prod_all_grad(F, g, self, result, self_shape):
    if not self_shape:
        return g
    if _array(self).all():
        return g * (result / self)
    others = _others_product(F, F.reshape(self, (-1,)), 0)
    return g * F.reshape(others, self_shape)


def _prod_dim_grad(F, g, self, result, self_shape, dim, keepdim):
    if not self_shape:
        return g
    g = _keep(F, g, self_shape, dim, keepdim)
    if _array(self).all():
        return g * (_keep(F, result, self_shape, dim, keepdim) / self)
    return g * _others_product(F, self, _axes(dim, len(self_shape))[0])


def _with_zeros(*positions):
    def fix(x):
        x = x.copy()
        for p in positions:
            x[p] = 0.0
        return x
    return fix


prod_all = defop(
    "prod", "ProdBackward0", _prod_all, public=False,
    rules=(_prod_all_grad,),
    formulas=("grad * result / self (with zeros: grad * product of the other elements)",),
    sympy=lambda sp, x: np.asarray(sp.Mul(*x.reshape(-1).tolist()), dtype=object),
    domain=cases(*_whole(lo=-1.5, hi=1.5),
                 _case((3,), -1.5, 1.5, _with_zeros(1)),
                 _case((2, 3), -1.5, 1.5, _with_zeros((0, 2), (1, 0))),
                 _case((4,), -1.5, 1.5, _with_zeros(0, 1, 3)),
                 _case((), fix=lambda x: 0.0 * x)),
)

prod_dim = defop(
    "prod_dim", "ProdBackward1", _prod_dim, public=False, cost=reduction,
    rules=(_prod_dim_grad,),
    formulas=("grad * result / self (with zeros: grad * product of the others along dim)",),
    sympy=lambda sp, x, dim, keepdim=False: _reduce_objects(x, dim, keepdim, lambda xs: sp.Mul(*xs)),
    domain=cases(_case((2, 3), -1.5, 1.5, dim=1),
                 _case((2, 3), -1.5, 1.5, dim=0, keepdim=True),
                 _case((2, 3), -1.5, 1.5, _with_zeros((0, 1), (1, 0), (1, 2)), dim=-1),
                 _case((3, 2), -1.5, 1.5, _with_zeros((0, 0), (2, 0), (1, 1)), dim=0, keepdim=True),
                 _case((), -1.5, 1.5, dim=0)),
)


def prod(input, dim=None, keepdim=False, dtype=None):
    """Product of all elements (ProdBackward0) or along one `dim` (ProdBackward1)."""
    if dim is None:
        return apply(prod_all, (input,))
    return apply(prod_dim, (input,), {"dim": as_int(dim, "dim"), "keepdim": bool(keepdim)})


export("prod", prod, array=lambda input, dim=None, keepdim=False: (
    np.prod(input) if dim is None else _prod_dim(input, dim, keepdim)))


# -- norm --------------------------------------------------------------------------

def _norm(self, p=2.0, dim=None, keepdim=False):
    if p == 2 and self.size and _count(np.shape(self), dim) == 1:   # |x|: PyTorch squares nothing
        out = np.abs(as_floating(self))
        axes = _axes(dim, np.ndim(out))
        return out if keepdim else out.reshape([n for a, n in enumerate(out.shape) if a not in axes])
    if p == 2 and self.dtype == np.float32 and self.ndim and self.size and self.flags.c_contiguous:
        axes = _axes(dim, self.ndim)
        if axes == tuple(range(self.ndim - len(axes), self.ndim)):   # trailing dims: one row each
            rows = self.reshape(-1, math.prod(self.shape[a] for a in axes))
            out = torch_norms.norm2_rows(rows)   # PyTorch's vectorized kernel, its order
            kept = [1 if a in axes else n for a, n in enumerate(self.shape)]
            return out.reshape(kept if keepdim else [n for a, n in enumerate(self.shape) if a not in axes])
    x = np.abs(as_floating(self))
    axes = _axes(dim, x.ndim)
    if p == 2:
        return np.sqrt(np.sum(x * x, axis=axes, keepdims=keepdim))
    if p == 1:
        return np.sum(x, axis=axes, keepdims=keepdim)
    if math.isinf(p):
        if x.size == 0:
            raise ShapeError("linalg.vector_norm cannot compute the inf norm on an empty tensor because "
                             "the operation does not have an identity")
        return (np.max if p > 0 else np.min)(x, axis=axes, keepdims=keepdim)
    if p == 0:
        return np.sum(x != 0, axis=axes, keepdims=keepdim).astype(np.float64)
    with np.errstate(divide="ignore"):
        return np.sum(x ** p, axis=axes, keepdims=keepdim) ** (1.0 / p)


def _norm_grad(F, g, self, result, self_shape, p, dim, keepdim):
    """PyTorch's norm_backward, case by case; a zero norm has gradient 0 (masked)."""
    if p == 0:
        return self * 0.0  # the count of non-zeros is flat: zeros, as PyTorch gives
    g = _keep(F, g, self_shape, dim, keepdim)
    norm = _keep(F, result, self_shape, dim, keepdim)
    with _quiet():
        if p == 1:
            return g * F.sign(self)
        if p == 2:
            return g * F.where(norm == 0, 0.0, self / norm)
        if math.isinf(p):
            mask = F.abs(self) == norm
            axes = _axes(dim, len(self_shape))
            count = F.sum(mask, axes, keepdim=True) if axes else 1.0
            return F.sign(self) * F.where(mask, g / count, 0.0)
        if p < 1:
            scaled = F.where(self == 0, 0.0, F.sign(self) * F.abs(self) ** (p - 1.0))
            return scaled * g * norm ** (1.0 - p)
        if p < 2:
            scaled = F.sign(self) * F.abs(self) ** (p - 1.0)
        else:
            scaled = self * F.abs(self) ** (p - 2.0)
        return scaled * F.where(norm == 0, 0.0, g / norm ** (p - 1.0))


def _norm_sympy(sp, x, p=2.0, dim=None, keepdim=False):
    def one(xs):
        if p == 2:
            return sp.sqrt(sp.Add(*[e ** 2 for e in xs]))
        if p == 0:
            return sp.Integer(len(xs))
        if math.isinf(p):
            return (sp.Max if p > 0 else sp.Min)(*[sp.Abs(e) for e in xs])
        q = sp.nsimplify(p)
        return sp.Add(*[sp.Abs(e) ** q for e in xs]) ** (1 / q)
    return _reduce_objects(x, dim, keepdim, one)


def _distinct_abs(x):
    """Elements kept 0.1 from 0 and their magnitudes apart (the inf norms' kinks)."""
    flat = np.sign(x.reshape(-1)) * (0.3 + 0.25 * np.arange(x.size))
    return flat.reshape(x.shape) if x.ndim else flat.reshape(())


norm_op = defop(
    "norm", "LinalgVectorNormBackward0", _norm, public=False, cost=reduction,
    rules=(_norm_grad,),
    formulas=("grad * self / result (p=2; 0 where result == 0); "
              "grad * sign(self) * |self| ** (p - 1) / result ** (p - 1) in general",),
    sympy=_norm_sympy,
    domain=cases(*_whole(),
                 _case((2, 3), dim=1),
                 _case((2, 3), dim=0, keepdim=True),
                 _case((2, 3), dim=None, keepdim=True),
                 _case((3,), fix=lambda x: np.where(np.abs(x) < 0.1, 0.5, x), p=1.0),
                 _case((2, 3), fix=lambda x: np.where(np.abs(x) < 0.1, 0.5, x), p=1.0, dim=(0, 1)),
                 _case((3,), p=3.0),
                 _case((2, 3), fix=lambda x: np.where(np.abs(x) < 0.2, 0.5, x), p=1.5, dim=-1),
                 _case((3,), fix=lambda x: np.where(np.abs(x) < 0.2, 0.5, x), p=0.5),
                 _case((2, 3), fix=_distinct_abs, p=math.inf, dim=1),
                 _case((3,), fix=_distinct_abs, p=-math.inf),
                 _case((3,), fix=lambda x: np.where(np.abs(x) < 0.1, 0.5, x), p=0.0)),
)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The vector p-norm of all elements or over `dim` (LinalgVectorNormBackward0).

    p = 'fro' (the default) is p = 2; p may be any number, inf or -inf.
    """
    if isinstance(p, str):
        if p != "fro":
            raise ProgramValueError(f"norm: p={p!r} is not supported (only vector norms: "
                                    "'fro' or a number)")
        p = 2.0
    if isinstance(p, Tensor):
        p = p.item()
    return apply(norm_op, (input,), {"p": float(p), "dim": dim, "keepdim": bool(keepdim)})


export("norm", norm, array=lambda input, p=2.0, dim=None, keepdim=False: _norm(input, p, dim, keepdim))


# -- logsumexp ---------------------------------------------------------------------

def _logsumexp(self, dim=None, keepdim=False):
    x = as_floating(self)
    axes = _axes(dim, x.ndim)
    # shift by the largest element (kept finite) so that exp cannot overflow
    shift = np.max(x, axis=axes, keepdims=True, initial=-np.inf)
    shift = np.where(np.isfinite(shift), shift, 0.0)
    with np.errstate(divide="ignore", over="ignore"):
        out = np.log(np.sum(np.exp(x - shift), axis=axes, keepdims=True)) + shift
    return out if keepdim else out.reshape([s for a, s in enumerate(x.shape) if a not in axes])


logsumexp_op = defop(
    "logsumexp", "LogsumexpBackward0", _logsumexp, public=False, cost=reduction,
    rules=(lambda F, g, self, result, self_shape, dim, keepdim:
           _keep(F, g, self_shape, dim, keepdim) * F.exp(self - _keep(F, result, self_shape, dim, keepdim)),),
    formulas=("grad * exp(self - result)",),
    sympy=lambda sp, x, dim=None, keepdim=False: _reduce_objects(
        x, dim, keepdim, lambda xs: sp.log(sp.Add(*[sp.exp(e) for e in xs]))),
    domain=cases(*_whole(), _case((2, 3), dim=1), _case((2, 3), dim=0, keepdim=True),
                 _case((2, 3), dim=(0, -1)), _case((3,), -30.0, 30.0, dim=0)),
)


def logsumexp(input, dim=None, keepdim=False):
    """log(sum(exp(input))) over `dim` (all dims when None), computed stably (LogsumexpBackward0)."""
    return apply(logsumexp_op, (input,), {"dim": dim, "keepdim": bool(keepdim)})


export("logsumexp", logsumexp, array=_logsumexp)


# -- var, std ----------------------------------------------------------------------

def _var(self, dim=None, correction=1.0, keepdim=False):
    x = np.asarray(self, dtype=np.float64)
    axes = _axes(dim, x.ndim)
    n = _count(x.shape, dim)
    with np.errstate(divide="ignore", invalid="ignore"):
        dev = x - np.sum(x, axis=axes, keepdims=True) / n
        # PyTorch divides by max(0, n - correction): inf or nan when that is 0
        return np.sum(dev * dev, axis=axes, keepdims=keepdim) / (n - correction if n > correction else 0)


def _std(self, dim=None, correction=1.0, keepdim=False):
    return np.sqrt(_var(self, dim, correction, keepdim))


def _var_backward(F, g, self, shape, dim, correction, keepdim):
    """PyTorch's var_backward: 2 / (n - correction) * grad * (self - mean)."""
    n = _count(shape, dim)
    if dim is None or not shape:
        if n - correction <= 0:
            # 2 / 0 times (self - mean): nan where self == mean, else inf (PyTorch's choice)
            return g * F.where(self == F.mean(self), math.nan, math.inf)
        return (2.0 / (n - correction)) * g * (self - F.mean(self))
    scale = 2.0 / (n - correction) if n != correction else math.inf
    g = _keep(F, g, shape, dim, keepdim)
    return scale * g * (self - F.mean(self, _axes(dim, len(shape)), keepdim=True))


def _std_grad(F, g, self, result, self_shape, dim, correction, keepdim):
    # grad / (2 std), masked to 0 where std == 0, as PyTorch masks it
    with _quiet():
        g = F.where(result == 0, 0.0, g / (result * 2.0))
        return _var_backward(F, g, self, self_shape, dim, correction, keepdim)


def _variance_sympy(sp, xs, correction):
    m = sp.Add(*xs) / len(xs)
    return sp.Add(*[(e - m) ** 2 for e in xs]) / sp.nsimplify(len(xs) - correction)


def _var_cases(rng):
    return [build(rng) for build in (
        _case((3,)), _case((2, 3)), _case((2, 3), dim=1), _case((2, 3), dim=0, keepdim=True),
        _case((2, 3), dim=(0, 1), correction=0.0), _case((3,), dim=-1, correction=2.0),
        _case((2, 3), dim=None, keepdim=True))]


var_op = defop(
    "var", "VarBackward0", _var, public=False, cost=reduction,
    rules=(lambda F, g, self, self_shape, dim, correction, keepdim:
           _var_backward(F, g, self, self_shape, dim, correction, keepdim),),
    formulas=("2 / (n - correction) * grad * (self - self.mean(dim, keepdim=True))",),
    sympy=lambda sp, x, dim=None, correction=1.0, keepdim=False: _reduce_objects(
        x, dim, keepdim, lambda xs: _variance_sympy(sp, xs, correction)),
    domain=_var_cases,
)

std_op = defop(
    "std", "StdBackward0", _std, public=False, cost=reduction,
    rules=(_std_grad,),
    formulas=("grad / (2 * result) * 2 / (n - correction) * (self - self.mean(dim, keepdim=True)) "
              "(0 where result == 0)",),
    sympy=lambda sp, x, dim=None, correction=1.0, keepdim=False: _reduce_objects(
        x, dim, keepdim, lambda xs: sp.sqrt(_variance_sympy(sp, xs, correction))),
    domain=_var_cases,
)


def _correction(name, dim, unbiased, correction):
    """(dim, correction) from PyTorch's overloads: var(x, unbiased), var(x, dim, unbiased), correction=."""
    if isinstance(dim, bool):
        if unbiased is not None:
            raise ProgramTypeError(f"{name}() received an invalid combination of arguments")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise ProgramTypeError(f"{name}() received an invalid combination of arguments: "
                               "unbiased and correction cannot both be given")
    if correction is None:
        correction = 0.0 if unbiased is not None and not unbiased else 1.0
    if isinstance(dim, (tuple, list)) and not dim:
        dim = None
    return dim, float(correction)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The variance over `dim` (all elements when None), dividing by n - correction (VarBackward0).

    `unbiased` (default True) is correction=1; `unbiased=False` is correction=0.
    """
    dim, correction = _correction("var", dim, unbiased, correction)
    return apply(var_op, (input,), {"dim": dim, "correction": correction, "keepdim": bool(keepdim)})


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The standard deviation, sqrt(var) (StdBackward0); its gradient is 0 where it is 0."""
    dim, correction = _correction("std", dim, unbiased, correction)
    return apply(std_op, (input,), {"dim": dim, "correction": correction, "keepdim": bool(keepdim)})


export("var", var, array=_var)
export("std", std, array=_std)


# -- cumsum, cumprod: scans along one dim -----------------------------------------------

def _scan(fn):
    def forward(self, dim):
        x = np.asarray(self)
        if x.dtype.kind != "f":
            x = x.astype(np.int64)   # an integer or bool scan is int64, as PyTorch's
        elif x.ndim and x.dtype != np.float64:
            # PyTorch accumulates in double (float16: in float)
            return fn(x.astype(np.float32 if x.dtype == np.float16 else np.float64), axis=dim).astype(x.dtype)
        return fn(x, axis=dim) if x.ndim else x.copy()
    forward.__name__ = f"_{fn.__name__}"
    return forward


def _reversed_cumsum(F, g, dim):
    """sum over j >= i of g[j] along `dim`: cumsum's adjoint."""
    return F.flip(F.cumsum(F.flip(g, (dim,)), dim), (dim,))


def _cumsum_grad(F, g, self_shape, dim):
    return _reversed_cumsum(F, g, dim) if self_shape else g


def _cumprod_grad(F, g, self, result, self_shape, dim):
    """grad_i = sum over j >= i of g[j] * prod over k <= j, k != i of self[k].

    Where no element is zero this is reversed_cumsum(grad * result) / self, as in
    PyTorch. With zeros (where dividing by self fails), the products are formed
    outright, as prod's backward does: n copies of self along a new dim with
    ones on the diagonal, scanned with cumprod, so the rule differentiates again
    at any order (O(n^2) elements per order).
    """
    if not self_shape:
        return g
    if _array(self).all():
        return _reversed_cumsum(F, g * result, dim) / self
    n = self_shape[dim]
    copies = F.expand(F.unsqueeze(self, dim), self_shape[:dim] + (n,) + self_shape[dim:])
    pair = (1,) * dim + (n, n) + (1,) * (len(self_shape) - dim - 1)   # axes (i, j) at dim, dim + 1
    others = F.cumprod(F.where(np.eye(n, dtype=bool).reshape(pair), 1.0, copies), dim + 1)
    later = np.triu(np.ones((n, n), dtype=bool)).reshape(pair)           # j >= i
    return F.sum(F.where(later, F.unsqueeze(g, dim) * others, 0.0), dim + 1)


def _scan_sympy(step):
    def counterpart(sp, x, dim):
        x = np.asarray(x, dtype=object)
        if not x.ndim:
            return x.copy()
        out = x.copy()
        for k in range(1, x.shape[dim]):
            here = (slice(None),) * dim + (k,)
            before = (slice(None),) * dim + (k - 1,)
            out[here] = step(out[before], x[here])
        return out
    return counterpart


cumsum_op = defop(
    "cumsum", "CumsumBackward0", _scan(np.cumsum), public=False, cost=costs.scan,
    rules=(_cumsum_grad,), formulas=("grad.flip(dim).cumsum(dim).flip(dim)",),
    sympy=_scan_sympy(lambda a, b: a + b),
    domain=cases(_case((2, 3), dim=1), _case((2, 3), dim=0), _case((3,), dim=0), _case((), dim=0)), tangent=LINEAR,
)

cumprod_op = defop(
    "cumprod", "CumprodBackward0", _scan(np.cumprod), public=False, cost=costs.scan,
    rules=(_cumprod_grad,),
    formulas=("reversed_cumsum(grad * result, dim) / self (with zeros: the products of the others)",),
    sympy=_scan_sympy(lambda a, b: a * b),
    domain=cases(_case((2, 3), -1.5, 1.5, dim=1), _case((3, 2), -1.5, 1.5, dim=0), _case((), dim=0),
                 _case((4,), -1.5, 1.5, _with_zeros(1), dim=0),
                 _case((2, 3), -1.5, 1.5, _with_zeros((0, 0), (1, 1), (1, 2)), dim=1),
                 _case((3, 2), -1.5, 1.5, _with_zeros((0, 1), (2, 1)), dim=0)),
)


def _scan_function(name, op):
    def fn(input, dim, *, dtype=None):
        return apply(op, (input,), {"dim": _dim(dim, np.ndim(_array(input)))})
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The running {'sum' if name == 'cumsum' else 'product'} along `dim` ({op.node})."
    return fn


export("cumsum", _scan_function("cumsum", cumsum_op), array=cumsum_op.forward)
export("cumprod", _scan_function("cumprod", cumprod_op), array=cumprod_op.forward)


# -- nansum: nan counts as zero -----------------------------------------------------------------

def _nansum(self, dim=None, keepdim=False):
    return torch_order.nansum(self, _axes(dim, np.ndim(self)), keepdim)


nansum_op = defop(
    "nansum", "NansumBackward0", _nansum, public=False, cost=reduction,
    rules=(lambda F, g, self, self_shape, dim, keepdim:
           F.where(self != self, 0.0, _restore(F, g, self_shape, dim, keepdim)),),
    formulas=("where(isnan(self), 0, grad.unsqueeze(dim).expand(self.shape))",),
    sympy=lambda sp, x, dim=None, keepdim=False: _reduce_objects(x, dim, keepdim, lambda xs: sp.Add(*xs)),
    domain=cases(*_whole(), _case((2, 3), dim=1), _case((2, 3), dim=0, keepdim=True)),
)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum with nan taken as zero (NansumBackward0, whole or over `dim`); nan's gradient is 0."""
    return apply(nansum_op, (input,), {"dim": dim, "keepdim": bool(keepdim)})


export("nansum", nansum, array=_nansum)
