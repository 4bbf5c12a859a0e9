"""PyTorch's dtypes: the dtype objects, the default dtype, and type promotion.

One place decides every result dtype: `promotion(kind, keys)` (cached by the
inputs' dtypes and categories) is what `ops/registry.apply` asks before it runs
an op, so that float32 math is computed in numpy float32, an int64 tensor times
2.5 is the default float, and comparisons give bool, as PyTorch does.
"""
from __future__ import annotations

import math

import numpy as np

from .errors import ProgramError, ProgramTypeError, ProgramValueError


class dtype:
    """`torch.float32`, `torch.int64`, ...: one object per dtype, the numpy one behind it."""

    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "rank", "legacy")

    def __init__(self, name: str, np_dtype, rank: int, legacy: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_signed = self.np.kind in "fi"
        self.itemsize = self.np.itemsize
        self.rank = rank  # 0 bool, 1 integer, 2 floating: the promotion categories
        self.legacy = legacy  # "Float" of FloatTensor, "Long" of "result type Long"

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    __str__ = __repr__

    def to(self, *args, **kwargs):  # pragma: no cover - a dtype is not a tensor
        raise ProgramTypeError("'torch.dtype' object has no attribute 'to'")


dtype.__name__ = "torch.dtype"   # as a program's messages name it
bool_ = dtype("bool", np.bool_, 0, "Bool")
uint8 = dtype("uint8", np.uint8, 1, "Byte")
int8 = dtype("int8", np.int8, 1, "Char")
int16 = dtype("int16", np.int16, 1, "Short")
int32 = dtype("int32", np.int32, 1, "Int")
int64 = dtype("int64", np.int64, 1, "Long")
float16 = dtype("float16", np.float16, 2, "Half")
float32 = dtype("float32", np.float32, 2, "Float")
float64 = dtype("float64", np.float64, 2, "Double")

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
# the torch.<name> attributes, aliases included
NAMES = {d.name: d for d in ALL}
NAMES.update(half=float16, float=float32, double=float64, short=int16, int=int32, long=int64)
# dtypes out of scope: named, with a clear error when used
UNSUPPORTED = ("bfloat16", "complex32", "complex64", "complex128", "cfloat", "cdouble", "chalf")
BY_NUMPY = {d.np: d for d in ALL}
BY_NUMPY[np.dtype(np.uint16)] = int32   # never made by gradcli; safe fallbacks
BY_NUMPY[np.dtype(np.uint32)] = int64
BY_NUMPY[np.dtype(np.uint64)] = int64


class Unsupported:
    """`torch.bfloat16`, `torch.complex64`: a value a program can name, refused when used."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


def of_array(a) -> dtype:
    """The dtype of a numpy array."""
    return BY_NUMPY[a.dtype]


def resolve(value) -> dtype | None:
    """A `dtype=` argument as a dtype: a dtype, Python's float/int/bool, or a name."""
    if value is None or value.__class__ is dtype:
        return value
    if isinstance(value, Unsupported):
        raise ProgramTypeError(f"dtype {value!r} is not supported by gradcli (complex and bfloat16 dtypes "
                               "are out of scope)", hint="use torch.float32 or torch.float64")
    if value is float:
        return get_default_dtype()
    if value is int:
        return int64
    if value is bool:
        return bool_
    if isinstance(value, str):
        name = value[6:] if value.startswith("torch.") else value
        if name in NAMES:
            return NAMES[name]
        if name in UNSUPPORTED:
            return resolve(Unsupported(name))
    if isinstance(value, np.dtype) and value in BY_NUMPY:
        return BY_NUMPY[value]
    if isinstance(value, type) and issubclass(value, np.generic) and np.dtype(value) in BY_NUMPY:
        return BY_NUMPY[np.dtype(value)]   # np.float32 as a dtype= (numpy's scalar types)
    raise ProgramTypeError(f"dtype must be a torch.dtype, not {type(value).__name__}")


# -- the default dtype ---------------------------------------------------------------

_default = [float32]


def get_default_dtype() -> dtype:
    return _default[0]


def set_default_dtype(d) -> None:
    """`torch.set_default_dtype`: float32 or float64 (float16 as PyTorch allows)."""
    d = resolve(d)
    if not d.is_floating_point:
        raise ProgramTypeError("only floating-point types are supported as the default type")
    if d is not _default[0]:
        _default[0] = d
        _CACHE.clear()


class default_dtype:
    """A context manager: the default dtype `d` inside, the previous one restored after."""

    def __init__(self, d):
        self._dtype = resolve(d)

    def __enter__(self):
        self._prev = _default[0]
        set_default_dtype(self._dtype)
        return self

    def __exit__(self, *exc):
        set_default_dtype(self._prev)
        return False


# -- promotion ---------------------------------------------------------------------

# PyTorch's promote_types for the dtypes gradcli has (uint8 with a signed int: the wider signed
# one, at least int16; float16 with any float: the wider float)
def promote_types(a, b) -> dtype:
    a, b = resolve(a), resolve(b)
    if a is b:
        return a
    if a.rank != b.rank:
        return a if a.rank > b.rank else b
    if a.rank == 2:
        return a if a.itemsize >= b.itemsize else b
    if a is uint8 or b is uint8:
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return a if a.itemsize >= b.itemsize else b


# The priority of an input in result_type: a tensor with dims, a 0-d tensor, a Python number.
DIMMED, ZERO_DIM, NUMBER = 2, 1, 0


def raw_key(v):
    """An op input's promotion key, cheap to make: (numpy dtype, has dims) for an array, else its class."""
    if v.__class__ is np.ndarray:
        return (v.dtype, v.ndim != 0)
    return v.__class__


def _full_key(k):
    if k is None or k is type(None):
        return None
    if k.__class__ is tuple:
        return (BY_NUMPY[k[0]], DIMMED if k[1] else ZERO_DIM)
    return (_number_dtype(k), NUMBER)


def _number_dtype(cls) -> dtype:
    if issubclass(cls, (bool, np.bool_)):
        return bool_
    if issubclass(cls, (int, np.integer)):
        return int64
    return get_default_dtype()


def result_type_of(keys) -> dtype:
    """PyTorch's result_type: within the highest category present, the highest priority decides."""
    top = max(d.rank for d, _ in keys)
    best = None
    best_priority = -1
    for d, priority in keys:
        if d.rank != top:
            continue
        if priority > best_priority:
            best, best_priority = d, priority
        elif priority == best_priority:
            best = promote_types(best, d)
    if best_priority == NUMBER and top == 2 and best is not None:
        return get_default_dtype()
    return best


def can_cast(from_, to) -> bool:
    """PyTorch's can_cast: no float to integer, no non-bool to bool."""
    from_, to = resolve(from_), resolve(to)
    return from_.rank <= to.rank


_CACHE: dict = {}

# Each op's promotion kind (see `promotion`); an op not named here runs on its inputs as they
# are (shape ops, indexing, sum/prod/cumsum, max/min, argmax: numpy keeps or picks PyTorch's dtype).
_KINDS = {
    "same": "add sub add_alpha sub_alpha rsub mul neg maximum minimum where clamp clamp_min clamp_max clamp_tensor abs sign "
            "round floor ceil trunc frac relu pow pow_tensor rpow square dot mm mv bmm addmm masked_fill "
            "masked_fill_tensor scatter_add hardtanh leaky_relu floor_divide floor_divide_scalar rfloor_divide "
            "remainder remainder_scalar rremainder fmod fmod_scalar div_floor div_trunc threshold",
    "float": "div reciprocal exp exp2 log log2 log10 log1p expm1 sqrt rsqrt sin cos tan asin acos atan sinh cosh tanh sigmoid "
             "softplus erf atan2 round_decimals norm logsumexp var std softmax log_softmax mse_loss "
             "binary_cross_entropy nll_loss gelu silu elu logsigmoid det inverse linalg_solve "
             "selu celu mish hardsigmoid hardswish glu",
    "compare": "lt le gt ge eq ne",
    "float_only": "mean mean_dim",
    "as_is": "argmax argmin",
}
# PyTorch's refusals of bool inputs, by op
_NO_BOOL = {
    "sub": "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert "
           "a mask, use the `~` or `logical_not()` operator instead.",
    "abs": "\"abs_cpu\" not implemented for 'Bool'", "floor": "\"floor_vml_cpu\" not implemented for 'Bool'",
    "ceil": "\"ceil_vml_cpu\" not implemented for 'Bool'", "trunc": "\"trunc_vml_cpu\" not implemented for 'Bool'",
    "argmax": "argmax(): does not support bool input", "relu": "Boolean inputs not supported for relu", "argmin": "argmin(): does not support bool input",
}
_NO_BOOL["rsub"] = _NO_BOOL["sub_alpha"] = _NO_BOOL["sub"]
# ... and of an integer or bool input to the activations whose kernels are floating only
_FLOAT_KERNELS = {"gelu": "GeluKernelImpl", "silu": "silu_cpu", "elu": "elu_cpu", "selu": "elu_cpu",
                  "celu": "elu_cpu", "mish": "mish_cpu", "hardswish": "hardswish_cpu",
                  "hardsigmoid": "hardsigmoid_cpu", "leaky_relu": "leaky_relu_cpu",
                  "logsigmoid": "log_sigmoid_cpu", "softplus": "softplus_cpu", "glu": "glu_cpu"}
_FLOAT_INPUT = {"var": "std and var only support floating point and complex dtypes",
                "std": "std and var only support floating point and complex dtypes",
                "norm": "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}"}
# ... and of a bool result (bool // 2 is int64, bool // bool an error): the kernel PyTorch names
_NO_BOOL_RESULT = {"floor_divide": "div_floor", "floor_divide_scalar": "div_floor", "rfloor_divide": "div_floor",
                   "div_floor": "div_floor", "div_trunc": "div_trunc", "remainder": "remainder",
                   "remainder_scalar": "remainder", "rremainder": "remainder", "fmod": "fmod",
                   "fmod_scalar": "fmod"}
PROMOTION = {name: kind for kind, names in _KINDS.items() for name in names.split()}
# parameters that are operands of the promotion (a number on the left of `-`, pow's exponent)
NUMBER_PARAMS = {"rsub": ("other",), "pow": ("exponent",), "rpow": ("base",), "clamp": ("min", "max"),
                 "clamp_min": ("min",), "clamp_max": ("max",), "floor_divide_scalar": ("other",),
                 "rfloor_divide": ("other",), "remainder_scalar": ("other",), "rremainder": ("other",),
                 "fmod_scalar": ("other",)}


_TWO_BOOLS = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
              "`logical_xor()` operator instead.")


