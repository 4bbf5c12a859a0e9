"""Ops that choose between values: where, maximum, minimum, clamp, atan2,
masked_fill, gather.

Ties and bounds follow PyTorch: maximum/minimum split the gradient evenly at a
tie (and, as PyTorch's masks are written, a nan on either side sends the whole
gradient to both inputs); atan2 has gradient 0 at the origin; clamp passes the
gradient at its bounds (min <= x <= max). Like PyTorch, `maximum`, `minimum`
and `atan2` take two tensors (a number is a TypeError: `clamp` is the form with
number bounds), and `clamp` has two overloads: number bounds (ClampBackward1,
one edge) and tensor bounds (ClampBackward0, three edges: self, min, max).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import ProgramTypeError, ProgramValueError, ShapeError
from .._tensor import Tensor, _dim
from .domains import PAIRS, _sample, binary, cases, elementwise_sympy
from .apply import _check_broadcast, apply
from .registry import METHODS, defop, export, LINEAR, POINTWISE
from .shapes import broadcast


def _where(self, other, condition):
    return np.where(condition, self, other)


def _where_cases(rng):
    out = []
    for sa, sb in PAIRS:
        a = _sample(rng, -2, 2, sa)
        b = _sample(rng, -2, 2, sb)
        cond = rng.uniform(size=broadcast(np.shape(a), np.shape(b))) > 0.5
        out.append(((a, b), {"condition": cond}))
    return out


where_op = defop(
    "where", "WhereBackward0", _where, inputs=("self", "other"), broadcasts=True, public=False,
    rules=(lambda F, g, condition: F.where(condition, g, 0.0),
           lambda F, g, condition: F.where(condition, 0.0, g)),
    formulas=("where(condition, grad, 0)", "where(condition, 0, grad)"),
    sympy=lambda sp, a, b, condition: np.where(condition, a, b),
    domain=_where_cases, tangent=POINTWISE,
)


def where(condition, input, other):
    """Elements of `input` where `condition` holds, else of `other` (WhereBackward0)."""
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    return apply(where_op, (input, other), {"condition": cond.astype(bool)})


export("where", where, method=False,
       array=lambda condition, input, other: np.where(condition, input, other))
METHODS["where"] = lambda self, condition, other: where(condition, self, other)


def _require_tensors(name, input, other):
    """PyTorch's TypeError for a number where `name` takes two tensors."""
    for position, (arg, value) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(value, Tensor):
            raise ProgramTypeError(
                f"{name}(): argument '{arg}' (position {position}) must be Tensor, "
                f"not {type(value).__name__}"
            )


# -- maximum, minimum: the gradient is split evenly at a tie ------------------------

maximum_op = defop(
    "maximum", "MaximumBackward0", np.maximum, inputs=("self", "other"), broadcasts=True,
    public=False,
    rules=(lambda F, g, self, other: F.where(self == other, g / 2.0, F.where(self < other, 0.0, g)),
           lambda F, g, self, other: F.where(self == other, g / 2.0, F.where(self > other, 0.0, g))),
    formulas=("where(self == other, grad / 2, grad).masked_fill(self < other, 0)",
              "where(self == other, grad / 2, grad).masked_fill(self > other, 0)"),
    sympy=elementwise_sympy(lambda sp, a, b: sp.Max(a, b)),
    domain=binary(separate=0.1), tangent=POINTWISE,
)

minimum_op = defop(
    "minimum", "MinimumBackward0", np.minimum, inputs=("self", "other"), broadcasts=True,
    public=False,
    rules=(lambda F, g, self, other: F.where(self == other, g / 2.0, F.where(self > other, 0.0, g)),
           lambda F, g, self, other: F.where(self == other, g / 2.0, F.where(self < other, 0.0, g))),
    formulas=("where(self == other, grad / 2, grad).masked_fill(self > other, 0)",
              "where(self == other, grad / 2, grad).masked_fill(self < other, 0)"),
    sympy=elementwise_sympy(lambda sp, a, b: sp.Min(a, b)),
    domain=binary(separate=0.1), tangent=POINTWISE,
)


