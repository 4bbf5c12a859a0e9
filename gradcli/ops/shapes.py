"""Shape arithmetic on plain shapes and arrays, below the op table: PyTorch's error for
shapes that do not broadcast, and the one place broadcasting is undone."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from . import torch_order


def broadcast(*shapes) -> tuple:
    """The shape `shapes` broadcast to (numpy's ValueError when they do not fit), for any
    number of dims: numpy's own broadcast_shapes stops at 32, and a tensor may have 64."""
    if len(shapes) == 2 and shapes[0] == shapes[1]:
        return tuple(shapes[0])
    n = max([len(s) for s in shapes], default=0)
    out = [1] * n
    for s in shapes:
        at = n - len(s)
        for i, d in enumerate(s):
            o = out[at + i]
            if d != o:
                if o == 1:
                    out[at + i] = d
                elif d != 1:
                    raise ValueError(f"shape mismatch: objects cannot be broadcast to a single shape: {shapes}")
    return tuple(out)


def broadcast_shapes(sa, sb) -> tuple:
    """The shape two shapes broadcast to, with PyTorch's error when they do not fit."""
    try:
        return broadcast(sa, sb)
    except ValueError:
        n = max(len(sa), len(sb))
        for i in range(1, min(len(sa), len(sb)) + 1):
            if sa[-i] != sb[-i] and sa[-i] != 1 and sb[-i] != 1:
                raise ShapeError(
                    f"The size of tensor a ({sa[-i]}) must match the size of tensor b ({sb[-i]}) "
                    f"at non-singleton dimension {n - i}"
                ) from None
        raise


def sum_to_shape(a: np.ndarray, shape) -> np.ndarray:
    """Sum a broadcast gradient back to `shape`: the one place broadcasting is undone."""
    a = np.asarray(a)
    if a.shape == tuple(shape):
        return a
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and a.shape[lead + i] != 1
    )
    if not axes:
        out = a
    elif a.dtype == np.float32 or a.dtype == np.float16:   # added in PyTorch's order (torch_order)
        out = torch_order.sum(a, axes, keepdim=True)
    else:
        out = a.sum(axis=axes, keepdims=True)
    if lead:
        out = out.reshape(out.shape[lead:])
    return out.reshape(shape)
