"""Views: tensors that share their base's storage, and in-place ops through them.

An op whose numpy forward returns a view of its input's array (select, slice,
reshape, transpose, `x[1:3]`...) makes a view, as PyTorch's view ops do: it
shares the base's version counter and remembers its root base. An in-place op
on a view then does what PyTorch's CopySlices does: the base is rebased onto a
`CopySlices` node that writes the view's new value into the region the view
covers, and every live view of that base is regenerated as an
`AsStridedBackward0` of the new base. Without this, `x[0].mul_(2)` would change
`x`'s values but not its gradient.

The region a view covers is read off the numpy strides (as PyTorch's
as_strided does), so one rule serves every chain of view ops.

The in-place machinery of every Tensor lives here too, attached to Tensor as
methods: `_check_inplace` (PyTorch's refusals), `_inplace` (run an op and write
its result into the tensor), `_rebase` (the tensor's new history), and the
in-place methods `zero_`, `fill_`, `copy_` (their ops: factories.py, fills.py).
"""
from __future__ import annotations


import numpy as np

from ..dtypes import cast
from ..graph.nodes import op_name
from ..errors import AutogradError, ProgramTypeError, ShapeError
from .._tensor import Tensor, _grad_enabled, bump_version, no_grad, shape_str
from .aliasing import _owner
from . import batching as _batching, dual as _dual, fills as _fills
from .apply import apply
from .registry import METHODS, TENSORS, Op


# -- a region of an array, read and written -------------------------------------------------
#
# `indices` is a pair (basic, advanced): a numpy key of ints, slices and None
# applied first (a view), then a key of slices and integer arrays applied to
# that view (None where a stage is empty). Applying basic indices before tensor
# ones is PyTorch's order (numpy would treat an int beside an array as one more
# array); it also keeps `x[0, [1, 2]] = v` a write through a view. The index
# ops (indexing.py) read and write regions with the same functions.


def _view(a, indices):
    basic, advanced = indices
    v = a if basic is None else a[basic]
    return v if advanced is None else v[advanced]


def _index(self, indices):
    return _view(self, indices)


def _index_put(self, values, indices, accumulate=False):
    out = np.array(self, copy=True)
    if out.dtype == np.float16 and not accumulate:   # a double into half: through a float
        values = cast(values, np.float16)
    basic, advanced = indices
    target = out if basic is None else out[basic]
    if advanced is None:
        if accumulate:
            target += values
        else:
            target[...] = values
    elif accumulate:
        np.add.at(target, advanced, values)
    else:
        target[advanced] = values
    return out


def _data(x):
    return x._data if isinstance(x, Tensor) else x


def _reduce_to(F, g, shape):
    """A gradient of a value broadcast to the indexed shape, summed back to the value's shape."""
    return g if np.shape(_data(g)) == tuple(shape) else F.sum_to_size(g, tuple(shape))


def _put_self_rule(F, g, indices, accumulate):
    return g if accumulate else F.index_put(g, 0.0, indices)


def _put_values_rule(F, g, indices, values_shape):
    return _reduce_to(F, F.index(g, indices), values_shape)


def _index_rule(F, g, self_shape, indices):
    return F.index_put_impl(np.zeros(self_shape), g, indices)


PUT_FORMULAS = ("grad.index_put(indices, 0) unless accumulate", "grad[indices] summed to values.shape")


def _put_sympy(sp, x, v, indices, accumulate=False):
    return _index_put(x, v, indices, accumulate)


# `x[1:3] = v`: PyTorch's CopySlices node. It is index_put on a basic key under
# another name; it lives outside the table because its name has no Backward<k>
# form (tests/ops/test_shape.py checks its gradients).
copy_slices = Op(
    "copy_slices", "CopySlices", _index_put, inputs=("self", "values"),
    rules=(_put_self_rule, _put_values_rule), formulas=PUT_FORMULAS, sympy=_put_sympy,
)

as_strided_view = Op(
    "as_strided_view", "AsStridedBackward0", _index,
    rules=(_index_rule,), formulas=("index_put(zeros(self.shape), region, grad, accumulate=True)",),
    sympy=lambda sp, x, indices: _index(x, indices),
)


# -- views -----------------------------------------------------------------------------------


_NO_GRAD_VIEW = "A view was created in no_grad mode and is being modified inplace with grad mode enabled."
_MULTI_VIEW = (
    "This view is the output of a function that returns multiple views. Such functions do not allow "
    "the output views to be modified inplace. You should replace the inplace operation by an "
    "out-of-place one."
)


