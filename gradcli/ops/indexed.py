"""index_select and index_add (each the other's backward), the public scatter_add, the
all/any reductions, and the functional in-place forms (`torch.sin_(x)`).

index_select's gradient adds the incoming gradient back at the selected rows
(IndexSelectBackward0 -> index_add); index_add passes it through to `self` and
selects the rows of `source` (IndexAddBackward0), as PyTorch's derivatives.yaml
writes them.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _dim
from .domains import cases
from .apply import apply
from .registry import FUNCTIONS, METHODS, defop, export, LINEAR
from .select import _index_tensor, scatter_add_op
from .shape import ProgramIndexError
from ..errors import ShapeError


def _along(dim: int, index) -> tuple:
    return (slice(None),) * dim + (index,)


def _index_select(self, dim, index):
    x = np.asarray(self)
    if x.ndim == 0:
        return x.reshape(1)[index].reshape(index.shape)
    return x[_along(dim, index)]


def _index_add(self, source, dim, index, alpha=1.0):
    source = np.asarray(source) * alpha if alpha != 1 else np.asarray(source)
    kind = np.asarray(self).dtype
    out = np.array(self, dtype=object if object in (kind, source.dtype) else np.result_type(kind, source.dtype),
                   copy=True)   # the operands' dtype (PyTorch requires them alike), not float64
    if out.ndim == 0:
        flat = out.reshape(1)
        np.add.at(flat, index, source.reshape(-1))
        return flat.reshape(())
    np.add.at(out, _along(dim, index), source)
    return out


def _index_add_sympy(sp, x, source, dim, index, alpha=1.0):
    out = np.array(x, dtype=object, copy=True)
    source = np.asarray(source, dtype=object)
    for k, row in enumerate(index):
        out[_along(dim, row)] = out[_along(dim, row)] + alpha * source[_along(dim, k)]
    return out


index_select_op = defop(
    "index_select", "IndexSelectBackward0", _index_select, public=False,
    rules=(lambda F, g, self_shape, dim, index: F.index_add(np.zeros(self_shape), g, dim, index),),
    formulas=("zeros(self.shape).index_add(dim, index, grad)",),
    sympy=lambda sp, x, dim, index: _index_select(np.asarray(x, dtype=object), dim, index),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (3, 2)),), {"dim": 0, "index": np.array([2, 0, 2])}),
                 lambda rng: ((rng.uniform(-2, 2, (2, 3)),), {"dim": 1, "index": np.array([1])}),
                 lambda rng: ((rng.uniform(-2, 2, (4,)),), {"dim": 0, "index": np.array([3, 3])})), tangent=LINEAR,
)

index_add_op = defop(
    "index_add", "IndexAddBackward0", _index_add, inputs=("self", "source"), public=False,
    rules=(lambda F, g: g,
           lambda F, g, dim, index, alpha: F.index_select(g, dim, index) * alpha),
    formulas=("grad", "grad.index_select(dim, index) * alpha"),
    sympy=_index_add_sympy,
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (3, 2)), rng.uniform(-2, 2, (2, 2))),
                              {"dim": 0, "index": np.array([0, 0])}),
                 lambda rng: ((rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (2, 2))),
                              {"dim": 1, "index": np.array([2, 1]), "alpha": 2.0})),
)


def _shape(value) -> tuple:
    return value._data.shape if isinstance(value, Tensor) else np.shape(value)


def _vector_index(name: str, index) -> np.ndarray:
    index = _index_tensor(name, index)
    if index.ndim > 1:
        raise ProgramIndexError(f"{name}(): Index is supposed to be a vector")
    return index.reshape(-1)


def index_select(input, dim, index, *, out=None):
    """The rows of `input` at `index` along `dim` (IndexSelectBackward0)."""
    index = _vector_index("index_select", index)
    shape = _shape(input)
    d = _dim(dim, len(shape))
    size = shape[d] if shape else 1
    if index.size and (index.min() < -size or index.max() >= size):
        raise ProgramIndexError("index out of range in self")
    return apply(index_select_op, (input,), {"dim": d, "index": index % max(size, 1)})


def index_add(input, dim, index, source, *, alpha=1):
    """`input` with `alpha * source`'s rows added at `index` along `dim` (IndexAddBackward0)."""
    index = _vector_index("index_add", index)
    shape, source_shape = _shape(input), _shape(source)
    d = _dim(dim, len(shape))
    count = source_shape[d] if source_shape else 1
    if index.size != count:
        raise ShapeError(f"index_add_(): Number of indices ({index.size}) should be equal to "
                         f"source.size(dim): ({count}), for dim: {d}")
    size = shape[d] if shape else 1
    bad = index[(index < -size) | (index >= size)]
    if bad.size:
        raise ShapeError(f"index {int(bad[0])} is out of bounds for dimension {d} with size {size}")
    return apply(index_add_op, (input, source),
                 {"dim": d, "index": index % max(size, 1), "alpha": float(alpha)})


def scatter_add(input, dim, index, src):
    """`input` with `src` added at `index` along `dim` (ScatterAddBackward0)."""
    index = _index_tensor("scatter_add", index)
    shape = _shape(input)
    d = _dim(dim, len(shape))
    if max(index.ndim, 1) != max(len(shape), 1):
        raise ShapeError("Index tensor must have the same number of dimensions as self tensor")
    size = shape[d] if shape else 1
    bad = index[(index < 0) | (index >= size)]
    if bad.size:
        raise ShapeError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} with "
                         f"size {size}")
    return apply(scatter_add_op, (input, src), {"dim": d, "index": index})


def _publish(name: str, fn) -> None:
    """A public function and method whose signature is PyTorch's, not its op's (the rules'
    `F.index_add(self, source, dim, index)` keeps the op's): so not `export`, which sets both."""
    FUNCTIONS[name] = METHODS[name] = fn


export("index_select", index_select)
_publish("index_add", index_add)
_publish("scatter_add", scatter_add)
METHODS["index_add_"] = lambda self, dim, index, source, *, alpha=1: self._inplace(
    lambda t, s: index_add(t, dim, index, s, alpha=alpha), source)
METHODS["scatter_add_"] = lambda self, dim, index, src: self._inplace(
    lambda t, s: scatter_add(t, dim, index, s), src)


# -- all / any: reductions to a bool tensor, outside the graph ------------------------------


def _truth_reduction(name: str, reduce):
    def fn(input, dim=None, keepdim=False, *, out=None):
        data = input._data if isinstance(input, Tensor) else np.asarray(input)
        if dim is None:
            return Tensor._make(np.asarray(reduce(data != 0)))
        d = _dim(dim, data.ndim)
        if data.ndim == 0:
            return Tensor._make(np.asarray(data != 0))
        return Tensor._make(np.asarray(reduce(data != 0, axis=d, keepdims=bool(keepdim))))
    fn.__name__ = name
    return fn


export("all", _truth_reduction("all", np.all))
export("any", _truth_reduction("any", np.any))
