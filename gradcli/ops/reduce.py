"""Reductions: sum, mean, prod, max, min, norm, logsumexp, var, std.

A whole-tensor reduction and its `dim` form are separate ops with PyTorch's
separate node names (SumBackward0 / SumBackward1); the public function picks
one by its arguments. Backward rules restore the reduced dims with
`unsqueeze`/`expand`, so they stay differentiable.
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor, _dim, as_int
from .domains import SHAPES, cases
from .registry import apply, defop, export


def _dims(dim, ndim):
    """`dim` as a sorted tuple of non-negative axes (an int or a tuple of ints)."""
    if isinstance(dim, (tuple, list)):
        return tuple(sorted(_dim(d, ndim) for d in dim))
    return (_dim(dim, ndim),)


def _restore(F, g, shape, dim, keepdim):
    """Broadcast a reduced gradient back to `shape` (undoing keepdim=False first)."""
    if not keepdim and dim is not None:
        for d in _dims(dim, len(shape)):
            g = F.unsqueeze(g, d) if len(shape) else g
    return F.expand(g, shape)


def _reduction_cases(extra=None):
    def make(rng):
        out = []
        for shape in SHAPES:
            out.append(((rng.uniform(-2, 2, shape),), {}))
        out.append(((rng.uniform(-2, 2, (2, 3)),), {"dim": 1}))
        out.append(((rng.uniform(-2, 2, (2, 3)),), {"dim": 0, "keepdim": True}))
        out.append(((rng.uniform(-2, 2, (3,)),), {"dim": -1}))
        return out
    return make


def _sum_all(self):
    return np.sum(self)


def _sum_dim(self, dim, keepdim=False):
    return np.sum(self, axis=_dims(dim, np.ndim(self)), keepdims=keepdim)


sum_all = defop(
    "sum", "SumBackward0", _sum_all, public=False,
    rules=(lambda F, g, self_shape: F.expand(g, self_shape),),
    formulas=("grad.expand(self.shape)",),
    sympy=lambda sp, x: np.asarray(sum(x.reshape(-1).tolist(), sp.Integer(0)), dtype=object),
    domain=cases(*[(lambda s: lambda rng: ((rng.uniform(-2, 2, s),), {}))(s) for s in SHAPES]),
)

sum_dim = defop(
    "sum_dim", "SumBackward1", _sum_dim, public=False,
    rules=(lambda F, g, self_shape, dim, keepdim: _restore(F, g, self_shape, dim, keepdim),),
    formulas=("grad.unsqueeze(dim).expand(self.shape)",),
    sympy=lambda sp, x, dim, keepdim=False: _sum_dim(x, dim, keepdim),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (2, 3)),), {"dim": 1}),
                 lambda rng: ((rng.uniform(-2, 2, (2, 3)),), {"dim": 0, "keepdim": True}),
                 lambda rng: ((rng.uniform(-2, 2, (3,)),), {"dim": -1})),
)


def sum(input, dim=None, keepdim=False, dtype=None):
    """Sum of all elements (SumBackward0) or over `dim` (SumBackward1)."""
    if dim is None:
        return apply(sum_all, (input,))
    return apply(sum_dim, (input,), {"dim": dim, "keepdim": keepdim})


export("sum", sum, array=lambda input, dim=None, keepdim=False: (
    np.sum(input) if dim is None else _sum_dim(input, dim, keepdim)))


def _mean_all(self):
    return np.mean(self)


def _mean_dim(self, dim, keepdim=False):
    return np.mean(self, axis=_dims(dim, np.ndim(self)), keepdims=keepdim)


def _count(shape, dim):
    n = 1
    for d in (_dims(dim, len(shape)) if dim is not None else range(len(shape))):
        n *= shape[d] if len(shape) else 1
    return n


mean_all = defop(
    "mean", "MeanBackward0", _mean_all, public=False,
    rules=(lambda F, g, self_shape: F.expand(g / float(max(_count(self_shape, None), 1)), self_shape),),
    formulas=("grad.expand(self.shape) / self.numel()",),
    sympy=lambda sp, x: np.asarray(sum(x.reshape(-1).tolist(), sp.Integer(0)) / max(x.size, 1), dtype=object),
    domain=cases(*[(lambda s: lambda rng: ((rng.uniform(-2, 2, s),), {}))(s) for s in SHAPES]),
)

mean_dim = defop(
    "mean_dim", "MeanBackward1", _mean_dim, public=False,
    rules=(lambda F, g, self_shape, dim, keepdim:
           _restore(F, g, self_shape, dim, keepdim) / float(_count(self_shape, dim)),),
    formulas=("grad.unsqueeze(dim).expand(self.shape) / self.size(dim)",),
    sympy=lambda sp, x, dim, keepdim=False: _sum_dim(x, dim, keepdim) / _count(x.shape, dim),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (2, 3)),), {"dim": 1}),
                 lambda rng: ((rng.uniform(-2, 2, (2, 3)),), {"dim": 0, "keepdim": True})),
)


def mean(input, dim=None, keepdim=False, dtype=None):
    """Mean of all elements (MeanBackward0) or over `dim` (MeanBackward1)."""
    if dim is None:
        return apply(mean_all, (input,))
    return apply(mean_dim, (input,), {"dim": dim, "keepdim": keepdim})


export("mean", mean, array=lambda input, dim=None, keepdim=False: (
    np.mean(input) if dim is None else _mean_dim(input, dim, keepdim)))
