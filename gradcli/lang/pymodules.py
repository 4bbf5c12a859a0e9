"""`import math`, `import numpy as np`, `torch.device` and `torch.cuda` for a program.

Never the real modules: each namespace lists the functions a program may call, each
bounded so that it cannot hang or exhaust memory (an integer result past
MAX_INT_BITS becomes a float, as the language's own arithmetic does; an array over
the element limit is refused before it is made). The numpy facade works on real
numpy arrays and scalars, so they print as numpy prints them; `x.numpy()` is a
read-only view, so writing through it is refused, and only the attributes that
`gradcli.lang.access` lists can be read on an array.
"""
from __future__ import annotations

import math
from functools import reduce

import numpy as np

from gradcli import _tensor, dtypes
from gradcli.errors import AutogradError, LimitError, ProgramError, ProgramTypeError, \
    cuda_unavailable
from gradcli.limits import ELEMENTS_PER_WORK, MAX_LIST_ITEMS, NUMBERS_PER_WORK, OP_WORK, budget
from gradcli.lang.sequences import check_length, materialize
from gradcli.lang.limits import MAX_INT_BITS
from gradcli.lang.values import Builtin, Namespace, type_name
from gradcli.warn import warn
from gradcli.ops.shapes import broadcast

Tensor = _tensor.Tensor
ndarray = np.ndarray

# --- math ----------------------------------------------------------------------------

_MATH_CONSTANTS = ("pi", "e", "tau", "inf", "nan")
_LAST_FINITE_FACTORIAL = 170  # 171! is past float64's range
# comb/perm are computed exactly only where the result fits a float64 (2^1024): past it the
# answer is inf anyway, and the exact big int (comb(10^4, 5*10^3): 3,000 digits, 3 ms)
# would be work the budget never saw. Under the bound a result has at most ~1,030 factors.
_FLOAT_BITS = 1025
# Work per item of the math functions that walk a list or their arguments, measured (the
# slowest inputs, on the loaded 2-core machine): fsum ~190 ns an item (values whose partial
# sums cancel), dist ~75 ns a coordinate, hypot ~50 ns an argument, prod ~40 ns an item
# of numbers (more of strings and lists: a check each), lcm ~0.5 us (its Python loop).
_NUMBER_TYPES = frozenset((int, float, bool))
_ITEM_WORK = {"fsum": 1.0, "dist": 1.0, "hypot": 1.0, "prod": 1.0, "lcm": 4.0, "gcd": 0.25}


def _charge_items(name: str, count: int) -> None:
    """Charge a math function its items before it walks them."""
    budget.charge(int(count * _ITEM_WORK[name]))


def _bounded(value):
    """An int past MAX_INT_BITS as a float (inf past float64's range), like `2 ** 70`."""
    if value.__class__ is int and value.bit_length() > MAX_INT_BITS:
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    return value


def _integral(value) -> int:
    """An int argument; an integral float too, as `range` takes it (the expression commands'
    number literals are floats: `math.factorial(5)` there)."""
    if value.__class__ is float and value.is_integer():
        return int(value)
    if isinstance(value, float) or not isinstance(value, int):
        raise ProgramTypeError(f"'{type_name(value)}' object cannot be interpreted as an integer")
    return value


def _factorial(n):
    n = _integral(n)
    return math.inf if n > _LAST_FINITE_FACTORIAL else _bounded(math.factorial(n))


def _comb_or_perm(exact, log_value, factors):
    """math.comb / math.perm: exact (as a float past MAX_INT_BITS) where the result fits a
    float64, inf past it, without building the big int; charged by its factors."""
    def fn(n, k=None):
        n = _integral(n)
        k = n if k is None else _integral(k)
        if n < 0 or k < 0 or k > n:
            return exact(n, k)   # Python's error, or 0
        count = factors(n, k)
        if count > 16 and log_value(n, k) > _FLOAT_BITS * math.log(2):
            budget.charge(16)   # the inf answer's own time (two lgamma calls): ~1 us
            return math.inf
        budget.charge(count)
        return _bounded(exact(n, k))
    fn.__name__ = exact.__name__
    return fn


def _log_comb(n, k):
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _log_perm(n, k):
    return math.lgamma(n + 1) - math.lgamma(n - k + 1)