def maximum(input, other):
    """The elementwise maximum of two tensors (MaximumBackward0); ties split the gradient."""
    _require_tensors("maximum", input, other)
    return apply(maximum_op, (input, other))


def minimum(input, other):
    """The elementwise minimum of two tensors (MinimumBackward0); ties split the gradient."""
    _require_tensors("minimum", input, other)
    return apply(minimum_op, (input, other))


export("maximum", maximum, array=np.maximum)
export("minimum", minimum, array=np.minimum)


# -- atan2 ------------------------------------------------------------------------

def _atan2_recip(F, self, other):
    """1 / (self ** 2 + other ** 2), 0 at the origin, as PyTorch masks it."""
    r2 = self * self + other * other
    with np.errstate(divide="ignore"):
        return F.where(r2 == 0, 0.0, 1.0 / r2)


def _atan2_self(F, g, self, other):
    return g * other * _atan2_recip(F, self, other)


def _atan2_other(F, g, self, other):
    return g * -self * _atan2_recip(F, self, other)


atan2_op = defop(
    "atan2", "Atan2Backward0", np.arctan2, inputs=("self", "other"), broadcasts=True, public=False,
    rules=(_atan2_self, _atan2_other),
    formulas=("grad * other / (self ** 2 + other ** 2) (0 at the origin)",
              "grad * -self / (self ** 2 + other ** 2) (0 at the origin)"),
    sympy=elementwise_sympy(lambda sp, a, b: sp.atan2(a, b)),
    # self > 0 keeps the points off the origin and off the branch cut (self = 0, other < 0).
    domain=binary(0.3, 2.0, -2.0, 2.0), tangent=POINTWISE,
)


def atan2(input, other):
    """The angle of the point (other, input), in (-pi, pi] (Atan2Backward0)."""
    _require_tensors("atan2", input, other)
    return apply(atan2_op, (input, other))


export("atan2", atan2, array=np.arctan2)
export("arctan2", atan2)


# -- clamp -------------------------------------------------------------------------

def _clamp(self, min=None, max=None):
    # min first, then max: with min > max every element becomes max, as in PyTorch.
    out = self if min is None else np.maximum(self, min)
    return out if max is None else np.minimum(out, max)


def _in_bounds(self, min, max):
    """Where min <= self <= max (a missing bound does not limit): the gradient passes there."""
    if min is None:
        return self <= max
    if max is None:
        return self >= min
    return (self >= min) & (self <= max)


def _clamp_sympy(sp, x, min=None, max=None):
    def one(e, lo, hi):
        e = e if lo is None else sp.Max(e, lo)
        return e if hi is None else sp.Min(e, hi)
    lo = None if min is None else np.asarray(min, dtype=object)
    hi = None if max is None else np.asarray(max, dtype=object)
    shapes = [np.shape(a) for a in (x, lo, hi) if a is not None]
    shape = broadcast(*shapes)
    x = np.broadcast_to(np.asarray(x, dtype=object), shape)
    lo = None if lo is None else np.broadcast_to(lo, shape)
    hi = None if hi is None else np.broadcast_to(hi, shape)
    out = np.empty(shape, dtype=object)
    for index in np.ndindex(shape):
        out[index] = one(x[index], None if lo is None else lo[index], None if hi is None else hi[index])
    return out


def _clamp_cases(bounds):
    """Points kept at least 0.1 from each bound (the gradient jumps there)."""
    def make(rng):
        out = []
        for shape in ((), (3,), (2, 3)):
            x = _sample(rng, -2, 2, shape)
            for b in bounds.values():
                if b is not None:
                    x = np.where(np.abs(x - b) < 0.1, b + 0.3, x)
            out.append(((np.asarray(x),), dict(bounds)))
        return out
    return make


