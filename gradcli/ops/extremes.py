"""The extremes: max, min, amax, amin, argmax, argmin (moved whole from reduce.py, whose
helpers about dims they use).

Subgradient choices are PyTorch's: `max()` splits the gradient evenly among tied
maxima, `max(dim)` sends it to the returned index only, `amax` splits it.

`max(dim)`/`min(dim)` return (values, indices). Their node saves what
PyTorch's MaxBackward0 saves: the returned indices (a parameter, computed once
by the public function), not the input, so an in-place change of the input
after `max(dim)` does not invalidate its backward, as in PyTorch; the indices
are an integer tensor outside the graph.

This module defines `max` and `min`, shadowing Python's builtins: its code uses
numpy's and SymPy's (`np.max`, `sp.Max`) instead.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from ..errors import ProgramTypeError, ShapeError
from .._tensor import Tensor, as_int
from .domains import _sample, cases
from .costs import reduction
from .reduce import _array, _axes, _case, _keep, _reduce_objects, _whole
from .apply import apply
from .registry import TENSORS, defop, export, LINEAR


# -- max, min: evenly split (whole), or to the returned index (dim) ----------------

def _empty_reduction(name):
    return ShapeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                      "Specify the reduction dim with the 'dim' argument.")


def _extreme_all(name, reduce):
    def forward(self):
        if np.size(self) == 0:
            raise _empty_reduction(name)
        return reduce(self)
    forward.__name__ = f"_{name}_all"
    return forward


def _arg_extreme(name, argfn, x, dim, keepdim):
    """The index `max(dim)`/`min(dim)` returns: the first extreme (or nan) along `dim`."""
    x = np.asarray(x)
    axes = _axes(dim, x.ndim)
    if not axes:
        return np.zeros((), dtype=np.int64)
    if x.shape[axes[0]] == 0:
        raise ShapeError(f"{name}(): Expected reduction dim {axes[0]} to have non-zero size.")
    return np.asarray(argfn(x, axis=axes[0], keepdims=bool(keepdim)), dtype=np.int64)


def _extreme_dim(name, argfn):
    def forward(self, dim, keepdim=False, indices=None):
        x = np.asarray(self)
        if indices is None:
            indices = _arg_extreme(name, argfn, x, dim, keepdim)
        axes = _axes(dim, x.ndim)
        if not axes:
            return x.copy()
        a = axes[0]
        out = np.take_along_axis(x, indices if keepdim else np.expand_dims(indices, a), a)
        return out if keepdim else np.squeeze(out, a)
    forward.__name__ = f"_{name}_dim"
    return forward


def _evenly_distributed(F, g, self, result):
    """Ties share the gradient evenly (a nan result: the nans share it), as PyTorch does."""
    mask = (self != self) if math.isnan(float(_array(result))) else (self == result)
    count = float(_array(F.sum(mask)))   # a number: g keeps its dtype (numpy would promote
    return F.where(mask, g / count, 0.0)  # a float32 g by an int64 count to float64)


def _to_index(F, g, self_shape, dim, keepdim, indices):
    """The whole gradient to the index max(dim)/min(dim) returned (PyTorch's choice at ties)."""
    if not self_shape:
        return g
    a = _axes(dim, len(self_shape))[0]
    chosen = indices if keepdim else np.expand_dims(indices, a)
    along = np.arange(self_shape[a]).reshape([-1 if i == a else 1 for i in range(len(self_shape))])
    return F.where(along == chosen, _keep(F, g, self_shape, dim, keepdim), 0.0)


def _max_sympy(sp, x):
    return np.asarray(sp.Max(*x.reshape(-1).tolist()), dtype=object)


def _min_sympy(sp, x):
    return np.asarray(sp.Min(*x.reshape(-1).tolist()), dtype=object)


def _dim_case(shape, argfn, dim, keepdim=False):
    """A max(dim)/min(dim) case: the indices are part of the op's parameters."""
    def build(rng):
        x = np.asarray(_sample(rng, -2, 2, shape))
        indices = _arg_extreme("max", argfn, x, dim, keepdim)
        return (x,), {"dim": dim, "keepdim": keepdim, "indices": indices}
    return build


def _dim_sympy(extreme: str):
    """The sympy reference of max(dim)/min(dim) and amax/amin: sympy's Max or Min of each
    reduced slice."""
    def reference(sp, x, dim=(), keepdim=False, indices=None):
        return _reduce_objects(x, dim, keepdim, lambda xs: getattr(sp, extreme)(*xs))
    return reference


def _dim_cases(argfn):
    return cases(_dim_case((2, 3), argfn, 1), _dim_case((2, 3), argfn, 0, True),
                 _dim_case((3,), argfn, -1), _dim_case((), argfn, 0))


max_all = defop(
    "max", "MaxBackward1", _extreme_all("max", np.max), public=False,
    rules=(_evenly_distributed,),
    formulas=("grad / count * (self == result) (ties split evenly)",),
    sympy=_max_sympy, domain=cases(*_whole()),
)

min_all = defop(
    "min", "MinBackward1", _extreme_all("min", np.min), public=False,
    rules=(_evenly_distributed,),
    formulas=("grad / count * (self == result) (ties split evenly)",),
    sympy=_min_sympy, domain=cases(*_whole()),
)

max_dim = defop(
    "max_dim", "MaxBackward0", _extreme_dim("max", np.argmax), public=False, cost=reduction,
    rules=(_to_index,),
    formulas=("grad at indices along dim, 0 elsewhere",),
    sympy=_dim_sympy("Max"), domain=_dim_cases(np.argmax), tangent=LINEAR,
)

min_dim = defop(
    "min_dim", "MinBackward0", _extreme_dim("min", np.argmin), public=False, cost=reduction,
    rules=(_to_index,),
    formulas=("grad at indices along dim, 0 elsewhere",),
    sympy=_dim_sympy("Min"), domain=_dim_cases(np.argmin), tangent=LINEAR,
)


def _return_type(name):
    """torch.return_types.<name>: a (values, indices) pair with named fields."""
    base = namedtuple(name, ("values", "indices"))

    def __repr__(self):
        return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__,
                                "__doc__": f"What {name}(input, dim) returns: values and indices."})