def _prod(iterable, *, start=1):
    """math.prod; a string or list times a count is refused before it is built
    (`math.prod(['abc', 10**9])` made a 3 GB string first)."""
    result = start
    items = materialize(iterable)
    _charge_items("prod", len(items))
    if _NUMBER_TYPES.issuperset(map(type, items)) and start.__class__ in _NUMBER_TYPES:
        for i in range(0, len(items), 64):   # 64 factors of 63 bits: a small int at most
            result = _bounded(math.prod(items[i:i + 64], start=result))
        return result
    for item in items:
        for seq, count in ((result, item), (item, result)):
            if isinstance(seq, (str, list, tuple)) and isinstance(count, int) \
                    and not isinstance(count, bool):
                check_length(len(seq) * max(count, 0))
        result = _bounded(result * item)
    return result


def _lcm(*integers):
    _charge_items("lcm", len(integers))
    result = 1
    for value in integers:
        result = math.lcm(result, _integral(value))
        if result.bit_length() > MAX_INT_BITS:
            raise ProgramError(f"lcm(): the result needs more than {MAX_INT_BITS} bits")
    return result


def _fsum(iterable):
    items = materialize(iterable)
    _charge_items("fsum", len(items))
    return math.fsum(items)


def _dist(p, q):
    p, q = materialize(p), materialize(q)
    _charge_items("dist", max(len(p), len(q)))
    return math.dist(p, q)


def _hypot(*coordinates):
    _charge_items("hypot", len(coordinates))
    return math.hypot(*coordinates)


def _gcd(*integers):
    _charge_items("gcd", len(integers))
    return math.gcd(*integers)


def _math_function(fn):
    def call(*args, **kwargs):
        return _bounded(fn(*args, **kwargs))
    call.__name__ = fn.__name__
    return call


def math_namespace() -> Namespace:
    members = {name: getattr(math, name) for name in _MATH_CONSTANTS}
    special = {
        "factorial": _factorial,
        "comb": _comb_or_perm(math.comb, _log_comb, lambda n, k: min(k, n - k)),
        "perm": _comb_or_perm(math.perm, _log_perm, lambda n, k: k),
        "prod": _prod, "lcm": _lcm, "fsum": _fsum, "dist": _dist, "hypot": _hypot, "gcd": _gcd,
    }
    for name in dir(math):
        if name.startswith("_") or name in members:
            continue
        fn = special.get(name) or _math_function(getattr(math, name))
        members[name] = Builtin(name, fn)
    return Namespace("math", members)


# --- numpy ---------------------------------------------------------------------------

NUMPY_CLASSES = (np.float32, np.float64)  # callable as np.float32(x), usable as dtype=
# (np.ndarray is not reachable as a class: a program could hand a class to the engine as
# a hook, and np.ndarray(n) allocates)
_DTYPES = {"float32": np.float32, "float64": np.float64, "float": np.float64,
           "double": np.float64, "int32": np.int32, "int64": np.int64, "int": np.int64,
           "bool": np.bool_}
# numpy's name -> the engine's, where they differ (a tensor argument goes to the engine)
_ENGINE_NAMES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
                 "arccosh": "acosh", "arctanh": "atanh", "absolute": "abs", "power": "pow",
                 "arctan2": "atan2", "negative": "neg", "multiply": "mul", "subtract": "sub",
                 "divide": "div", "true_divide": "div"}
_UNARY = ("sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
          "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
          "cbrt", "square", "abs", "absolute", "sign", "floor", "ceil", "trunc", "rint",
          "negative", "reciprocal", "isnan", "isinf", "isfinite", "deg2rad", "rad2deg",
          "degrees", "radians")
_BINARY = ("maximum", "minimum", "power", "arctan2", "hypot", "add", "subtract", "multiply",
           "divide", "true_divide", "fmod", "mod", "remainder", "floor_divide", "copysign")
_REDUCTIONS = ("sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "amax",
               "amin", "all", "any")


check_elements = _tensor.check_elements
# numpy's functions slower than `x * y` by this factor, measured where they differ from the
# engine's ELEMENTWISE_WEIGHTS (which the rest take by their engine name); 2 for the others.
_NUMPY_WEIGHTS = {"mod": 12, "remainder": 12, "floor_divide": 12, "fmod": 4, "hypot": 8,
                  "cbrt": 4, "isclose": 12, "allclose": 12, "std": 4, "var": 4, "mean": 2,
                  "prod": 2, "sum": 1, "max": 1, "min": 1, "amax": 1, "amin": 1, "argmax": 1,
                  "argmin": 1, "all": 1, "any": 1, "copy": 2, "flatten": 8, "reshape": 8}