clamp_op = defop(
    "clamp", "ClampBackward1", _clamp, public=False,
    rules=(lambda F, g, self, min, max: F.where(_in_bounds(self, min, max), g, 0.0),),
    formulas=("where(min <= self <= max, grad, 0)",),
    sympy=_clamp_sympy,
    domain=lambda rng: (_clamp_cases({"min": -0.5, "max": 0.7})(rng)
                        + _clamp_cases({"min": 0.2, "max": None})(rng)[1:]
                        + _clamp_cases({"min": None, "max": -0.3})(rng)[2:]), tangent=POINTWISE,
)


def _clamp_min(self, min):
    return np.maximum(self, min)


def _clamp_max(self, max):
    return np.minimum(self, max)


clamp_min_op = defop(
    "clamp_min", "ClampMinBackward0", _clamp_min, public=False,
    rules=(lambda F, g, self, min: F.where(self >= min, g, 0.0),),
    formulas=("where(self >= min, grad, 0)",),
    sympy=lambda sp, x, min: _clamp_sympy(sp, x, min=min),
    domain=_clamp_cases({"min": 0.2}), tangent=POINTWISE,
)

clamp_max_op = defop(
    "clamp_max", "ClampMaxBackward0", _clamp_max, public=False,
    rules=(lambda F, g, self, max: F.where(self <= max, g, 0.0),),
    formulas=("where(self <= max, grad, 0)",),
    sympy=lambda sp, x, max: _clamp_sympy(sp, x, max=max),
    domain=_clamp_cases({"max": -0.3}), tangent=POINTWISE,
)


def _clamp_tensor(self, min, max):
    # three inputs: the registry checks broadcasting for two, so check each bound here
    for bound in (min, max):
        if bound is not None:
            _check_broadcast(self, bound)
    return _clamp(self, min, max)


def _clamp_bound_grad(F, g, self, min, max, which):
    """The gradient of a tensor bound: where it is the value clamp returned (PyTorch's choice)."""
    if which == "min":
        if max is None:
            return F.where(self < min, g, 0.0)
        return F.where((self < min) & (min < max), g, 0.0)
    if min is None:
        return F.where(self > max, g, 0.0)
    return F.where((self > max) | (max < min), g, 0.0)


def _clamp_tensor_cases(rng):
    out = []
    for shape, bound_shape in (((3,), (3,)), ((2, 3), (3,)), ((3,), ())):
        x = _sample(rng, -2, 2, shape)
        lo = _sample(rng, -1.5, -0.2, bound_shape)
        hi = _sample(rng, 0.2, 1.5, bound_shape)
        for b in (lo, hi):
            x = np.where(np.abs(x - b) < 0.1, b + 0.3, x)
        out.append(((np.asarray(x), np.asarray(lo), np.asarray(hi)), {}))
    x = _sample(rng, -2, 2, (2, 3))
    lo = _sample(rng, -1.0, 1.0, (2, 1))
    x = np.where(np.abs(x - lo) < 0.1, lo + 0.3, x)
    out.append(((x, lo, None), {}))
    return out


clamp_tensor_op = defop(
    "clamp_tensor", "ClampBackward0", _clamp_tensor, inputs=("self", "min", "max"),
    broadcasts=True, public=False,
    rules=(lambda F, g, self, min, max: F.where(_in_bounds(self, min, max), g, 0.0),
           lambda F, g, self, min, max: _clamp_bound_grad(F, g, self, min, max, "min"),
           lambda F, g, self, min, max: _clamp_bound_grad(F, g, self, min, max, "max")),
    formulas=("where(min <= self <= max, grad, 0)",
              "where(self < min and min < max, grad, 0)",
              "where(self > max or max < min, grad, 0)"),
    sympy=_clamp_sympy,
    domain=_clamp_tensor_cases, tangent=POINTWISE,
)