def bool_refused(name: str, all_bool: bool = False):
    """Raise PyTorch's error for a bool input to op `name` (`all_bool`: every operand is bool)."""
    if name in ("sub", "rsub", "sub_alpha"):
        raise ProgramTypeError(_TWO_BOOLS if all_bool else _NO_BOOL[name])
    raise ProgramValueError(_NO_BOOL[name])


def promotion(name: str, keys: tuple):
    """(compute dtype, result dtype, prep) as numpy dtypes (or None) for an op of promotion `kind` on
    inputs of `raw_key`s `keys`; cached (and the cache cleared when the default dtype changes).

    kinds: "same" (promote; the result in that dtype), "float" (promote; integers to the
    default float), "compare" (promote; the result bool), "float_only" (mean's error for integers).
    """
    hit = _CACHE.get((name, keys))
    if hit is not None:
        return hit
    kind = PROMOTION[name]
    present = [k for k in map(_full_key, keys) if k is not None]
    if name in _NO_BOOL and any(d is bool_ for d, _ in present):
        bool_refused(name, all(d is bool_ for d, _ in present))
    if kind == "as_is":
        return (None, None, None)
    common = result_type_of(present) if present else None
    if name in _FLOAT_KERNELS and common is not None and not common.is_floating_point:
        raise ProgramError(f'"{_FLOAT_KERNELS[name]}" not implemented for \'{common.legacy}\'')
    if name in _FLOAT_INPUT and common is not None and not common.is_floating_point:
        raise ProgramError(_FLOAT_INPUT[name].format(common.legacy))
    if common is bool_ and name in _NO_BOOL_RESULT:
        raise ProgramError(f'"{_NO_BOOL_RESULT[name]}_cpu" not implemented for \'Bool\'')
    out = common
    if kind == "float" and common is not None and not common.is_floating_point:
        common = out = get_default_dtype()
    elif kind == "compare":
        out = bool_
    elif kind == "float_only" and common is not None and not common.is_floating_point:
        raise ProgramTypeError(f"mean(): could not infer output dtype. Input dtype must be either a floating "
                               f"point or complex dtype. Got: {common.legacy}")
    # what each input needs after its cast: a Python int with a narrower integer tensor wraps
    # into its dtype, as PyTorch's (numpy refuses). Half math is computed in float from the
    # inputs rounded to half, and rounded back, as PyTorch's CPU kernels; but its mul and div
    # kernels take a number or 0-d tensor second operand unrounded (`half_mul_div`).
    compute = common
    prep = wrap_int if common is not None and common.rank == 1 and common is not int64 else None
    if common is float16 and name not in _HALF_OWN:
        prep = half_opmath
        if name in _HALF_SCALAR_SECOND and len(keys) == 2:
            compute, prep = float32, (half_rounded, half_unrounded)
    hit = _CACHE[(name, keys)] = (None if compute is None else compute.np, None if out is None else out.np, prep)
    return hit