def check_view_kind(view: Tensor, args) -> None:
    """PyTorch's refusals of an in-place op that would be recorded on a view it cannot rebase."""
    if not (view._base.requires_grad or view.requires_grad
            or any(isinstance(a, Tensor) and a.requires_grad for a in args)):
        return
    kind = view._view_kind
    if kind == "no_grad":
        raise AutogradError(
            f"{_NO_GRAD_VIEW} Given that this use case is ambiguous and error-prone, it is forbidden. "
            "You can clarify your code by moving both the view and the inplace either both inside the "
            "no_grad block (if you don't want the inplace to be tracked) or both outside (if you want "
            "the inplace to be tracked).")
    output_nr, node = kind
    if node is None:
        raise AutogradError(f"{_NO_GRAD_VIEW} {_MULTI_VIEW}")
    raise AutogradError(f"Output {output_nr} of {op_name(node)} is a view and is being modified inplace. "
                        f"{_MULTI_VIEW}")


def region(view: Tensor, root: Tensor):
    """The index of `root` (a (basic, advanced) pair, as indexing ops take) that gives the
    elements `view` covers; None if they no longer share storage or the view is empty."""
    base, v = root._data, view._data
    if _owner(v) is not _owner(base) or v.size == 0:
        return None
    if base.ndim == 0:
        return (None,) * v.ndim + (Ellipsis,), None   # every dim of the view has size 1
    size = base.itemsize
    start = v.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    if base.flags.c_contiguous:
        flat = np.full(v.shape, start // size, dtype=np.int64)
        for k, (n, stride) in enumerate(zip(v.shape, v.strides)):
            flat += _along(k, v.ndim, np.arange(n, dtype=np.int64) * (stride // size))
    else:
        # a base that is itself strided: find each view address among the base's addresses
        addresses = np.zeros(base.shape, dtype=np.int64)
        for k, (n, stride) in enumerate(zip(base.shape, base.strides)):
            addresses += _along(k, base.ndim, np.arange(n, dtype=np.int64) * stride)
        addresses = addresses.ravel()
        order = np.argsort(addresses, kind="stable")
        wanted = np.full(v.shape, start, dtype=np.int64)
        for k, (n, stride) in enumerate(zip(v.shape, v.strides)):
            wanted += _along(k, v.ndim, np.arange(n, dtype=np.int64) * stride)
        flat = order[np.searchsorted(addresses[order], wanted)]
    return None, np.unravel_index(flat, base.shape)


def _along(k: int, ndim: int, values: np.ndarray) -> np.ndarray:
    shape = [1] * ndim
    shape[k] = values.size
    return values.reshape(shape)


def rebase(t: Tensor, result: Tensor) -> None:
    """After an in-place op recorded as `result`: rebase `t` (and its base and views) onto it."""
    root = t._base
    indices = None if root is None else region(t, root)
    if indices is None:
        _rebase(t, result.grad_fn, result._output_nr)
        if root is None and t._views:
            _regenerate(t, ())
        return
    new_base = apply(copy_slices, (root, result), {"indices": indices})
    _rebase(root, new_base.grad_fn)
    _regenerate(root, (t,))


def _regenerate(root: Tensor, extra) -> None:
    """Each live view of `root` becomes AsStridedBackward0 of root's new grad_fn, as PyTorch regenerates them."""
    views = {id(t): t for t in extra}
    if root._views:
        views.update(root._views.items())
    for view in views.values():
        indices = region(view, root)
        if indices is None:
            continue
        _rebase(view, apply(as_strided_view, (root,), {"indices": indices}).grad_fn)



# -- in-place ops on any tensor --------------------------------------------------------------


def _check_inplace(self, args=()) -> None:
    """PyTorch's refusals of an in-place op on this tensor; a read-only array is copied first."""
    if _grad_enabled[0]:
        base = self._base
        if base is not None:
            if getattr(self, "_view_kind", None) is not None:
                check_view_kind(self, args)
            if base.requires_grad and base.grad_fn is None:
                raise AutogradError(
                    "a view of a leaf Variable that requires grad is being used in an in-place "
                    "operation."
                )
        elif self.requires_grad and self.grad_fn is None:
            raise AutogradError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )
    if not self._data.flags.writeable:
        if self._data.ndim == 0 or self._data.base is None:
            self._data = self._data.copy()
        else:
            raise ShapeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation."
            )


def _inplace(self, fn, *args, **kwargs) -> Tensor:
    """Run the out-of-place `fn` and write its result into this tensor's storage.

    When a graph is being recorded, the op is applied to a snapshot of the old
    value (so what the node saves is not the value overwritten here) and this
    tensor is rebased onto the new node, as PyTorch rebases in-place results.
    """
    if _batching.ON[0]:   # inside vmap: a batched tensor's value is its physical tensor's
        done = _batching.inplace(self, fn, args, kwargs)
        if done is not NotImplemented:
            return done
    _check_inplace(self, args)
    if _dual.ACTIVE[0]:
        _dual.check_inplace(self, args)
    other_requires = any(isinstance(a, Tensor) and a.requires_grad for a in args)
    if _grad_enabled[0] and (self.requires_grad or other_requires):
        old = Tensor._make(self._data.copy(), self.grad_fn, self.requires_grad, self._output_nr)
        if _dual.ACTIVE[0]:
            _dual.copy_tangents(self, old)
        result = fn(old, *args, **kwargs)
    else:
        with no_grad():
            result = fn(self, *args, **kwargs)
    out = result._data
    if out.shape != self._data.shape:
        raise ShapeError(
            f"output with shape {shape_str(self._data.shape)} doesn't match the broadcast shape "
            f"{shape_str(out.shape)}"
        )
    if self._data.dtype != out.dtype:
        _check_cast_back(out.dtype, self._data.dtype)
    self._data[...] = out
    bump_version(self)
    if _dual.ACTIVE[0]:   # forward mode: the tangent changes with the value
        _dual.copy_tangents(result, self, drop=True)
        if self._base is not None:
            _base_tangents(self)
    node = result.grad_fn
    if node is not None:
        if getattr(node, "_result_counter", None) is result._counter:
            # a node that saved its result (exp_, sigmoid_) saved this tensor as it is now
            node.result = self._data
            node._result_counter = self._counter
            node.result_version = self._counter[0]
        if self._base is None and self._views is None:
            _rebase(self, result.grad_fn, result._output_nr)
        else:
            rebase(self, result)
    return self


def _base_tangents(view: Tensor) -> None:
    """Forward mode, after an in-place op on a view: its base's tangent takes the view's new
    tangent in the view's region, and the base's other views are given theirs from it."""
    root = view._base
    indices = region(view, root)
    if indices is None:
        return
    depth = _dual.ACTIVE[0]
    for k, level in enumerate(_dual.LEVELS[:depth]):
        tangent = level.get(view)
        base_tangent = level.get(root)
        if tangent is None and base_tangent is None:
            continue
        _dual.ACTIVE[0] = k   # the tangents' own ops take no tangent at this level
        try:
            if base_tangent is None:
                base_tangent = Tensor._make(np.zeros_like(root._data))
            if tangent is None:
                tangent = Tensor._make(np.zeros_like(view._data))
            new = apply(copy_slices, (base_tangent, tangent), {"indices": indices})
            level.set(root, new)
            for other in list((root._views or {}).values()):
                where = other is not view and region(other, root)
                if where:
                    level.set(other, apply(as_strided_view, (new,), {"indices": where}))
        finally:
            _dual.ACTIVE[0] = depth


def _check_cast_back(result, into) -> None:
    """PyTorch's refusal of an in-place result its tensor's dtype cannot hold (float into int64)."""
    from ..dtypes import BY_NUMPY, can_cast

    source, target = BY_NUMPY[result], BY_NUMPY[into]
    if not can_cast(source, target):
        raise ProgramTypeError(f"result type {source.legacy} can't be cast to the desired output type "
                               f"{target.legacy}")


def _rebase(self, grad_fn, output_nr: int = 0) -> None:
    """Make `grad_fn` this tensor's history after an in-place op.

    A retain_grad() follows the tensor to its new node; other hooks stay on the
    old one and see the gradient of the value before the change, as in PyTorch.
    """
    if self._retains_grad and self.grad_fn is not None:
        hooks = self.grad_fn._tensor_hooks or []
        for entry in hooks:
            if entry[2] and entry[0] == self._output_nr:
                hooks.remove(entry)
                grad_fn._add_tensor_hook(output_nr, entry[1], retains=True)
                break
    self.grad_fn = grad_fn
    self._output_nr = output_nr
    self.requires_grad = True


def zero_(self) -> Tensor:
    if self.grad_fn is not None and _grad_enabled[0] or _batching.ON[0]:   # (inside vmap: every sample)
        return _inplace(self, TENSORS.zeros_like_op)   # recorded (ZeroBackward0), one version bump
    _check_inplace(self)
    self._data[...] = 0.0
    bump_version(self)
    return self


def fill_(self, value) -> Tensor:
    return _inplace(self, _fills.fill, value)   # FillBackward2/3: the value written exactly


def copy_(self, src) -> Tensor:
    return _inplace(self, _fills.copy, src)   # CopyBackwards, cast as PyTorch casts


for _method in (zero_, fill_, copy_):
    METHODS[_method.__name__] = _method
