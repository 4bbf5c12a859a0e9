"""The tail of torch's functions that scripts use: random sampling (normal, randint,
randperm, multinomial, bernoulli and the in-place random_/normal_/uniform_), the
integer-valued queries (nonzero, unique, isnan/isinf/isfinite, one-argument where),
meshgrid, repeat_interleave, scatter, type_as, resize_.

Random numbers come from gradcli's generator (`factories._rng`: the one
`torch.manual_seed` resets), so they are reproducible but not PyTorch's numbers.
The queries give tensors that do not require grad, as PyTorch's do; meshgrid and
repeat_interleave are composed of differentiable ops (expand, reshape,
index_select); scatter with a `src` that requires grad is composed of
differentiable ops (the values it overwrites get no gradient, as PyTorch's).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from .._tensor import Tensor, _dim, as_int, check_elements, no_grad
from ..errors import ProgramError, ProgramTypeError, ProgramValueError, ShapeError
from .factories import _leaf, _np_dtype, _rng, _size
from .registry import FUNCTIONS, METHODS, TENSORS, export
from .shapes import broadcast


def _array(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _shape_arg(size, name):
    if size is None:
        return None
    return _size((size,) if not isinstance(size, (tuple, list)) else (tuple(size),), name)


# --- sampling -------------------------------------------------------------------------

def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False):
    """Normal numbers: of `size` from float mean/std, or of the broadcast shape of tensors."""
    rng = _rng(None)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m, s = _array(mean), _array(std)
        shape = broadcast(np.shape(m), np.shape(s))
        check_elements(math.prod(shape))
        kind = (mean if isinstance(mean, Tensor) else std)._data.dtype
        data = (m + s * rng.standard_normal(shape)).astype(kind)
        return _leaf(data, requires_grad)
    shape = _shape_arg(size, "normal")
    if shape is None:
        raise ProgramTypeError("normal() received an invalid combination of arguments: give "
                               "size= with float mean and std")
    data = rng.normal(float(mean), float(std), shape).astype(_np_dtype(dtype), copy=False)
    return _leaf(data, requires_grad)


def randint(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False,
            **kwargs):
    """Integers in [low, high): randint(high, size) or randint(low, high, size)."""
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list)):
        size = args.pop()
    if "high" in kwargs:
        args.append(kwargs.pop("high"))
    if "low" in kwargs:
        args.insert(0, kwargs.pop("low"))
    if kwargs:
        raise ProgramTypeError(f"randint() got an unexpected keyword argument "
                               f"'{next(iter(kwargs))}'")
    if len(args) == 1:
        low, high = 0, as_int(args[0], "high")
    elif len(args) == 2:
        low, high = as_int(args[0], "low"), as_int(args[1], "high")
    else:
        raise ProgramTypeError("randint() takes (high, size) or (low, high, size)")
    if size is None:
        raise ProgramTypeError("randint() missing 1 required positional arguments: \"size\"")
    if high <= low:
        raise ProgramValueError(f"random_ expects 'from' to be less than 'to', but got "
                                f"from={low} >= to={high}")
    shape = _shape_arg(size, "randint")
    data = _rng(None).integers(low, high, shape)
    return _leaf(data.astype(np.int64 if dtype is None else dtypes.resolve(dtype).np),
                 requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, **kwargs):
    n = as_int(n, "n")
    if n < 0:
        raise ProgramValueError(f"n must be non-negative, got{n}")
    check_elements(n)
    data = _rng(None).permutation(n)
    return _leaf(data.astype(np.int64 if dtype is None else dtypes.resolve(dtype).np),
                 requires_grad)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices drawn with the weights of each row (without replacement unless asked)."""
    weights = _array(input).astype(float)
    if weights.ndim not in (1, 2):
        raise ShapeError("prob_dist must be 1 or 2 dim")
    k = as_int(num_samples, "num_samples")
    rows = weights.reshape(-1, weights.shape[-1])
    if (rows < 0).any() or not np.isfinite(rows).all():
        raise ProgramValueError("probability tensor contains either `inf`, `nan` or element < 0")
    if not replacement and k > rows.shape[1]:
        raise ProgramValueError("cannot sample n_sample > prob_dist.size(-1) samples without "
                                "replacement")
    check_elements(rows.shape[0] * k)
    rng = _rng(None)
    out = np.empty((rows.shape[0], k), dtype=np.int64)
    for i, row in enumerate(rows):
        total = row.sum()
        if total <= 0:
            raise ProgramValueError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not replacement and np.count_nonzero(row) < k:
            raise ProgramValueError("invalid multinomial distribution (with replacement=False, "
                                    "not enough non-negative category to sample)")
        out[i] = rng.choice(len(row), size=k, replace=bool(replacement), p=row / total)
    return _leaf(out.reshape(k) if weights.ndim == 1 else out, False)


def bernoulli(input, p=None, *, generator=None, out=None):
    probs = _array(input) if p is None else np.full(_array(input).shape, float(p))
    data = (_rng(None).random(probs.shape) < probs).astype(_array(input).dtype)
    return _leaf(data, False)