def result_type(a, b) -> dtype:
    """`torch.result_type(tensor_or_number, tensor_or_number)`."""
    return result_type_of([_full_key(raw_key(getattr(v, "_data", v))) for v in (a, b)])


# -- finfo / iinfo -----------------------------------------------------------------

def _numpy_info(d: "dtype", floating: bool):
    """numpy's finfo or iinfo of `d`; PyTorch's error where `d` is not of that kind."""
    mine, other = ("finfo", "iinfo") if floating else ("iinfo", "finfo")
    if d.is_floating_point != floating or d is bool_:
        kind = "a floating point" if floating else "an integer"
        raise ProgramTypeError(f"torch.{mine}() requires {kind} input type. Use torch.{other} to handle "
                               f"'torch.{mine}'")
    return np.finfo(d.np) if floating else np.iinfo(d.np)


class finfo:
    """`torch.finfo(dtype)`: eps, max, min, tiny (and resolution, bits) of a floating dtype."""

    def __init__(self, type=None):
        d = get_default_dtype() if type is None else resolve(type)
        info = _numpy_info(d, floating=True)
        self.dtype, self.bits = d.name, info.bits
        self.eps = float(info.eps)
        self.max, self.min = float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = float(info.resolution)

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.tiny:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """`torch.iinfo(dtype)`: max, min, bits of an integer dtype."""

    def __init__(self, type):
        d = resolve(type)
        info = _numpy_info(d, floating=False)
        self.dtype, self.bits = d.name, info.bits
        self.max, self.min = int(info.max), int(info.min)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


