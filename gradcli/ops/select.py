"""Ops that choose between values: where, maximum, minimum, clamp, atan2.

Ties and bounds follow PyTorch: maximum/minimum split the gradient evenly at a
tie; clamp passes the gradient at its bounds (min <= x <= max).
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .domains import PAIRS, _sample
from .registry import apply, defop, export


def _where(self, other, condition):
    return np.where(condition, self, other)


def _where_cases(rng):
    out = []
    for sa, sb in PAIRS:
        a = _sample(rng, -2, 2, sa)
        b = _sample(rng, -2, 2, sb)
        cond = rng.uniform(size=np.broadcast_shapes(np.shape(a), np.shape(b))) > 0.5
        out.append(((a, b), {"condition": cond}))
    return out


where_op = defop(
    "where", "WhereBackward0", _where, inputs=("self", "other"), broadcasts=True, public=False,
    rules=(lambda F, g, condition: F.where(condition, g, 0.0),
           lambda F, g, condition: F.where(condition, 0.0, g)),
    formulas=("where(condition, grad, 0)", "where(condition, 0, grad)"),
    sympy=lambda sp, a, b, condition: np.where(condition, a, b),
    domain=_where_cases,
)


def where(condition, input, other):
    """Elements of `input` where `condition` holds, else of `other` (WhereBackward0)."""
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    return apply(where_op, (input, other), {"condition": cond.astype(bool)})


export("where", where, method=False,
       array=lambda condition, input, other: np.where(condition, input, other))
Tensor.where = lambda self, condition, other: where(condition, self, other)