def _fill_random(self, values) -> Tensor:
    """Write `values` into self as PyTorch's in-place random ops do (a leaf that requires
    grad is refused outside no_grad, as for any in-place op)."""
    from .views import _check_inplace, bump_version

    _check_inplace(self)
    self._data[...] = values.astype(self._data.dtype, copy=False)
    bump_version(self)
    return self


def random_(self, *args, generator=None):
    """Integers in [from, to) (to defaults to 2**mantissa for floats, as PyTorch's)."""
    if len(args) == 1:
        low, high = 0, as_int(args[0], "to")
    elif len(args) == 2:
        low = as_int(args[0], "from")
        high = 2 ** 24 if args[1] is None else as_int(args[1], "to")
    else:
        low, high = 0, 2 ** 24 if self._data.dtype == np.float32 else 2 ** 53
    return _fill_random(self, _rng(None).integers(low, high, self._data.shape))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    return _fill_random(self, _rng(None).normal(float(mean), float(std), self._data.shape))


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    return _fill_random(self, _rng(None).uniform(float(a), float(b), self._data.shape))


def bernoulli_(self, p=0.5, *, generator=None):
    return _fill_random(self, _rng(None).random(self._data.shape) < float(p))


def exponential_(self, lambd=1.0, *, generator=None):
    return _fill_random(self, _rng(None).exponential(1.0 / float(lambd), self._data.shape))


# --- queries --------------------------------------------------------------------------

def nonzero(input, *, out=None, as_tuple=False):
    data = _array(input)
    if as_tuple:
        if data.ndim == 0:
            return (_leaf(np.nonzero(data.reshape(1))[0].astype(np.int64), False),)
        return tuple(_leaf(ix.astype(np.int64), False) for ix in np.nonzero(data))
    return _leaf(np.argwhere(data).astype(np.int64), False)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    data = _array(input)
    if dim is not None:
        values, inverse, counts = np.unique(data, return_inverse=True, return_counts=True,
                                            axis=_dim(dim, data.ndim))
    else:
        values, inverse, counts = np.unique(data, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(data.shape)
    out = [_leaf(values, False)]
    if return_inverse:
        out.append(_leaf(inverse.astype(np.int64), False))
    if return_counts:
        out.append(_leaf(counts.astype(np.int64), False))
    return out[0] if len(out) == 1 else tuple(out)


def _predicate(name, fn):
    def query(input):
        if not isinstance(input, Tensor):
            raise ProgramTypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                                   f"{type(input).__name__}")
        return _leaf(fn(input._data), False)
    query.__name__ = name
    return query


isnan = _predicate("isnan", np.isnan)
isinf = _predicate("isinf", np.isinf)
isfinite = _predicate("isfinite", np.isfinite)
isposinf = _predicate("isposinf", np.isposinf)
isneginf = _predicate("isneginf", np.isneginf)