# What a program may read on these objects (gradcli/lang/access.py).
ATTRIBUTES = (
    (dtype, frozenset({"is_floating_point", "is_signed", "itemsize"})),
    (finfo, frozenset({"bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"})),
    (iinfo, frozenset({"bits", "max", "min", "dtype"})),
)


def as_floating(x) -> np.ndarray:
    """An op's input as the float array it computes in: a float32 or float64 array as it is
    (float32 math stays float32, as PyTorch's), half as float32 (PyTorch's opmath), anything
    else as float64. For the ops whose float32 results come closer to PyTorch's this way
    (softmax, log_softmax, logsumexp, norm); var/std, gelu and friends compute in float64,
    which is closer (PyTorch accumulates var in double)."""
    if x.__class__ is np.ndarray and x.dtype.kind == "f":
        return x.astype(np.float32) if x.dtype == np.float16 else x
    return np.asarray(x, dtype=np.float64)


def cast(values, np_dtype) -> np.ndarray:
    """`values` as an array of `np_dtype`, converted as PyTorch converts: a double becomes a half
    through a float (c10::Half is made from a float), so a double just past a midpoint between
    two halves can round the other way than numpy's direct conversion."""
    values = np.asarray(values)
    if np_dtype == np.float16 and values.dtype == np.float64:
        with np.errstate(over="ignore"):   # 1e300 is inf, as in PyTorch
            return values.astype(np.float32).astype(np_dtype)
    return values.astype(np_dtype)


# PyTorch's names of the C types in its messages
_C_TYPES = {"float16": "c10::Half", "float32": "float", "float64": "double", "int8": "int8_t",
            "int16": "int16_t", "int32": "int", "int64": "int64_t", "uint8": "uint8_t"}


