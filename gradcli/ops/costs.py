"""Cost functions of op-table entries (`defop(..., cost=...)`): the work an op does, in
elements or flops, estimated from its operands' shapes *before* numpy runs it.

`registry.apply` charges an op's cost to the budget (`gradcli.limits`) first; an op
without a cost function is charged its inputs' elements (and a broadcast its output's).
A cost function never validates: a bad operand gets the op's own error afterwards.
"""
from __future__ import annotations

from .._tensor import check_elements


def _size(a) -> int:
    return getattr(a, "size", 1)


def _cols(a) -> int:
    """The last dim of a matrix operand (1 for a vector or a number)."""
    shape = getattr(a, "shape", ())
    return shape[-1] if len(shape) >= 2 else 1


def matmul_flops(*arrays, **params) -> int:
    """dot, mv, mm, bmm, addmm: (rows x inner) x cols multiply-adds of the last two operands."""
    a, b = arrays[-2], arrays[-1]
    return _size(a) * _cols(b) + sum(_size(x) for x in arrays[:-2]) + _size(b)


def cubic(self, *others, **params) -> int:
    """det, inverse, solve: O(n^3) per matrix of a (batch of) n x n matrices."""
    n = _cols(self)
    return _size(self) * n + sum(_size(x) * n for x in others)


def reduction(self, *others, dim=None, **params) -> int:
    """A reduction over `dim`: its output, refused over the element limit before numpy
    allocates it (a sum over the empty dim of a (10^10, 0) tensor makes 10^10 zeros)."""
    size = _size(self)
    shape = getattr(self, "shape", ())
    if dim is None or not shape:
        return size
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    try:
        axes = {int(d) % len(shape) for d in dims}
    except (TypeError, ValueError):
        return size
    out = 1
    for axis, extent in enumerate(shape):
        if axis not in axes:
            out *= extent
    check_elements(out)
    return size
