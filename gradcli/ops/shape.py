"""Shape ops: reshape/view/flatten, squeeze, unsqueeze, cat, stack, unbind, indexing.

Each is an op with PyTorch's node name and a backward that is itself a shape op,
so gradients through them stay differentiable.
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..tensor import Tensor, _dim, as_int, shape_str
from .domains import cases
from .registry import apply, defop, export


def _view_shape(shape, size):
    """Resolve a target shape with at most one -1, with PyTorch's error."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(as_int(s, "size") for s in size)
    numel = 1
    for d in shape:
        numel *= d
    if size.count(-1) > 1:
        raise ShapeError("only one dimension can be inferred")
    known = 1
    for s in size:
        if s != -1:
            known *= s
    if -1 in size:
        if known == 0 or numel % known:
            raise ShapeError(f"shape '{shape_str(size)}' is invalid for input of size {numel}")
        size = tuple(numel // known if s == -1 else s for s in size)
    elif known != numel:
        raise ShapeError(f"shape '{shape_str(size)}' is invalid for input of size {numel}")
    return size


def _reshape(self, shape):
    return np.reshape(self, _view_shape(np.shape(self), tuple(shape)))


reshape_op = defop(
    "reshape", "ViewBackward0", _reshape, public=False,
    rules=(lambda F, g, self_shape: F.reshape(g, self_shape),),
    formulas=("grad.reshape(self.shape)",),
    sympy=lambda sp, x, shape: _reshape(x, shape),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"shape": (3, 2)}),
                 lambda rng: ((rng.uniform(-1, 1, (3,)),), {"shape": (1, 3)}),
                 lambda rng: ((rng.uniform(-1, 1, ()),), {"shape": (1,)})),
)


def reshape(input, *shape):
    """The same elements in a new shape (ViewBackward0); one size may be -1."""
    return apply(reshape_op, (input,), {"shape": shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape})


export("reshape", reshape, array=lambda input, shape: _reshape(input, shape))
export("view", reshape, nn=False)


def flatten(input, start_dim=0, end_dim=-1):
    shape = tuple(np.shape(input._data if isinstance(input, Tensor) else input))
    if not shape:
        return reshape(input, (1,))
    s = _dim(start_dim, len(shape))
    e = _dim(end_dim, len(shape))
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(input, shape[:s] + (n,) + shape[e + 1:])


export("flatten", flatten)


def _unsqueeze(self, dim):
    nd = np.ndim(self) + 1
    return np.expand_dims(self, _dim(dim, nd))


unsqueeze = defop(
    "unsqueeze", "UnsqueezeBackward0", _unsqueeze,
    rules=(lambda F, g, dim, self_shape: F.reshape(g, self_shape),),
    formulas=("grad.squeeze(dim)",),
    sympy=lambda sp, x, dim: _unsqueeze(x, dim),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"dim": 1}),
                 lambda rng: ((rng.uniform(-1, 1, ()),), {"dim": 0})),
)


def _squeeze(self, dim=None):
    shape = np.shape(self)
    if dim is None:
        return np.reshape(self, tuple(d for d in shape if d != 1))
    if not shape:
        return np.asarray(self)
    d = _dim(dim, len(shape))
    if shape[d] != 1:
        return np.asarray(self)
    return np.reshape(self, shape[:d] + shape[d + 1:])


squeeze = defop(
    "squeeze", "SqueezeBackward0", _squeeze,
    rules=(lambda F, g, self_shape: F.reshape(g, self_shape),),
    formulas=("grad.reshape(self.shape)",),
    sympy=lambda sp, x, dim=None: _squeeze(x, dim),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 1, 3)),), {}),
                 lambda rng: ((rng.uniform(-1, 1, (1, 3)),), {"dim": 0})),
)