# (a copy of a transposed array reads across rows: ~8 ns an element of a 3000 x 3000)
# An operator on arrays, by the ufunc it runs.
_OPERATOR_WEIGHTS = {"**": 16, "//": 12, "%": 12, "/": 2}


def _weight(name: str) -> int:
    weight = _NUMPY_WEIGHTS.get(name)
    if weight is None:
        from gradcli.ops.costs import ELEMENTWISE_WEIGHTS

        weight = ELEMENTWISE_WEIGHTS.get(_ENGINE_NAMES.get(name, name), 2)
    return weight


def _work(count: int, weight: int = 1) -> None:
    """Charge a numpy call before it runs: its dispatch, and `count` elements of work at
    `weight` times a multiplication's cost."""
    budget.charge(OP_WORK + count * weight // ELEMENTS_PER_WORK)


def tensor_array(t: Tensor, force: bool = False) -> ndarray:
    """`x.numpy()`: a read-only view of the tensor's data (writing through it is refused);
    `force=True` reads a tensor that requires grad, as PyTorch's does."""
    if t.requires_grad and not force:
        raise AutogradError("Can't call numpy() on Tensor that requires grad. Use "
                            "tensor.detach().numpy() instead.")
    view = t._data.view()
    view.flags.writeable = False
    return view


def _plain(value, depth: int = 0):
    """A value as numpy may read it: tensors as arrays, lists and tuples item by item."""
    cls = value.__class__
    if cls in (int, float, bool) or isinstance(value, (np.generic, ndarray)):
        return value
    if isinstance(value, Tensor):
        return tensor_array(value)
    if cls is range:
        value = materialize(value)
        cls = list
    if cls in (list, tuple):
        if depth > 64:
            raise ProgramTypeError("the list is nested too deeply for an array")
        if _NUMBER_TYPES.issuperset(map(type, value)):
            return value   # numbers only: numpy reads them as they are
        return [_plain(item, depth + 1) for item in value]
    raise ProgramTypeError(f"an array holds numbers, not '{type_name(value)}'")


def _leaf_count(value, memo: dict, depth: int = 0) -> int:
    """The numbers an array made of `value` would hold, counted before numpy reads it: a
    list shared by reference (`[[0.] * 10**4] * 10**4`) counts once per place it appears,
    its items are counted once. memo[True] counts the values other than numbers, lists and
    tuples (numpy must not read them as they are: `_plain` converts each)."""
    cls = value.__class__
    if cls is not list and cls is not tuple:
        if cls in _NUMBER_TYPES:
            return 1
        memo[True] = memo.get(True, 0) + 1
        if cls is range:
            return len(value)
        if isinstance(value, Tensor):
            return value._data.size
        return value.size if isinstance(value, ndarray) else 1
    known = memo.get(id(value))
    if known is not None:
        return known
    if depth > 64:
        raise ProgramTypeError("the list is nested too deeply for an array")
    memo[id(value)] = 0   # a list inside itself: _plain refuses it by its depth
    count = len(value)
    if not _NUMBER_TYPES.issuperset(map(type, value)):
        count = sum(_leaf_count(item, memo, depth + 1) for item in value)
    memo[id(value)] = count
    return count


# What np.array of a list costs beyond its numbers: each list or tuple in it (~1 us to
# count and read, loaded), each tensor or array in it (~2-3 us to convert and stack), and
# the call's checks.
_LIST_WORK = 8
_OBJECT_WORK = 16
_ARRAY_WORK = 64


def _dtype(dtype):
    if dtype is None:
        return None
    if isinstance(dtype, type) and dtype in _DTYPES.values():
        return dtype
    if dtype.__class__ is dtypes.dtype:   # np.zeros(3, dtype=torch.float32)
        return dtype.np.type
    name = dtype.name if dtype.__class__ is Builtin else dtype
    if isinstance(name, str) and name in _DTYPES:
        return _DTYPES[name]
    raise ProgramTypeError(f"data type {dtype!r} not understood")


def array(obj, dtype=None):
    """np.array: a new array of numbers (never of Python objects), refused over the element
    limit and charged before numpy reads a list."""
    memo = {}
    count = _leaf_count(obj, memo)
    check_elements(count)
    if obj.__class__ in (list, tuple):
        budget.charge(_ARRAY_WORK + count // NUMBERS_PER_WORK + len(memo) * _LIST_WORK
                      + memo.get(True, 0) * _OBJECT_WORK)
    result = np.array(_plain(obj) if True in memo else obj, dtype=_dtype(dtype))
    if result.dtype.kind not in "biuf":
        raise ProgramTypeError(f"an array holds numbers, not {result.dtype}")
    check_elements(result.size)
    return result


def _operand(value):
    """An argument of a numpy function: a number, a numeric array or scalar, a list (made an
    array) or a tensor (its values). Never another object: numpy would call its methods."""
    cls = value.__class__
    if cls in (int, float, bool) or (isinstance(value, (ndarray, np.generic))
                                     and value.dtype.kind in "biuf"):
        return value
    if cls in (list, tuple, range):
        return array(value)
    if isinstance(value, Tensor):
        return tensor_array(value)
    raise ProgramTypeError(f"an array holds numbers, not '{type_name(value)}'")


def check_broadcast(*operands) -> int:
    """Refuse an elementwise result over the element limit before numpy makes it (and charge
    its elements); its size."""
    try:
        shape = broadcast(*(np.shape(o) for o in operands))
    except ValueError:
        return 0  # numpy raises its own error
    count = math.prod(shape)
    check_elements(count)
    return count


_ORDERING = frozenset({"<", "<=", ">", ">=", "==", "!="})


def numpy_operands(op: str, left, right):
    """The operands of `left op right` where one is a numpy array, checked against the element
    limit. With a tensor, PyTorch's: `tensor * array` is a tensor, `array * tensor` and a
    comparison of the two are TypeErrors."""
    if isinstance(left, Tensor) or isinstance(right, Tensor):
        names = f"'{_numpy_name(left)}' and '{_numpy_name(right)}'"
        if op in _ORDERING:
            raise ProgramTypeError(f"'{op}' not supported between instances of {names}")
        if not isinstance(left, Tensor):
            raise ProgramTypeError(f"unsupported operand type(s) for {op}: {names}")
        return left, _tensor_from(right)
    left, right = _operand(left), _operand(right)  # numbers only: a list becomes an array
    if op == "@":
        a, b = np.shape(left), np.shape(right)
        if len(a) > 2 or len(b) > 2:
            raise ProgramTypeError("@ on numpy arrays of more than 2 dimensions is not supported")
        rows = a[0] if len(a) == 2 else 1
        cols = b[-1] if len(b) == 2 else 1
        check_elements(rows * cols)
        from gradcli.ops.costs import matmul_flops

        _work(matmul_flops(np.asarray(left), np.asarray(right)))
    else:
        _work(check_broadcast(left, right), _OPERATOR_WEIGHTS.get(op, 1) - 1)
    return left, right


def check_array_index(a: ndarray, index) -> None:
    """Refuse `a[index]` when advanced indexing could make more elements than the limit
    (basic indexing makes a view). The bound: the index arrays' broadcast size times the
    dims they leave, at most a.size over the smallest dims they take."""
    shapes, taken = [], 0
    for item in index if isinstance(index, tuple) else (index,):
        if item is None or item is Ellipsis or isinstance(item, slice):
            continue
        if isinstance(item, (int, np.integer)):
            taken += 1
            continue
        item = np.asarray(item._data if isinstance(item, Tensor) else item)
        if item.dtype == np.bool_:
            shapes.append((item.size,))
            taken += max(item.ndim, 1)
        else:
            shapes.append(item.shape)
            taken += 1
    if not shapes:
        return
    try:
        count = math.prod(broadcast(*shapes))
    except ValueError:
        return  # numpy raises its own error
    smallest = math.prod(sorted(a.shape)[:taken]) or 1
    check_elements(count * (a.size // smallest))


def _numpy_name(value) -> str:
    return "numpy.ndarray" if isinstance(value, ndarray) else type_name(value)


def _tensor_from(value: ndarray) -> Tensor:
    from gradcli import ops

    return ops.FUNCTIONS["tensor"](np.asarray(value))  # the array's dtype, as torch.from_numpy


def _elementwise(name: str, ufunc):
    engine_name = _ENGINE_NAMES.get(name, name)
    weight = _weight(name)

    def fn(*args):
        if any(isinstance(a, Tensor) for a in args):
            from gradcli import ops

            engine = ops.FUNCTIONS.get(engine_name)
            if engine is not None:
                return engine(*args)
        operands = [_operand(a) for a in args]
        _work(check_broadcast(*operands), weight - 1)   # check_elements charged one
        return ufunc(*operands)

    fn.__name__ = name
    return fn


def _reduction(name: str, fn):
    weight = _weight(name)

    def reduce_(a, axis=None, keepdims=False):
        a = _operand(a)
        _work(np.size(a), weight)
        return fn(a, axis=axis, keepdims=keepdims)
    reduce_.__name__ = name
    return reduce_


def array_method(a: ndarray, name: str):
    """A numpy array's method as a program calls it (`a.sum()`, `a.tolist()`): charged by its
    elements before it runs, tolist refused past the list limit; None for an attribute."""
    if name == "tolist":
        def tolist():
            return _tensor.array_tolist(a)
        return tolist
    if name in ("sum", "mean", "max", "min"):
        return _reduction(name, getattr(np, name)).__get__(a)
    if name in ("reshape", "flatten", "copy"):
        method, weight = getattr(a, name), _weight(name)

        def copying(*args, **kwargs):
            view = name == "reshape" and a.flags.c_contiguous   # a view whatever the shape
            _work(0 if view else a.size, weight)
            return method(*args, **kwargs)
        copying.__name__ = name
        return copying
    return None


def _sized(name: str, fn):
    def make(shape, dtype=None):
        dims = (shape,) if isinstance(shape, int) else tuple(shape)
        check_elements(reduce(lambda a, b: a * max(b, 0), dims, 1))
        return fn(dims, dtype=_dtype(dtype) or np.float64)
    make.__name__ = name
    return make


def _arange(start, stop=None, step=1, dtype=None):
    span = (stop - start) if stop is not None else start
    count = math.ceil(span / step) if span / step > 0 else 0
    check_elements(count)
    return np.arange(start, stop, step, dtype=_dtype(dtype)) if stop is not None \
        else np.arange(start, dtype=_dtype(dtype))


def _linspace(start, stop, num=50, endpoint=True):
    """np.linspace; with an array start or stop the output is num times their broadcast,
    refused (and charged) before it is built."""
    count = _tensor.as_int(num, "num")
    shapes = [np.shape(v) for v in (start, stop) if not isinstance(v, (int, float))]
    check_elements(max(count, 0) * (math.prod(broadcast(*shapes)) if shapes else 1))
    return np.linspace(start, stop, num, endpoint=endpoint)


def _close(fn):
    """np.isclose / allclose: every operand's broadcast (tolerances too) refused over the
    element limit and charged before numpy makes its temporaries of that size."""
    weight = _weight(fn.__name__)

    def close(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
        a, b, rtol, atol = (_operand(v) for v in (a, b, rtol, atol))
        _work(check_broadcast(a, b, rtol, atol), weight - 1)   # check_elements charged one
        return fn(a, b, rtol=rtol, atol=atol, equal_nan=bool(equal_nan))
    close.__name__ = fn.__name__
    return close


def numpy_namespace() -> Namespace:
    members = {"pi": np.pi, "e": np.e, "inf": np.inf, "nan": np.nan,
               "float32": np.float32, "float64": np.float64}
    functions = {"array": array, "asarray": array,
                 "zeros": _sized("zeros", np.zeros), "ones": _sized("ones", np.ones),
                 "arange": _arange, "linspace": _linspace,
                 "allclose": _close(np.allclose), "isclose": _close(np.isclose)}
    for name in _UNARY + _BINARY:
        functions[name] = _elementwise(name, getattr(np, name))
    for name in _REDUCTIONS:
        functions[name] = _reduction(name, getattr(np, name))
    members.update({name: Builtin(name, fn) for name, fn in functions.items()})
    return Namespace("numpy", members)


# --- devices -------------------------------------------------------------------------

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


class Device:
    """`torch.device('cpu')`: the only device gradcli computes on is the CPU."""

    __slots__ = ("type", "index")

    def __init__(self, kind: str, index):
        self.type = kind
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        return isinstance(other, Device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = Device("cpu", None)


def device(spec, index=None) -> Device:
    """torch.device(...), with PyTorch's errors for a string it does not know."""
    if isinstance(spec, Device):
        return spec
    if isinstance(spec, bool) or not isinstance(spec, (str, int)):
        raise ProgramTypeError(f"device() received an invalid combination of arguments - got "
                               f"({type_name(spec)})")
    if isinstance(spec, int):
        raise ProgramError("Cannot access accelerator device when none is available.")
    kind, _, number = spec.partition(":")
    if kind not in _DEVICE_TYPES:
        raise ProgramError("Expected one of " + ", ".join(_DEVICE_TYPES) + " device type at "
                           f"start of device string: {spec}")
    if number:
        if not number.isdigit():
            raise ProgramError(f"Invalid device string: '{spec}'")
        index = int(number)
    return Device(kind, None if index is None else _tensor.as_int(index, "index"))


def check_device(spec) -> None:
    """Refuse a device other than the CPU, with PyTorch's message for CUDA (an AssertionError)."""
    if spec is None:
        return
    if isinstance(spec, (str, int, Device)) and not isinstance(spec, bool):
        kind = device(spec).type
        if kind == "cpu":
            return
        if kind == "cuda":
            raise cuda_unavailable()
        raise ProgramError(f"gradcli computes on the CPU only, not on '{kind}'")


class Generator:
    """What torch.manual_seed returns: the default generator, seeded."""

    __slots__ = ("seed_value",)

    def __init__(self, seed: int):
        self.seed_value = seed

    def initial_seed(self) -> int:
        return self.seed_value

    def manual_seed(self, seed) -> "Generator":
        return manual_seed(seed)

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {id(self):#x}>"


def manual_seed(seed) -> Generator:
    from gradcli import ops

    ops.FUNCTIONS["manual_seed"](seed)
    return Generator(_tensor.as_int(seed, "seed"))


def _cpu(t: Tensor):
    return lambda memory_format=None: t


def _cuda(t: Tensor):
    def cuda(device=None, non_blocking=False, memory_format=None):
        check_device("cuda")
    return cuda


def _to(t: Tensor):
    def to(*args, **kwargs):
        for value in (*args, kwargs.get("device")):
            if isinstance(value, (str, Device)):
                check_device(value)
        plain = tuple(a for a in args if not isinstance(a, (str, Device)))
        kwargs.pop("device", None)
        return t.to(*plain, **kwargs)
    return to


NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
    "Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information.")


def _grad(t: Tensor):
    """`x.grad`: PyTorch's getter warns when x is not a leaf, does not retain grad and has none."""
    grad = t._grad
    if grad is None and t.grad_fn is not None and not t._retains_grad:
        warn(NON_LEAF_GRAD)
    return grad


# Read on a tensor before its own attributes: (name -> fn(tensor) -> value)
TENSOR_MEMBERS = {
    "grad": _grad,
    "numpy": lambda t: lambda force=False: tensor_array(t, bool(force)),
    "cpu": _cpu,
    "cuda": _cuda,
    "to": _to,
    "device": lambda t: CPU,
    "is_cuda": lambda t: False,
    "is_xpu": lambda t: False,
    "is_mps": lambda t: False,
}


def cuda_namespace() -> Namespace:
    """torch.cuda: no device."""
    return Namespace("torch.cuda", {
        "is_available": Builtin("is_available", lambda: False),
        "device_count": Builtin("device_count", lambda: 0),
    })


def torch_members() -> dict:
    """What the `torch` namespace gains here: device, Tensor (for isinstance), a
    manual_seed that returns its generator (and `cuda_namespace`)."""
    from gradcli._tensor import Size

    return {"device": Builtin("device", device), "Tensor": Tensor,
            "compile": Builtin("compile", lambda model=None, **options: model if model is not None
                               else Builtin("compile", lambda fn: fn)),  # no compiler: as is
            "Size": Builtin("Size", Size),
            "manual_seed": Builtin("manual_seed", manual_seed),
            "from_numpy": Builtin("from_numpy", from_numpy)}


def from_numpy(value) -> Tensor:
    """torch.from_numpy: a tensor of the array's numbers (a copy: the array is not shared)."""
    if not isinstance(value, ndarray):
        raise ProgramTypeError(f"expected np.ndarray (got {type_name(value)})")
    return _tensor_from(value)


MODULES = {"math": math_namespace, "numpy": numpy_namespace}
