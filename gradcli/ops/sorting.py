"""The sorts: sort, argsort, topk, kthvalue (moved whole from reduce.py)."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .._tensor import Tensor, _dim, as_int
from .domains import _sample, cases
from .extremes import _return_type
from .reduce import _array
from .costs import charge_sort
from .apply import apply
from .registry import defop, export, LINEAR


# -- sort, argsort, topk, kthvalue: values at indices chosen once --------------------------------
#
# Like max(dim), the public function chooses the indices (a parameter of the
# node, as PyTorch's SortBackward0 saves them) and the op takes the values at
# them; the backward scatters the gradient back to the indices (select.py's
# scatter_add, gather's backward). The order is numpy's stable sort, nan
# largest, as PyTorch sorts; where PyTorch leaves the order of ties open
# (topk, kthvalue) gradcli takes the first in the input.

SortResult = _return_type("sort")
TopkResult = _return_type("topk")
KthvalueResult = _return_type("kthvalue")


def _take(self, dim, indices, keepdim=True):
    x = np.asarray(self)
    if not x.ndim:
        return x.copy()
    out = np.take_along_axis(x, indices if keepdim else np.expand_dims(indices, dim), dim)
    return out if keepdim else np.squeeze(out, dim)


def _take_grad(F, g, self_shape, dim, indices, keepdim):
    if not self_shape:
        return g
    if not keepdim:
        g = F.unsqueeze(g, dim)
        indices = np.expand_dims(indices, dim)
    return F.scatter_add(np.zeros(self_shape), g, dim, indices)


def _take_sympy(sp, x, dim, indices, keepdim=True):
    return _take(np.asarray(x, dtype=object), dim, indices, keepdim)


def _order(x, dim, descending=False):
    """Indices that sort `x` along `dim`: stable, nan largest (first when descending)."""
    x = np.asarray(x)
    if not x.ndim:
        return np.zeros((), dtype=np.int64)
    moved = np.moveaxis(x, dim, -1)
    if descending:
        nan = np.isnan(moved)
        order = np.lexsort((-np.where(nan, 0.0, moved), ~nan), axis=-1)
    else:
        order = np.argsort(moved, axis=-1, kind="stable")
    return np.moveaxis(order.astype(np.int64), -1, dim)


def _take_case(shape, dim, pick=lambda order: order, keepdim=True, descending=False):
    def build(rng):
        x = np.asarray(_sample(rng, -2, 2, shape))
        indices = pick(_order(x, dim, descending))
        params = {"dim": dim, "indices": indices}
        if not keepdim:
            params["keepdim"] = False
        return (x,), params
    return build


sort_op = defop(
    "sort", "SortBackward0", _take, public=False,
    rules=(_take_grad,), formulas=("zeros(self.shape).scatter_add(dim, indices, grad)",),
    sympy=_take_sympy,
    domain=cases(_take_case((3,), 0), _take_case((2, 3), 1, descending=True), _take_case((3, 2), 0),
                 _take_case((), 0)), tangent=LINEAR,
)

topk_op = defop(
    "topk", "TopkBackward0", _take, public=False,
    rules=(_take_grad,), formulas=("zeros(self.shape).scatter_add(dim, indices, grad)",),
    sympy=_take_sympy,
    domain=cases(_take_case((2, 3), 1, lambda o: o[:, :2], descending=True),
                 _take_case((3, 2), 0, lambda o: o[:1]), _take_case((), 0)), tangent=LINEAR,
)

kthvalue_op = defop(
    "kthvalue", "KthvalueBackward0", _take, public=False,
    rules=(_take_grad,), formulas=("zeros(self.shape).scatter_add(dim, indices, grad.unsqueeze(dim))",),
    sympy=_take_sympy,
    domain=cases(_take_case((2, 3), 1, lambda o: o[:, 1], keepdim=False),
                 _take_case((3, 2), 0, lambda o: o[2:], keepdim=True),
                 _take_case((3,), 0, lambda o: o[0], keepdim=False)), tangent=LINEAR,
)


def _sorted_indices(input, dim, descending):
    x = _array(input)
    charge_sort(x, _dim(dim, x.ndim) if x.ndim else 0, bool(descending))   # before the sort runs
    return _dim(dim, x.ndim), _order(x, _dim(dim, x.ndim), bool(descending))


def sort(input, dim=-1, descending=False, stable=False):
    """(values, indices) along `dim`, ascending unless `descending` (SortBackward0); always stable."""
    dim, order = _sorted_indices(input, dim, descending)
    values = apply(sort_op, (input,), {"dim": dim, "indices": order})
    return SortResult(values, Tensor._make(order.copy()))


def argsort(input, dim=-1, descending=False, stable=False):
    """The indices sort(input, dim, descending) returns (an int64 tensor, no grad)."""
    return Tensor._make(_sorted_indices(input, dim, descending)[1])


def _size_along(x, dim):
    return x.shape[dim] if x.ndim else 1


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The k largest (or smallest) elements along `dim` and their indices (TopkBackward0).

    They come sorted whatever `sorted` says (PyTorch leaves that order open)."""
    k = as_int(k, "k")
    dim, order = _sorted_indices(input, dim, largest)
    if not 0 <= k <= _size_along(_array(input), dim):
        raise ShapeError("selected index k out of range")
    indices = order if not order.ndim else np.take(order, np.arange(k), axis=dim)
    values = apply(topk_op, (input,), {"dim": dim, "indices": indices})
    return TopkResult(values, Tensor._make(indices.copy()))


def kthvalue(input, k, dim=-1, keepdim=False):
    """The k-th smallest element along `dim` (k from 1) and its index (KthvalueBackward0)."""
    k = as_int(k, "k")
    dim, order = _sorted_indices(input, dim, False)
    if not 1 <= k <= _size_along(_array(input), dim):
        raise ShapeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    if order.ndim:
        order = np.take(order, [k - 1] if keepdim else k - 1, axis=dim)
    values = apply(kthvalue_op, (input,), {"dim": dim, "indices": order, "keepdim": bool(keepdim)})
    return KthvalueResult(values, Tensor._make(order.copy()))


export("sort", sort)
export("argsort", argsort)
export("topk", topk)
export("kthvalue", kthvalue)
