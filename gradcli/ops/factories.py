"""Factories: tensor, zeros, ones, full, arange, linspace, logspace, eye, rand, randn, the *_like
forms, the x.new_* methods, manual_seed, nn.Parameter; and the two ops that copy or clear a tensor (clone, zero_).

Every factory makes a leaf that requires grad only when asked
(`requires_grad=True`), as in PyTorch, of PyTorch's dtype: `dtype=` if given,
else what the data says (ints int64, floats the default dtype, bools bool). Sizes are checked against
the element limit before anything is allocated. Random numbers come from
numpy's Generator: `seed=` gives a generator of its own (the same numbers every
time), otherwise the global one, which `manual_seed(n)` resets. The numbers are
not PyTorch's (another generator), only as reproducible.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..errors import ProgramTypeError, ProgramValueError, type_name
from .._tensor import Tensor, as_int, check_elements, version_counter
from .domains import cases
from .apply import apply
from .registry import METHODS, defop, export, LINEAR
from . import torch_ranges
from ..warn import warn

# PyTorch seeds its CPU generator with this constant, so an unseeded program
# draws the same numbers on every run; so does gradcli (from its own generator).
DEFAULT_SEED = 67280421310721
_generator = [None]  # made on first use: numpy.random costs ~5 ms to import


def _np_dtype(dtype, inferred=None):
    """The numpy dtype of a new tensor: `dtype=` if given, else `inferred` (a numpy dtype or a
    Python value's type), else the default float dtype."""
    if dtype is not None:
        return dtypes.resolve(dtype).np
    if inferred is None:
        return dtypes.get_default_dtype().np
    if inferred is bool or inferred is np.bool_ or inferred == np.bool_:
        return np.dtype(np.bool_)
    if isinstance(inferred, type):
        inferred = np.dtype(int if issubclass(inferred, (int, np.integer)) else float)
    if inferred.kind in "iu":
        return np.dtype(np.int64)
    return dtypes.get_default_dtype().np


def _value_type(value):
    return type(value.item()) if isinstance(value, (Tensor, np.generic)) else type(value)


def _leaf(data: np.ndarray, requires_grad) -> Tensor:
    t = Tensor._make(data)
    if requires_grad:
        t._set_requires_grad(True)   # PyTorch's error for a bool tensor
    return t


def _size(sizes, name: str) -> tuple:
    """A size given as `f(2, 3)`, `f((2, 3))`, `f([2, 3])` or `f(x.shape)`, checked and counted."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    shape = tuple(as_int(s, "size") for s in sizes)
    for s in shape:
        if s < 0:
            raise ProgramValueError(f"{name}: Dimension size must be non-negative.")
    check_elements(math.prod(shape))
    return shape


# -- tensor() --------------------------------------------------------------------------


def _is_sequence(x) -> bool:
    return isinstance(x, (list, tuple)) or (isinstance(x, Tensor) and x._data.ndim > 0) or (
        isinstance(x, np.ndarray) and x.ndim > 0)


def _items(x) -> list:
    if isinstance(x, Tensor):
        return list(x._data)
    return list(x)


def _scalar(x):
    if isinstance(x, Tensor):
        return x._data.item()
    if isinstance(x, np.ndarray):
        return x.item()
    if isinstance(x, (bool, int, float, np.number, np.bool_)):
        return x
    raise ProgramTypeError(f"new(): invalid data type '{type(x).__name__}'")


def _nested(data):
    """The shape and the flat elements of nested lists, level by level (no recursion)."""
    shape = []
    level = [data]
    while level and _is_sequence(level[0]):
        n = len(_items(level[0])) if not isinstance(level[0], (list, tuple)) else len(level[0])
        nxt = []
        for x in level:
            if not _is_sequence(x):
                raise ProgramValueError(
                    f"expected sequence of length {n} at dim {len(shape)} (got a number)")
            items = _items(x)
            if len(items) != n:
                raise ProgramValueError(
                    f"expected sequence of length {n} at dim {len(shape)} (got {len(items)})")
            nxt.extend(items)
        shape.append(n)
        level = nxt
    flat = []
    for x in level:
        if _is_sequence(x):
            raise ProgramValueError(
                f"expected a number at dim {len(shape)} (got a sequence of length {len(_items(x))})")
        flat.append(_scalar(x))
    return tuple(shape), flat


COPY_CONSTRUCT = ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                  "or sourceTensor.detach().clone().requires_grad_(True), rather than "
                  "torch.tensor(sourceTensor).")


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf holding a copy of `data` (nested lists of numbers, or tensors); PyTorch warns
    that a tensor is better copied with detach().clone()."""
    if isinstance(data, Tensor):
        warn(COPY_CONSTRUCT)
    return new_tensor(data, dtype, requires_grad)


def new_tensor(data, dtype=None, requires_grad=False):
    """torch.tensor's work, without its warning (the legacy constructors: torch.FloatTensor(t))."""
    if isinstance(data, Tensor) and dtype is None:
        dtype = data.dtype   # a tensor keeps its dtype
    if isinstance(data, Tensor) and data._data.ndim == 0:
        shape, flat = (), [data._data.item()]
    elif isinstance(data, np.ndarray):
        if dtype is None and data.dtype.kind == "f":
            dtype = dtypes.BY_NUMPY.get(data.dtype)
        shape, flat = data.shape, None
    else:
        shape, flat = _nested(data)
    check_elements(math.prod(shape))
    if flat is None:
        values = np.array(data)
    else:
        values = np.array(flat)
    if values.dtype.kind not in "biuf" and values.size:
        raise ProgramTypeError(f"new(): invalid data type '{values.dtype}'")
    out = dtypes.cast(values, _np_dtype(dtype, values.dtype if values.size else None))
    return _leaf(out.reshape(shape), requires_grad)


export("tensor", tensor, method=False)


# -- filled tensors -------------------------------------------------------------------


def _named(factory, name: str, doc: str):
    """`factory` named `name` (as PyTorch's function is) with its docstring."""
    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = doc
    return factory


def _filled(name, value):
    def factory(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
                pin_memory=False, memory_format=None):
        data = np.full(_size(size, name), value, dtype=_np_dtype(dtype))
        return _leaf(data, requires_grad)
    return _named(factory, name, f"A new leaf of the given size filled with {value:g}.")


zeros = export("zeros", _filled("zeros", 0.0), method=False)
ones = export("ones", _filled("ones", 1.0), method=False)
# Uninitialized memory is nothing a calculator should show: empty is zeros.
empty = export("empty", _filled("empty", 0.0), method=False)


def _filled_array(shape, value, np_dtype) -> np.ndarray:
    """An array of `shape` filled with `value` as PyTorch converts it (`dtypes.checked_value`)."""
    value = dtypes.checked_value(value, np_dtype, math.prod(shape))
    with np.errstate(invalid="ignore", over="ignore"):
        return np.full(shape, dtypes.cast(value, np_dtype), dtype=np_dtype)


def full(size, fill_value, dtype=None, device=None, requires_grad=False, out=None):
    """A new leaf of `size` filled with `fill_value` (a bool fill gives a bool tensor)."""
    shape = _size((size,) if not isinstance(size, (tuple, list)) else (tuple(size),), "full")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _leaf(_filled_array(shape, fill_value, _np_dtype(dtype, _value_type(fill_value))), requires_grad)


export("full", full, method=False)


def _like_input(name, input) -> Tensor:
    """The tensor a `*_like` factory takes its shape from: PyTorch refuses anything else."""
    if not isinstance(input, Tensor):
        raise ProgramTypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type_name(input)}")
    return input


