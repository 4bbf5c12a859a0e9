"""Where each op's tests sample their points, and helpers for SymPy counterparts.

A domain is a function `rng -> list of (inputs, params)`: concrete arguments at
which the op is differentiable, on the shapes every op is tested on: (), (3,),
(2, 3) and broadcasting pairs. Inputs are numpy arrays (they become Tensors
that require grad) or Python floats (numbers, which never do).
"""
from __future__ import annotations

import numpy as np

SHAPES = [(), (3,), (2, 3)]
PAIRS = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), ()), ((2, 1), (1, 3)),
         ((), (2, 3))]


def _sample(rng, lo, hi, shape):
    """Points in [lo, hi] kept a little away from the ends (finite differences step out)."""
    span = hi - lo
    return rng.uniform(lo + 0.05 * span, hi - 0.05 * span, size=shape)


def unary(lo=-2.0, hi=2.0, avoid=None):
    """An elementwise op of one input on [lo, hi]; `avoid` (a point) is kept 0.1 away from."""
    def cases(rng):
        out = []
        for shape in SHAPES:
            x = _sample(rng, lo, hi, shape)
            if avoid is not None:
                x = np.where(np.abs(x - avoid) < 0.1, avoid + 0.3, x)
            out.append(((x,), {}))
        return out
    return cases


def binary(lo=-2.0, hi=2.0, lo2=None, hi2=None, scalar=True, separate=None):
    """An elementwise op of two inputs; broadcasting pairs, and a plain number as `other`.

    `separate` keeps the two inputs apart by at least this much (maximum, minimum).
    """
    lo2 = lo if lo2 is None else lo2
    hi2 = hi if hi2 is None else hi2

    def cases(rng):
        out = []
        for sa, sb in PAIRS:
            a = _sample(rng, lo, hi, sa)
            b = _sample(rng, lo2, hi2, sb)
            if separate is not None:
                a, b = np.broadcast_arrays(a, b)
                b = np.where(np.abs(a - b) < separate, a + 2 * separate, b)
                a = a.copy()
                if sa != a.shape:
                    a = a.reshape(-1)[: int(np.prod(sa))].reshape(sa) if sa else a.reshape(-1)[0]
                    a = np.asarray(a)
                    b = np.where(np.abs(np.broadcast_to(a, b.shape) - b) < separate, b + 2 * separate, b)
            out.append(((a, b), {}))
        if scalar:
            out.append(((_sample(rng, lo, hi, (3,)), float(_sample(rng, lo2, hi2, ()))), {}))
        return out
    return cases


def cases(*builders):
    """Explicit cases: each builder is `rng -> (inputs, params)`."""
    def make(rng):
        return [build(rng) for build in builders]
    return make


def vectorize(fn):
    """Apply a SymPy function elementwise to an object array of expressions."""
    def apply(x, *args):
        return np.vectorize(lambda e: fn(e, *args), otypes=[object])(x)
    return apply


def elementwise_sympy(fn):
    """A SymPy counterpart of a binary elementwise op: `fn(a, b)` over broadcast object arrays."""
    def counterpart(sp, a, b):
        a, b = np.broadcast_arrays(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
        out = np.empty(a.shape, dtype=object)
        for index in np.ndindex(a.shape):
            out[index] = fn(sp, a[index], b[index])
        return out
    return counterpart