_FLOAT_LIMITS = {np.dtype(t): float(np.finfo(t).max) for t in (np.float16, np.float32, np.float64)}


def check_value(value, np_dtype, numel: int = 2) -> None:
    """Refuse a number that a tensor of `np_dtype` cannot take when it is filled with it (full,
    fill_, masked_fill, scatter's value, clamp's bounds, linspace's ends), as PyTorch's checked
    conversion refuses it: a finite number past a float dtype's range (70000.0 into half,
    1e300 into float) but in a fill of a one-element half tensor (`numel` 1), which PyTorch
    writes unchecked; for integers, see `checked_value`."""
    limit = _FLOAT_LIMITS.get(np_dtype)
    if limit is None:
        checked_value(value, np_dtype, numel)
    elif value.__class__ is not bool and isinstance(value, (int, float, np.number)) and abs(value) > limit \
            and math.isfinite(value) and (numel != 1 or np_dtype != np.float16):
        raise ProgramError(f"value cannot be converted to type {_C_TYPES[np_dtype.name]} without overflow")


def checked_value(value, np_dtype, numel: int = 2):
    """A number as a tensor of `np_dtype` takes it when it is filled with it: refused past the
    dtype's range (`check_value`; 300 into int8), except a negative int into uint8, which wraps.
    A float comes back rounded to the dtype (a double to a half through a float), so that
    numpy's later casts are exact."""
    np_dtype = np.dtype(np_dtype)
    kind = np_dtype.kind
    if kind == "b" or not isinstance(value, (int, float, np.number)) or isinstance(value, (bool, np.bool_)):
        return value
    if kind == "f":
        check_value(value, np_dtype, numel)
        return float(cast(float(value), np_dtype))
    info = np.iinfo(np_dtype)
    if np_dtype == np.uint8 and isinstance(value, (int, np.integer)) and value < 0 and value >= -255:
        return int(value) % 256
    if not (info.min <= value <= info.max):   # nan and inf too
        raise ProgramError(f"value cannot be converted to type {_C_TYPES.get(np_dtype.name, np_dtype.name)} "
                           "without overflow")
    return value


def to_half(value) -> np.float16:
    """A number as PyTorch's half: through a float."""
    return np.float16(np.float32(value))


def half_opmath(value, np_dtype):
    """An input of a float16 op: rounded to half, then as float32 for the computation."""
    if value.__class__ is np.ndarray:
        return (value if value.dtype == np.float16 else cast(value, np.float16)).astype(np.float32)
    if value is None:
        return None
    return np.float32(to_half(value))


# PyTorch's CPU mul and div read a second operand that is a CPU scalar (a number, a 0-d
# tensor) at its own precision, in float: `x * 0.1` is not `x * half(0.1)` (first operand: half)
_HALF_SCALAR_SECOND = frozenset({"mul", "div"})
# ... and the ops whose forward computes half itself, given half arrays: add/sub with alpha
# (PyTorch's vector and scalar loops round differently), mse_loss (its difference is rounded
# to half before it is squared), threshold (compared with the threshold as a half),
# smooth_l1_loss (every operation rounded to half) and huber_loss (each element computed in
# float and rounded once, before the reduction)
_HALF_OWN = frozenset({"add_alpha", "sub_alpha", "mse_loss", "threshold", "smooth_l1_loss", "huber_loss"})


def half_rounded(value, np_dtype):
    """The first operand of a half mul/div: rounded to half, computed in float."""
    if value.__class__ is np.ndarray:
        return cast(value, np.float16).astype(np.float32)
    return np.float32(to_half(value))


def half_unrounded(value, np_dtype):
    """The second operand of a half mul/div: a number or 0-d value in float, unrounded (an array
    with dimensions is of a dtype no wider than half, so rounding it changes nothing)."""
    if value.__class__ is np.ndarray:
        return value.astype(np.float32)
    return np.float32(value)


def wrap_int(value, np_dtype):
    """A Python int as a number of a narrower integer dtype, wrapped as PyTorch wraps it."""
    if value.__class__ is int:
        return np.array(value & 0xFFFFFFFFFFFFFFFF).astype(np.uint64).astype(np_dtype)[()]
    return value
