"""The pair of ops broadcasting rests on: expand and its adjoint sum_to_size, and
PyTorch's error for shapes that do not broadcast (`broadcast_shapes`).

The engine undoes broadcasting once, for every op, by calling `sum_to_size`;
making it an op of its own (with `expand` as its backward) keeps gradients of
broadcast ops differentiable at every order. On Tensors (create_graph, forward
mode's tangents, `x.sum_to_size(...)`) it records what PyTorch's `sum_to` does:
a full sum, or a sum kept over the dims that shrink and a view dropping the
leading ones (SumBackward0 / SumBackward1, ViewBackward0).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ShapeError
from .._tensor import as_int, check_elements, shape_str
from .domains import cases
from .registry import OPS, defop, export, LINEAR
from .shapes import sum_to_shape


def _expand_shape(shape, sizes):
    sizes = tuple(int(s) for s in sizes)
    if len(sizes) < len(shape):
        raise ShapeError(
            f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to the "
            f"number of dimensions in the tensor ({len(shape)})"
        )
    lead = len(sizes) - len(shape)
    out = list(sizes[:lead])
    for i, (old, new) in enumerate(zip(shape, sizes[lead:])):
        if new == -1:
            new = old
        elif old != 1 and old != new:
            raise ShapeError(
                f"The expanded size of the tensor ({new}) must match the existing size ({old}) at "
                f"non-singleton dimension {lead + i}.  Target sizes: {shape_str(sizes)}.  Tensor "
                f"sizes: {shape_str(shape)}"
            )
        out.append(new)
    if any(s < 0 for s in out[:lead]):
        raise ShapeError("expand: -1 is not allowed in a leading, non-existing dimension")
    return tuple(out)


def _expand(self, size):
    shape = _expand_shape(np.shape(self), size)
    count = math.prod(shape)
    check_elements(count)
    out = np.broadcast_to(self, shape)
    if isinstance(self, np.ndarray) and self.flags.writeable and self.size == count and all(
            n <= 1 or stride for n, stride in zip(out.shape, out.strides)):
        # no element is repeated: a writable view, which PyTorch lets a program modify in place
        view = self.reshape(shape)
        if view.base is not None:
            return view
    return out


def _sum_to_size(self, size):
    size = tuple(size) if isinstance(size, (tuple, list)) else (size,)
    for s in size:
        if s.__class__ is not int:   # an integral float (a literal of the expression commands)
            size = tuple(as_int(s, "size") for s in size)
            break
    return sum_to_shape(self, size)


expand = defop(
    "expand", "ExpandBackward0", _expand,
    rules=(lambda F, g, self_shape: F.sum_to_size(g, self_shape),),
    formulas=("grad.sum_to_size(self.shape)",),
    sympy=lambda sp, x, size: np.broadcast_to(x, _expand_shape(x.shape, size)),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (3,)),), {"size": (2, 3)}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 1)),), {"size": (2, 4)}),
                 lambda rng: ((rng.uniform(-1, 1, ()),), {"size": (3,)})), tangent=LINEAR,
)

sum_to_size = defop(
    "sum_to_size", "SumToSizeBackward0", _sum_to_size,
    rules=(lambda F, g, self_shape: F.expand(g, self_shape),),
    formulas=("grad.expand(self.shape)",),
    sympy=lambda sp, x, size: sum_to_shape(x, tuple(size)),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"size": (3,)}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"size": (2, 1)}),
                 lambda rng: ((rng.uniform(-1, 1, (3,)),), {"size": ()})), tangent=LINEAR,
)


def sum_to_size_recorded(self, *size):
    """`x.sum_to_size(size)` as PyTorch's at::sum_to records it (the same numbers as the op)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    size = tuple(as_int(s, "size") for s in size)
    shape = self._data.shape
    if shape == size:
        return self
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
        raise ShapeError(f"size {{{shape_str(size)}}} is not expandable to size {{{shape_str(shape)}}}.")
    from .apply import apply

    if not size:
        return apply(OPS["sum"], (self,))
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    out = apply(OPS["sum_dim"], (self,), {"dim": dims, "keepdim": True}) if dims else self
    return apply(OPS["reshape"], (out,), {"shape": size}) if lead else out


export("sum_to_size", sum_to_size_recorded)