def clamp(input, min=None, max=None):
    """Elements limited to [min, max]; the gradient passes where min <= x <= max.

    Number bounds give ClampBackward1 (one edge); tensor bounds ClampBackward0
    (edges to self, min, max), as PyTorch's two overloads do.
    """
    if min is None and max is None:
        raise ProgramValueError("torch.clamp: At least one of 'min' or 'max' must not be None")
    tensors = [isinstance(b, Tensor) for b in (min, max) if b is not None]
    if any(tensors):
        if not all(tensors):
            raise ProgramTypeError(
                "clamp() received an invalid combination of arguments: min and max must both be "
                "tensors or both be numbers"
            )
        return apply(clamp_tensor_op, (input, min, max))
    return apply(clamp_op, (input,), {"min": _bound(input, min), "max": _bound(input, max)})


def _bound(input, value):
    """A number bound of clamp as a float, refused past a float input's dtype as PyTorch refuses
    it (1e300 for a float32 tensor: `dtypes.check_value`)."""
    if value is None:
        return None
    if isinstance(input, Tensor) and input._data.dtype.kind == "f":
        dtypes.check_value(value, input._data.dtype)
    return float(value)


def clamp_min(input, min):
    """max(input, min) elementwise (ClampMinBackward0); the gradient passes where x >= min."""
    if isinstance(min, Tensor):
        return apply(clamp_tensor_op, (input, min, None))
    return apply(clamp_min_op, (input,), {"min": _bound(input, min)})


def clamp_max(input, max):
    """min(input, max) elementwise (ClampMaxBackward0); the gradient passes where x <= max."""
    if isinstance(max, Tensor):
        return apply(clamp_tensor_op, (input, None, max))
    return apply(clamp_max_op, (input,), {"max": _bound(input, max)})


export("clamp", clamp, array=_clamp)
export("clip", clamp)
export("clamp_min", clamp_min, array=_clamp_min)
export("clamp_max", clamp_max, array=_clamp_max)


# -- masked_fill ------------------------------------------------------------------------
#
# Out of place, the input and the mask broadcast together (PyTorch expands
# both), and the gradient is summed back to the input's shape. A number value
# gives MaskedFillBackward0 (one edge); a 0-d tensor value MaskedFillBackward1,
# whose second edge collects the gradient of every filled element.


def _masked_fill(self, value, mask):
    return np.where(mask, value, self)


def _masked_fill_cases(rng):
    out = []
    for shape, mask_shape in (((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3)), ((), ())):
        mask = rng.uniform(size=mask_shape) > 0.5
        out.append(((_sample(rng, -2, 2, shape), _sample(rng, -2, 2, ())), {"mask": mask}))
    return out


def _masked_fill_sympy(sp, x, value, mask):
    x, value, mask = np.broadcast_arrays(np.asarray(x, dtype=object), np.asarray(value, dtype=object), mask)
    return np.where(mask, value, x)


masked_fill_op = defop(
    "masked_fill", "MaskedFillBackward0", lambda self, mask, value: np.where(mask, value, self),
    broadcasts=True, public=False,
    rules=(lambda F, g, mask: F.where(mask, 0.0, g),),
    formulas=("where(mask, 0, grad)",),
    sympy=lambda sp, x, mask, value: _masked_fill_sympy(sp, x, value, mask),
    domain=lambda rng: [((inputs[0],), {"mask": params["mask"], "value": 0.5})
                        for inputs, params in _masked_fill_cases(rng)], tangent=POINTWISE,
)

masked_fill_tensor_op = defop(
    "masked_fill_tensor", "MaskedFillBackward1", _masked_fill, inputs=("self", "value"),
    broadcasts=True, public=False,
    rules=(lambda F, g, mask: F.where(mask, 0.0, g),
           lambda F, g, mask: F.sum(F.where(mask, g, 0.0))),
    formulas=("where(mask, 0, grad)", "where(mask, grad, 0).sum()"),
    sympy=_masked_fill_sympy,
    domain=_masked_fill_cases,
)