def where(condition, input=None, other=None):
    """torch.where(cond, x, y), or torch.where(cond): nonzero(cond, as_tuple=True)."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    return _WHERE(condition, input, other)


# --- shapes ---------------------------------------------------------------------------

def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in (None, "ij", "xy"):
        raise ProgramValueError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", "
                                f"but received: {indexing}")
    sizes = [int(np.prod(t.shape)) for t in tensors]
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        sizes[0], sizes[1] = sizes[1], sizes[0]
        tensors = (tensors[1], tensors[0], *tensors[2:])
    check_elements(math.prod(sizes) * len(tensors))
    out = []
    for i, t in enumerate(tensors):
        shape = [1] * len(tensors)
        shape[i] = -1
        out.append(TENSORS.expand(TENSORS.reshape(t, tuple(shape)), *sizes))
    if swap:  # "xy": the "ij" grids of (y, x, ...), given back in the order (x, y, ...)
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along dim) repeated: expand and reshape for an int count,
    index_select for a tensor of counts (both differentiable)."""
    if repeats is None:  # torch.repeat_interleave(counts): the indices repeated
        counts = _array(input).astype(np.int64)
        return _leaf(np.repeat(np.arange(len(counts)), counts), False)
    x = input if dim is not None else TENSORS.reshape(input, (-1,))
    d = 0 if dim is None else _dim(dim, len(x.shape))
    if isinstance(repeats, Tensor) and repeats._data.size != 1:
        counts = repeats._data.astype(np.int64)
        if (counts < 0).any():
            raise ProgramValueError("repeats can not be negative")
        index = np.repeat(np.arange(x.shape[d]), counts)
        check_elements(len(index) * int(np.prod(x.shape)) // max(x.shape[d], 1))
        return TENSORS.index_select(x, d, _leaf(index, False))
    n = as_int(repeats.item() if isinstance(repeats, Tensor) else repeats, "repeats")
    if n < 0:
        raise ProgramValueError("repeats can not be negative")
    shape = list(x.shape)
    check_elements(int(np.prod(shape)) * n)
    expanded = list(shape)
    expanded.insert(d + 1, n)
    y = TENSORS.expand(TENSORS.unsqueeze(x, d + 1), *expanded)
    shape[d] *= n
    return TENSORS.reshape(y, tuple(shape))


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """`input` with `src` (or a number) written at `index` along `dim` (out of place)."""
    if src is None and value is None:
        raise ProgramTypeError("scatter() missing 1 required argument: 'src' or 'value'")
    if src is None:
        src = value
    if reduce is not None:
        raise ProgramValueError("scatter's reduce= is not supported in gradcli",
                                hint="scatter_add for sums")
    index = _array(index).astype(np.int64)
    data = _array(input)
    d = _dim(dim, data.ndim)
    if index.ndim != data.ndim:
        raise ShapeError("Index tensor must have the same number of dimensions as self tensor")
    if ((index < 0) | (index >= data.shape[d])).any():
        bad = index[(index < 0) | (index >= data.shape[d])].flat[0]
        raise ShapeError(f"index {bad} is out of bounds for dimension {d} with size "
                         f"{data.shape[d]}")
    positions = list(np.indices(index.shape, sparse=True))
    positions[d] = index
    positions = tuple(positions)
    mask = np.zeros(data.shape, dtype=bool)
    mask[positions] = True
    if isinstance(src, Tensor):
        window = tuple(slice(0, s) for s in index.shape)
        if src.requires_grad or input.requires_grad:
            placed = FUNCTIONS["scatter_add"](TENSORS.zeros_like(input), dim, _leaf(index, False),
                                         src[window] if src.shape != index.shape else src)
            keep = _leaf(~mask, False)
            return TENSORS.where(keep, input, placed)
        values = src._data[window]
    else:
        values = dtypes.checked_value(src, data.dtype) if index.size else src
    out = data.copy()
    out[positions] = values
    return _leaf(out, False)


def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    return self._inplace(lambda t: scatter(t, dim, index, src, value, reduce=reduce))


def type_as(self, other):
    return self.to(other.dtype)


def resize_(self, *sizes):
    """The tensor's storage made `sizes` (the first elements kept, new ones zero)."""
    if self.requires_grad:
        raise ProgramValueError("cannot resize variables that require grad")
    shape = _size(sizes, "resize_")
    flat = self._data.reshape(-1)
    data = np.zeros(math.prod(shape), dtype=flat.dtype)
    count = min(flat.size, data.size)
    data[:count] = flat[:count]
    self._data = data.reshape(shape)
    return self


# --- bitwise ops on bool and integer tensors (`mask & other`, `~mask`) -------------------

def _bitwise(name, fn):
    def op(input, other):
        a, b = _array(input), _array(other)
        for value in (a, b):
            if value.dtype.kind == "f":
                raise ProgramError(f"\"{name}_cpu\" not implemented for "
                                       f"'{'Float' if value.dtype == np.float32 else 'Double'}'")
        if not isinstance(other, Tensor) and a.dtype.kind != "b":
            b = np.asarray(b, dtype=a.dtype)
        if not isinstance(input, Tensor) and b.dtype.kind != "b":
            a = np.asarray(a, dtype=b.dtype)
        out = fn(a, b)
        return _leaf(out if out.dtype.kind == "b" else out.astype(np.int64, copy=False)
                     if a.dtype.kind == "b" or b.dtype.kind == "b" else out, False)
    op.__name__ = name
    return op


bitwise_and = _bitwise("bitwise_and", np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor)


def bitwise_not(input):
    data = _array(input)
    if data.dtype.kind == "f":
        raise ProgramError(f"\"bitwise_not_cpu\" not implemented for "
                               f"'{'Float' if data.dtype == np.float32 else 'Double'}'")
    return _leaf(np.invert(data), False)


for _fn in (bitwise_and, bitwise_or, bitwise_xor, bitwise_not):
    export(_fn.__name__, _fn)
METHODS["bitwise_and_"] = lambda self, other: self._inplace(bitwise_and, other)
METHODS["bitwise_or_"] = lambda self, other: self._inplace(bitwise_or, other)

_WHERE = FUNCTIONS["where"]
for _fn in (normal, randint, randperm, multinomial, bernoulli, nonzero, unique, isnan, isinf,
            isfinite, isposinf, isneginf, meshgrid, repeat_interleave, scatter):
    export(_fn.__name__, _fn, method=_fn not in (normal, randint, randperm, meshgrid))
FUNCTIONS["where"] = where
for _fn in (random_, normal_, uniform_, bernoulli_, exponential_, scatter_, type_as, resize_):
    METHODS[_fn.__name__] = _fn
METHODS["resize"] = lambda self, *sizes: TENSORS.reshape(self, _size(sizes, "resize"))
FUNCTIONS["arccos"], FUNCTIONS["arcsin"], FUNCTIONS["arctan"] = (
    FUNCTIONS["acos"], FUNCTIONS["asin"], FUNCTIONS["atan"])
del _fn, no_grad