MaxResult = _return_type("max")
MinResult = _return_type("min")


def _values_and_indices(op, name, argfn, result_type, input, dim, keepdim):
    dim = as_int(dim, "dim")
    keepdim = bool(keepdim)
    indices = _arg_extreme(name, argfn, _array(input), dim, keepdim)
    values = apply(op, (input,), {"dim": dim, "keepdim": keepdim, "indices": indices.copy()})
    return result_type(values, Tensor._make(indices))


def _no_dim_keepdim(name):
    return ProgramTypeError(f"{name}() received an invalid combination of arguments: "
                            "keepdim needs dim")


def _extreme(name, elementwise, whole_op, dim_op, argfn, result_type, doc):
    """torch.max or torch.min: the whole tensor's extreme, along `dim` (values, indices),
    or with a tensor as second argument the elementwise `elementwise` (torch.max(a, b))."""
    def extreme(input, dim=None, keepdim=False, *, other=None):
        if other is not None or isinstance(dim, Tensor):
            return getattr(TENSORS, elementwise)(input, dim if other is None else other)
        if dim is None:
            if keepdim:
                raise _no_dim_keepdim(name)
            return apply(whole_op, (input,))
        return _values_and_indices(dim_op, name, argfn, result_type, input, dim, keepdim)
    extreme.__name__ = extreme.__qualname__ = name
    extreme.__doc__ = doc
    return extreme


max = _extreme("max", "maximum", max_all, max_dim, np.argmax, MaxResult,
               "The largest element (MaxBackward1); along `dim`, (values, indices) (MaxBackward0).")
