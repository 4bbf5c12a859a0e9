"""Indexing: `x[i]`, `x[1:3]`, `x[mask]`, `x[i] = v`, and the index ops behind them.

Indexing follows PyTorch's `applySlicing`: the index is read left to right, an
integer is a `select`, a slice a `slice` (a whole-dimension slice inside a
tuple is skipped, so `x[:, 1]` is one SelectBackward0), `None` an `unsqueeze`;
tensor and list indices are collected and applied last, as one `index`
(IndexBackward0). Basic indexing returns views that share the base's storage
and version counter, as PyTorch's views do. Assignment `x[i] = v` records
CopySlices (IndexPutBackward0 for tensor indices) and rebases `x` onto it.

An index is held as a pair (basic, advanced) of numpy keys (see `views.py`,
whose functions read and write the region it names).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..errors import AutogradError, ProgramError, ProgramTypeError, ProgramValueError, ShapeError
from .._tensor import Tensor, _grad_enabled, as_int, bump_version, check_elements, shape_str
from .broadcast import _expand_shape
from .domains import cases
from .apply import apply
from . import dual as _dual
from .registry import TENSORS, defop, export, LINEAR
from .shape import ProgramIndexError, alias, select_op, slice_op, unsqueeze
from .views import (PUT_FORMULAS, _data, _index, _index_put, _index_rule, _put_self_rule, _put_sympy,
                    _put_values_rule, _view, copy_slices)
from .shapes import broadcast


# -- the index ops ---------------------------------------------------------------------------


def _index_put_impl(self, values, indices):
    return _index_put(self, values, indices, accumulate=True)


def _key(*items):
    return (None, tuple(np.asarray(i) if isinstance(i, list) else i for i in items))


index_op = defop(
    "index", "IndexBackward0", _index, public=False,
    rules=(_index_rule,), formulas=("index_put(zeros(self.shape), indices, grad, accumulate=True)",),
    sympy=lambda sp, x, indices: _index(x, indices),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (3,)),), {"indices": _key([0, 2, 0])}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"indices": _key(slice(None), [2, 0, 2, 1])}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"indices": _key([1, 0, 1], [2, 2, 0])}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),),
                              {"indices": _key(np.array([True, False]), slice(None))})), tangent=LINEAR,
)


def _put_case(self_shape, values_shape, indices, **params):
    return lambda rng: ((rng.uniform(-1, 1, self_shape), rng.uniform(-1, 1, values_shape)),
                        {"indices": indices, **params})


index_put = defop(
    "index_put", "IndexPutBackward0", _index_put, inputs=("self", "values"), public=False,
    rules=(_put_self_rule, _put_values_rule),
    formulas=PUT_FORMULAS, sympy=_put_sympy,
    domain=cases(_put_case((3,), (2,), _key([2, 0])),
                 _put_case((2, 3), (3,), _key([1])),
                 _put_case((2, 3), (), _key(slice(None), [0, 2])),
                 _put_case((3,), (3,), _key([0, 0, 1]), accumulate=True)),
)

index_put_impl = defop(
    "index_put_impl", "IndexPutImplBackward0", _index_put_impl, inputs=("self", "values"), public=False,
    rules=(lambda F, g: g, lambda F, g, indices: F.index(g, indices)),
    formulas=("grad", "grad[indices]"),
    sympy=lambda sp, x, v, indices: _index_put_impl(x, v, indices),
    domain=cases(_put_case((3,), (4,), _key([0, 2, 0, 1])),
                 _put_case((2, 3), (2, 2), _key(slice(None), [1, 1]))),
)

def _index_array(item):
    """A tensor, list or array used as an index: a bool mask or an int64 array."""
    if isinstance(item, Tensor):
        arr = item._data
    elif isinstance(item, range):   # PyTorch reads a range as the sequence of its ints
        check_elements(len(item))
        arr = np.arange(item.start, item.stop, item.step, dtype=np.int64)
    else:
        try:
            arr = np.asarray(_plain(item))
        except ValueError:
            raise ProgramValueError("an index list must be rectangular") from None
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.dtype.kind != "f":
        raise ProgramTypeError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
            f"indices (got {type(item).__name__})")
    if arr.size and not (np.all(np.isfinite(arr)) and np.all(arr == np.floor(arr))):
        raise ProgramIndexError("tensors used as indices must be long, int, byte or bool tensors")
    return arr.astype(np.int64)


def _plain(x):
    if isinstance(x, Tensor):
        return x._data
    if isinstance(x, (list, tuple)):
        return [_plain(e) for e in x]
    return x


def _kind(item):
    """What an index item is: none, ellipsis, bool, int, slice or array."""
    if item is None:
        return "none"
    if item is Ellipsis:
        return "ellipsis"
    if isinstance(item, (bool, np.bool_)):
        return "bool"
    if isinstance(item, slice):
        return "slice"
    if isinstance(item, Tensor):
        if item._data.ndim == 0:
            return "bool" if item._data.dtype == np.bool_ else "int"
        return "array"
    if isinstance(item, (list, tuple, np.ndarray, range)):
        return "array"
    if isinstance(item, (int, np.integer)):
        return "int"
    if isinstance(item, (float, np.floating)):
        if float(item).is_integer():
            return "int"
        raise ProgramIndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
            "indices (got float)")
    raise ProgramTypeError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
        f"(got {type(item).__name__})")


def _slice_bound(value, what):
    return None if value is None else as_int(value, f"slice {what}")


def _parse_index(shape, index):
    """Read an index as PyTorch does: the steps of basic indexing, then the tensor indices.

    Returns (steps, basic, advanced): `steps` the view ops to record, as
    ("select", dim, i), ("slice", dim, start, stop, step) or ("unsqueeze", dim);
    `basic` the same steps as one numpy key on the input; `advanced` the numpy
    key of tensor indices on that view (None if there are none).
    """
    single = not isinstance(index, tuple)
    items = (index,) if single else index
    kinds = [_kind(item) for item in items]
    arrays = {k: _index_array(item) for k, (item, kind) in enumerate(zip(items, kinds)) if kind == "array"}
    ndim = len(shape)
    specified = 0
    for k, kind in enumerate(kinds):
        if kind in ("int", "slice"):
            specified += 1
        elif kind == "array":
            specified += arrays[k].ndim if arrays[k].dtype == np.bool_ else 1
    if specified > ndim:
        if ndim == 0 and kinds and kinds[0] == "int":
            raise ProgramIndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                "C++ to convert a 0-dim tensor to a number")
        raise ProgramIndexError(f"too many indices for tensor of dimension {ndim}")
    cur = list(shape)        # the shape of the result so far
    dim = 0                  # where the next item applies in that result
    orig = 0                 # ... and in the input (for messages)
    steps, basic, adv = [], [], []
    for item, kind, k in zip(items, kinds, range(len(items))):
        if kind == "none" or (kind == "bool" and bool(_data(item))):
            steps.append(("unsqueeze", dim))
            cur.insert(dim, 1)
            basic.append(None)
            dim += 1
        elif kind == "bool":
            # x[False]: a new dim of size 1, of which no element is taken
            steps.append(("unsqueeze", dim))
            cur.insert(dim, 1)
            basic.append(None)
            adv.append((dim, np.zeros(0, dtype=np.int64), len(adv)))
            dim += 1
        elif kind == "ellipsis":
            # PyTorch lets each `...` skip the unspecified dims again (x[..., ...] is x)
            skip = ndim - specified
            basic.extend([slice(None)] * max(0, min(skip, ndim - orig)))
            dim += skip
            orig += skip
        elif dim >= len(cur):
            raise ProgramIndexError(f"too many indices for tensor of dimension {ndim}")
        elif kind == "int":
            i = as_int(item, "index")
            size = cur[dim]
            if not -size <= i < size:
                raise ProgramIndexError(f"index {i} is out of bounds for dimension {orig} with size {size}")
            i %= size
            steps.append(("select", dim, i))
            basic.append(i)
            del cur[dim]
            orig += 1
        elif kind == "slice":
            start = _slice_bound(item.start, "start")
            stop = _slice_bound(item.stop, "stop")
            step = _slice_bound(item.step, "step")
            if step == 0:
                raise ProgramValueError("slice step cannot be zero")
            if step is not None and step < 0:
                raise ProgramValueError("step must be greater than zero")
            size = cur[dim]
            whole = start in (None, 0) and (stop is None or stop >= size) and step in (None, 1)
            start, stop, step = slice(start, stop, step).indices(size)
            if single or not whole:
                steps.append(("slice", dim, start, stop, step))
            basic.append(slice(start, stop, step))
            cur[dim] = len(range(start, stop, step))
            dim += 1
            orig += 1
        else:
            arr = arrays[k]
            if arr.dtype == np.bool_:
                width = arr.ndim
                for j in range(width):
                    if arr.shape[j] != cur[dim + j]:
                        raise ProgramIndexError(
                            f"The shape of the mask {shape_str(arr.shape)} at index {j} does not match the "
                            f"shape of the indexed tensor {shape_str(cur)} at index {dim + j}")
                for j, part in enumerate(np.nonzero(arr)):
                    adv.append((dim + j, part, len(adv)))
                basic.extend([slice(None)] * width)
                dim += width
                orig += width
            else:
                size = cur[dim]
                bad = arr[(arr >= size) | (arr < -size)]
                if bad.size:
                    raise ProgramIndexError(
                        f"index {int(bad.flat[0])} is out of bounds for dimension {len(adv)} with size {size}")
                adv.append((dim, arr, len(adv)))
                basic.append(slice(None))
                dim += 1
                orig += 1
    advanced = None
    if adv:
        try:
            broadcast(*[a.shape for _, a, _ in adv])
        except ValueError:
            raise ProgramIndexError(
                "shape mismatch: indexing tensors could not be broadcast together with shapes "
                + ", ".join(shape_str(a.shape) for _, a, _ in adv)) from None
        at = {d: a for d, a, _ in adv}
        advanced = tuple(at.get(d, slice(None)) for d in range(max(at) + 1))
    return steps, tuple(basic) + (Ellipsis,), advanced


def getitem(input, index):
    """`input[index]`, recorded as PyTorch records it (SelectBackward0, SliceBackward0, IndexBackward0...)."""
    if not isinstance(input, Tensor):
        raise ProgramTypeError(f"'{type(input).__name__}' object is not subscriptable")
    steps, _, advanced = _parse_index(input._data.shape, index)
    result = input
    for step in steps:
        if step[0] == "select":
            out = apply(select_op, (result,), {"dim": step[1], "index": step[2]})
        elif step[0] == "slice":
            out = apply(slice_op, (result,), {"dim": step[1], "start": step[2], "end": step[3],
                                              "step": step[4]})
        else:
            out = apply(unsqueeze, (result,), {"dim": step[1]})
        result = out
    if advanced is not None:
        picked = broadcast(*[a.shape for a in advanced if not isinstance(a, slice)])
        kept = [s for d, s in enumerate(result._data.shape)
                if d >= len(advanced) or isinstance(advanced[d], slice)]
        check_elements(math.prod(picked) * math.prod(kept))
        return apply(index_op, (result,), {"indices": (None, advanced)})
    if result is input:
        return apply(alias, (input,))
    return result


def setitem(input, index, value):
    """`input[index] = value`: in place; recorded as CopySlices (IndexPutBackward0 for tensor indices)."""
    if not isinstance(input, Tensor):
        raise ProgramTypeError(f"'{type(input).__name__}' object does not support item assignment")
    if input.requires_grad and input.grad_fn is None and _grad_enabled[0]:
        raise AutogradError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    _, basic, advanced = _parse_index(input._data.shape, index)
    indices = (basic, advanced)
    target = _view(input._data, indices).shape
    if isinstance(value, Tensor) and advanced is not None and value._data.dtype != input._data.dtype and not (
            isinstance(index, Tensor) and index._data.dtype == np.bool_ and value._data.ndim == 0):
        # index_put (a 0-d value under one bool mask is masked_fill's, which casts)
        raise ProgramError(f"Index put requires the source and destination dtypes match, got "
                           f"{input.dtype.legacy} for the destination and {value.dtype.legacy} for the source.")
    if isinstance(value, Tensor):
        shape = value._data.shape
        if len(shape) > len(target) and all(d == 1 for d in shape[:len(shape) - len(target)]):
            value = TENSORS.reshape(value, shape[len(shape) - len(target):])
            shape = value._data.shape
        _expand_shape(shape, target)   # PyTorch's expand errors
    elif not isinstance(value, (int, float, bool, np.number, np.bool_)):
        raise ProgramTypeError(f"can't assign a {type(value).__name__} to a Tensor")
    recording = _grad_enabled[0] and (
        input.requires_grad or (isinstance(value, Tensor) and value.requires_grad)) or (
        _dual.ACTIVE[0] and _dual.has_tangent(input, value))   # forward mode: the tangent is written too
    if not recording:
        data = input._data
        if not data.flags.writeable:
            # an expanded tensor: numpy's broadcast views are read-only
            view = data[basic]
            if advanced is None and any(st == 0 and n > 1 for st, n in zip(view.strides, view.shape)):
                raise ShapeError(
                    "unsupported operation: more than one element of the written-to tensor refers to a "
                    "single memory location. Please clone() the tensor before performing the operation.")
            data = input._data = data.copy()
        v = value._data if isinstance(value, Tensor) else value
        if data.dtype == np.float16:   # a double into half: through a float
            v = dtypes.cast(v, np.float16)
        view = data[basic]
        if advanced is None:
            view[...] = v
        else:
            view[advanced] = v
        bump_version(input)
        return None
    op = copy_slices if advanced is None else index_put
    input._inplace(lambda t, v: apply(op, (t, v), {"indices": indices}), value)
    return None


export("getitem", getitem, method=False)
export("setitem", setitem, method=False)