def masked_fill(input, mask, value):
    """`value` where `mask` holds, else `input`; mask and input broadcast together.

    A number value records MaskedFillBackward0, a 0-d tensor MaskedFillBackward1.
    """
    if not isinstance(mask, Tensor):
        raise ProgramTypeError(f"masked_fill(): argument 'mask' (position 1) must be Tensor, "
                               f"not {type(mask).__name__}")
    m = mask._data
    if m.dtype != np.bool_:
        # gradcli ignores dtype= (every tensor is float64), so a mask of zeros and ones
        # is taken as the boolean mask it was meant to be; other values are PyTorch's error
        if m.size and not np.all((m == 0) | (m == 1)):
            raise ProgramTypeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                                   f"{'double' if m.dtype.kind == 'f' else 'long int'}")
        m = m != 0
    _check_broadcast(m, input._data if isinstance(input, Tensor) else np.asarray(input))
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise ShapeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                             f"with {value._data.ndim} dimension(s).")
        return apply(masked_fill_tensor_op, (input, value), {"mask": m})
    if not isinstance(value, (int, float, bool, np.number)):
        raise ProgramTypeError(f"masked_fill(): argument 'value' (position 2) must be Number, "
                               f"not {type(value).__name__}")
    if isinstance(input, Tensor):
        dtypes.check_value(value, input._data.dtype)
    return apply(masked_fill_op, (input,), {"mask": m, "value": float(value)})


export("masked_fill", masked_fill, array=lambda input, mask, value: np.where(mask, value, input))


# -- gather and its backward, scatter_add -----------------------------------------------------


def _gather(self, dim, index):
    x = np.asarray(self)
    if x.ndim <= 1 and index.ndim <= 1:
        # a 0-d self or index counts as one element, as in PyTorch
        return x.reshape(-1)[index.reshape(-1)].reshape(index.shape)
    # index may be smaller than self along the other dims: gather from that corner
    corner = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
    return np.take_along_axis(x[corner], index, axis=dim)


def _scatter_add(self, src, dim, index):
    out = np.array(self, dtype=np.float64, copy=True)
    if out.ndim <= 1 and index.ndim <= 1:
        np.add.at(out.reshape(-1), index.reshape(-1), np.asarray(src).reshape(-1)[:index.size])
        return out
    at = list(np.indices(index.shape, sparse=True))
    at[dim] = index
    np.add.at(out, tuple(at), np.asarray(src)[tuple(slice(0, n) for n in index.shape)])
    return out


def _gather_sympy(sp, x, dim, index):
    return _gather(np.asarray(x, dtype=object), dim, index)


def _scatter_add_sympy(sp, x, src, dim, index):
    out = np.array(x, dtype=object, copy=True)
    src = np.asarray(src, dtype=object)
    for position in np.ndindex(index.shape):
        target = list(position)
        target[dim] = index[position]
        out[tuple(target)] = out[tuple(target)] + src[position]
    return out


gather_op = defop(
    "gather", "GatherBackward0", _gather, public=False,
    rules=(lambda F, g, self_shape, dim, index: F.scatter_add(np.zeros(self_shape), g, dim, index),),
    formulas=("zeros(self.shape).scatter_add(dim, index, grad)",),
    sympy=_gather_sympy,
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (2, 3)),), {"dim": 1, "index": np.array([[0, 0], [2, 1]])}),
                 lambda rng: ((rng.uniform(-2, 2, (3, 2)),), {"dim": 0, "index": np.array([[2, 0], [2, 2]])}),
                 lambda rng: ((rng.uniform(-2, 2, (3,)),), {"dim": 0, "index": np.array([1, 1, 0, 2])}),
                 lambda rng: ((rng.uniform(-2, 2, ()),), {"dim": 0, "index": np.array(0)})), tangent=LINEAR,
)