min = _extreme("min", "minimum", min_all, min_dim, np.argmin, MinResult,
               "The smallest element (MinBackward1); along `dim`, (values, indices) (MinBackward0).")


def _on_arrays(name, argfn, elementwise, result_type):
    """max/min for rules on arrays: the same overloads as on Tensors."""
    whole = _extreme_all(name, getattr(np, name))
    along = _extreme_dim(name, argfn)

    def fn(input, dim=None, keepdim=False, *, other=None):
        if other is not None or (dim is not None and not isinstance(dim, (int, float, np.integer))):
            return elementwise(input, dim if other is None else other)
        if dim is None:
            return whole(input)
        indices = _arg_extreme(name, argfn, input, dim, keepdim)
        return result_type(along(input, dim, keepdim, indices), indices)
    return fn


export("max", max, array=_on_arrays("max", np.argmax, np.maximum, MaxResult))
export("min", min, array=_on_arrays("min", np.argmin, np.minimum, MinResult))


# -- amax, amin: over several dims, ties split evenly ------------------------------

def _extreme_over(name, reduce):
    def forward(self, dim=(), keepdim=False):
        x = np.asarray(self)
        axes = _axes(dim, x.ndim)
        if x.size == 0:
            if dim is None or isinstance(dim, (tuple, list)) and not dim:
                raise _empty_reduction(name)
            for a in axes:
                if x.shape[a] == 0:
                    raise ShapeError(f"{name}(): Expected reduction dim {a} to have non-zero size.")
        return reduce(x, axis=axes, keepdims=keepdim)
    forward.__name__ = f"_{name}"
    return forward


def _amax_grad(F, g, self, result, self_shape, dim, keepdim):
    mask = self == _keep(F, result, self_shape, dim, keepdim)
    axes = _axes(dim, len(self_shape))
    count = F.sum(mask, axes, keepdim=True) if axes else 1.0
    return F.where(mask, _keep(F, g, self_shape, dim, keepdim) / count, 0.0)


_amax_cases = cases(*_whole(), _case((2, 3), dim=1), _case((2, 3), dim=(0, 1), keepdim=True),
                    _case((2, 3), dim=-2))


amax_op = defop(
    "amax", "AmaxBackward0", _extreme_over("amax", np.max), public=False, cost=reduction,
    rules=(_amax_grad,),
    formulas=("grad / count * (self == result) over dim (ties split evenly)",),
    sympy=_dim_sympy("Max"), domain=_amax_cases,
)

amin_op = defop(
    "amin", "AminBackward0", _extreme_over("amin", np.min), public=False, cost=reduction,
    rules=(_amax_grad,),
    formulas=("grad / count * (self == result) over dim (ties split evenly)",),
    sympy=_dim_sympy("Min"), domain=_amax_cases,
)


def amax(input, dim=(), keepdim=False):
    """The largest elements over `dim` (all dims by default); ties split the gradient (AmaxBackward0)."""
    return apply(amax_op, (input,), {"dim": dim, "keepdim": bool(keepdim)})


def amin(input, dim=(), keepdim=False):
    """The smallest elements over `dim` (all dims by default); ties split the gradient (AminBackward0)."""
    return apply(amin_op, (input,), {"dim": dim, "keepdim": bool(keepdim)})


export("amax", amax, array=_extreme_over("amax", np.max))
export("amin", amin, array=_extreme_over("amin", np.min))


def _arg(name, argfn):
    def forward(self, dim=None, keepdim=False):
        x = np.asarray(self)
        if dim is None:
            if x.size == 0:
                raise ShapeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            index = np.asarray(argfn(x), dtype=np.int64)
            return index.reshape((1,) * x.ndim) if keepdim else index
        return _arg_extreme(name, argfn, x, dim, keepdim)
    forward.__name__ = f"_{name}"
    return forward


# Indices: integer tensors that never require grad.
argmax = defop("argmax", None, _arg("argmax", np.argmax), cost=reduction)
argmin = defop("argmin", None, _arg("argmin", np.argmin), cost=reduction)