def _like(name, fill):
    def factory(input, dtype=None, device=None, requires_grad=False, memory_format=None):
        data = _like_input(name, input)._data
        return _leaf(np.full(data.shape, fill, dtype=data.dtype if dtype is None else _np_dtype(dtype)),
                     requires_grad)
    return _named(factory, name, f"A new leaf of `input`'s shape filled with {fill:g}.")


zeros_like = export("zeros_like", _like("zeros_like", 0.0), method=False)
ones_like = export("ones_like", _like("ones_like", 1.0), method=False)
empty_like = export("empty_like", _like("empty_like", 0.0), method=False)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None):
    """A new leaf of `input`'s shape filled with `fill_value`."""
    data = _like_input("full_like", input)._data
    return full(data.shape, fill_value, dtype=dtypes.BY_NUMPY[data.dtype] if dtype is None else dtype,
                requires_grad=requires_grad)


export("full_like", full_like, method=False)


# -- ranges ----------------------------------------------------------------------------


def _number(x, what):
    if isinstance(x, Tensor):
        return x.item()
    if isinstance(x, (bool, int, float, np.number)):
        return float(x)
    raise ProgramTypeError(f"{what} must be a number, not {type(x).__name__}")


def arange(start, end=None, step=1, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """start, start + step, ... up to (not including) end; `arange(n)` is 0 .. n-1."""
    if end is None:
        start, end = 0, start
    integral = all(issubclass(_value_type(v), (int, np.integer)) for v in (start, end, step))
    start = _number(start, "start")
    end = _number(end, "end")
    step = _number(step, "step")
    if not all(math.isfinite(v) for v in (start, end)):
        raise ProgramValueError(f"unsupported range: {start} -> {end}")
    if step == 0:
        raise ProgramValueError("step must be nonzero")
    if (end - start) / step < 0:
        raise ProgramValueError("upper bound and lower bound inconsistent with step sign")
    n = math.ceil((end - start) / step)
    check_elements(n)
    np_dtype = _np_dtype(dtype, int if integral else float)
    if integral and np_dtype.kind in "iu":
        return _leaf((int(start) + int(step) * np.arange(n, dtype=np.int64)).astype(np_dtype), requires_grad)
    return _leaf(torch_ranges.arange(start, n, step, np_dtype), requires_grad)


export("arange", arange, method=False)


def _check_steps(steps: int) -> None:
    """linspace's and logspace's steps, once their arguments are read: PyTorch's error if negative."""
    if steps < 0:
        raise ProgramValueError("number of steps must be non-negative")
    check_elements(steps)


def linspace(start, end, steps, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """`steps` points from start to end inclusive, evenly spaced."""
    start = _number(start, "start")
    end = _number(end, "end")
    steps = as_int(steps, "steps")
    _check_steps(steps)
    np_dtype = _np_dtype(dtype)
    if steps < 2:   # PyTorch fills with start
        return _leaf(_filled_array((steps,), start, np_dtype), requires_grad)
    dtypes.check_value(start, np_dtype)   # PyTorch's refusal of 70000 as a half
    dtypes.check_value(end, np_dtype)
    # PyTorch's formula, rounded as its kernel rounds: the first half counts up from
    # start, the second down from end, so both ends are exact
    return _leaf(torch_ranges.linspace(start, end, steps, np_dtype), requires_grad)


export("linspace", linspace, method=False)


def logspace(start, end, steps, base=10.0, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """`steps` points from base ** start to base ** end, their exponents evenly spaced."""
    start = _number(start, "start")
    end = _number(end, "end")
    steps = as_int(steps, "steps")
    base = _number(base, "base")
    _check_steps(steps)
    np_dtype = _np_dtype(dtype)
    if steps < 2:
        with np.errstate(over="ignore", invalid="ignore"):
            return _leaf(dtypes.cast(np.array([base ** start if steps else 0.0] * steps), np_dtype), requires_grad)
    dtypes.check_value(start, np_dtype)
    dtypes.check_value(end, np_dtype)
    return _leaf(torch_ranges.logspace(start, end, steps, base, np_dtype), requires_grad)


export("logspace", logspace, method=False)


def eye(n, m=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The n x m identity matrix (m defaults to n)."""
    n = as_int(n, "n")
    if n < 0:
        raise ProgramValueError(f"n must be greater or equal to 0, got {n}")
    m = n if m is None else as_int(m, "m")
    if m < 0:
        raise ProgramValueError(f"m must be greater or equal to 0, got {m}")
    check_elements(n * m)
    return _leaf(np.eye(n, m, dtype=_np_dtype(dtype)), requires_grad)


export("eye", eye, method=False)


# -- random ----------------------------------------------------------------------------


def manual_seed(seed) -> None:
    """Reset the global generator: the numbers rand/randn draw next are the same each run."""
    _generator[0] = np.random.default_rng(as_int(seed, "seed"))


def _rng(seed):
    if seed is not None:
        return np.random.default_rng(as_int(seed, "seed"))
    if _generator[0] is None:
        _generator[0] = np.random.default_rng(DEFAULT_SEED)
    return _generator[0]


def rand(*size, seed=None, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Uniform numbers in [0, 1); `seed=` gives the same numbers every time."""
    shape = _size(size, "rand")
    return _leaf(_rng(seed).random(shape).astype(_np_dtype(dtype), copy=False), requires_grad)


def randn(*size, seed=None, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Standard normal numbers; `seed=` gives the same numbers every time."""
    shape = _size(size, "randn")
    return _leaf(_rng(seed).standard_normal(shape).astype(_np_dtype(dtype), copy=False), requires_grad)


export("manual_seed", manual_seed, method=False)
export("rand", rand, method=False)
export("randn", randn, method=False)
export("rand_like", lambda input, seed=None, requires_grad=False, dtype=None, **_: rand(
    _like_input("rand_like", input).shape, seed=seed, requires_grad=requires_grad,
    dtype=input.dtype if dtype is None else dtype), method=False)
export("randn_like", lambda input, seed=None, requires_grad=False, dtype=None, **_: randn(
    _like_input("randn_like", input).shape, seed=seed, requires_grad=requires_grad,
    dtype=input.dtype if dtype is None else dtype), method=False)


# -- ops: clone, zero_ -----------------------------------------------------------------


def _clone(self):
    return np.array(self, copy=True)


clone_op = defop(
    "clone", "CloneBackward0", _clone, public=False,
    rules=(lambda F, g: g,), formulas=("grad",),
    sympy=lambda sp, x: np.array(x, copy=True),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, ()),), {}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {})), tangent=LINEAR,
)


def clone(input, memory_format=None):
    """A copy with storage of its own that stays in the graph (CloneBackward0)."""
    return apply(clone_op, (input,))


export("clone", clone, array=_clone)


def _zero(self):
    return np.zeros(np.shape(self), dtype=np.asarray(self).dtype)


zero_op = defop(
    "zero", "ZeroBackward0", _zero, public=False,
    rules=(lambda F, g: g * 0.0,), formulas=("zeros_like(grad)",),
    sympy=lambda sp, x: np.zeros(np.shape(x), dtype=object) * 0,
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (3,)),), {})), tangent=LINEAR,
)


def zeros_like_op(input):
    """What `x.zero_()` records on a tensor in a graph: zeros, with a zero gradient (ZeroBackward0)."""
    return apply(zero_op, (input,))


export("zeros_like_op", zeros_like_op, method=False)


# -- x.new_zeros(...) and friends: new leaves of x's dtype -----------------------------------


def _new_dtype(self, dtype):
    """x's dtype unless one is given."""
    return self._data.dtype if dtype is None else _np_dtype(dtype)


def _new_filled(name, value):
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        shape = _size(size, name)
        return _leaf(np.full(shape, value, dtype=_new_dtype(self, dtype)), requires_grad)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"A new leaf of the given size filled with {value:g}, of this tensor's dtype (no grad)."
    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    """A new leaf of `size` filled with `fill_value`, of this tensor's dtype (no grad)."""
    shape = _size((size,) if not isinstance(size, (tuple, list)) else (tuple(size),), "new_full")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _leaf(_filled_array(shape, fill_value, _new_dtype(self, dtype)), requires_grad)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """A new leaf holding a copy of `data`, of this tensor's dtype (no grad, even from a tensor)."""
    values = tensor(data)._data
    return _leaf(dtypes.cast(values, _new_dtype(self, dtype)), requires_grad)


for _name, _method in (("new_zeros", _new_filled("new_zeros", 0.0)), ("new_ones", _new_filled("new_ones", 1.0)),
                       ("new_empty", _new_filled("new_empty", 0.0)), ("new_full", _new_full),
                       ("new_tensor", _new_tensor)):
    _method.__name__ = _method.__qualname__ = _name
    METHODS[_name] = _method     # methods only: PyTorch has no torch.new_zeros


# -- nn.Parameter -------------------------------------------------------------------------


class Parameter(Tensor):
    """torch.nn.Parameter: a leaf sharing `data`'s storage and version counter, requiring grad.

    Like PyTorch's, it prints as "Parameter containing:" over the tensor; what an
    op makes of it is a plain Tensor.
    """

    __slots__ = ()

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = Tensor._make(np.zeros((0,)))
        if not isinstance(data, Tensor):
            raise ProgramTypeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        Tensor.__init__(self, 0.0)
        self._data = data._data
        self._counter = version_counter(data)
        if requires_grad:
            self._set_requires_grad(True)   # PyTorch's error for a bool tensor

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__