# gather's backward, and the node of its double backward (PyTorch's ScatterAddBackward0).
scatter_add_op = defop(
    "scatter_add", "ScatterAddBackward0", _scatter_add, inputs=("self", "src"), public=False,
    rules=(lambda F, g: g, lambda F, g, dim, index: F.gather(g, dim, index)),
    formulas=("grad", "grad.gather(dim, index)"),
    sympy=_scatter_add_sympy,
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (2, 2))),
                              {"dim": 1, "index": np.array([[0, 0], [2, 1]])}),
                 lambda rng: ((rng.uniform(-2, 2, (3,)), rng.uniform(-2, 2, (4,))),
                              {"dim": 0, "index": np.array([1, 1, 0, 2])})),
)


def _index_tensor(name, index) -> np.ndarray:
    """An index argument as int64: a tensor of integral values (gradcli's tensors are float64)."""
    if not isinstance(index, Tensor):
        if isinstance(index, np.ndarray) and index.dtype == np.int64:
            return index  # from a rule
        raise ProgramTypeError(f"{name}(): argument 'index' (position 3) must be Tensor, "
                               f"not {type(index).__name__}")
    i = index._data
    if i.dtype.kind not in "iu":
        if i.dtype == np.bool_ or not np.all(np.isfinite(i)) or np.any(i != np.round(i)):
            raise ProgramTypeError(f"{name}(): Expected dtype int32/int64 for index")
    return i.astype(np.int64)


def gather(input, dim, index, *, sparse_grad=False):
    """input's values at `index` along `dim`: out[i][j] = input[i][index[i][j]] for dim 1 (GatherBackward0)."""
    index = _index_tensor("gather", index)
    shape = input._data.shape if isinstance(input, Tensor) else np.shape(input)
    d = _dim(dim, len(shape))
    if max(index.ndim, 1) != max(len(shape), 1):
        raise ShapeError("Index tensor must have the same number of dimensions as input tensor")
    for k, (n, m) in enumerate(zip(index.shape, shape)):
        if k != d and n > m:
            raise ShapeError(
                f"Size does not match at dimension {k} expected index {list(index.shape)} to be no "
                f"larger than self {list(shape)} apart from dimension {d}")
    size = shape[d] if shape else 1
    bad = index[(index < 0) | (index >= size)]
    if bad.size:
        raise ShapeError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} with size {size}")
    return apply(gather_op, (input,), {"dim": d, "index": index})


export("gather", gather, array=_gather)


# -- isclose, allclose, equal: comparisons outside the graph ---------------------------------


def _close_args(name, input, other, rtol, atol):
    _require_tensors(name, input, other)
    if rtol < 0:
        raise ProgramValueError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise ProgramValueError(f"atol must be greater than or equal to zero, but got {atol:g}")
    a, b = input._data, other._data
    if (a.dtype == np.bool_) != (b.dtype == np.bool_):
        raise ProgramTypeError(f"{'Double' if a.dtype != np.bool_ else 'Bool'} did not match "
                               f"{'Double' if b.dtype != np.bool_ else 'Bool'}")
    _check_broadcast(a, b)
    return a, b


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other| elementwise (a bool tensor, no grad)."""
    a, b = _close_args("isclose", input, other, rtol, atol)
    return Tensor._make(np.asarray(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=bool(equal_nan))))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether isclose holds everywhere: a Python bool."""
    a, b = _close_args("allclose", input, other, rtol, atol)
    return bool(np.all(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=bool(equal_nan))))


def equal(input, other):
    """Whether both have the same shape and the same elements (nan is unequal): a Python bool."""
    _require_tensors("equal", input, other)
    a, b = input._data, other._data
    return a.shape == b.shape and bool(np.all(a == b))


export("isclose", isclose, array=np.isclose)
export("allclose", allclose)
export("equal", equal)
