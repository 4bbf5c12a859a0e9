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
"""
from __future__ import annotations

import weakref

import numpy as np

from ..autograd.graph import op_name
from ..errors import AutogradError
from .._tensor import Tensor, _grad_enabled
from . import registry
from .registry import Op, apply
from .shape import _index, _index_rule, copy_slices


as_strided_view = Op(
    "as_strided_view", "AsStridedBackward0", _index,
    rules=(_index_rule,), formulas=("index_put(zeros(self.shape), region, grad, accumulate=True)",),
    sympy=lambda sp, x, indices: _index(x, indices),
)


def _owner(a: np.ndarray):
    return a if a.base is None else a.base


def link(view: Tensor, input, output_nr=None) -> Tensor:
    """Make `view` a view of `input` if its array is a view of `input`'s storage.

    `output_nr` is given for the outputs of an op that returns several views
    (unbind, split), which PyTorch does not let a program modify in place.
    """
    if not isinstance(input, Tensor):
        return view
    data = input._data
    out = view._data
    if out is not data and out.base is not _owner(data):
        return view
    root = input._base if input._base is not None else input
    view._counter = root._counter
    view._base = root
    if output_nr is not None:
        view._view_kind = (output_nr, view.grad_fn)
    elif not _grad_enabled[0]:
        view._view_kind = "no_grad"
    # a leaf that requires grad is never rebased (in-place on it or its views is an error)
    if _grad_enabled[0] and not (root.requires_grad and root.grad_fn is None):
        if root._views is None:
            root._views = weakref.WeakValueDictionary()   # id -> view, gone when the view is
        root._views[id(view)] = view
    return view


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
        t._rebase(result.grad_fn, result._output_nr)
        if root is None and t._views:
            _regenerate(t, ())
        return
    new_base = apply(copy_slices, (root, result), {"indices": indices})
    root._rebase(new_base.grad_fn)
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
        view._rebase(apply(as_strided_view, (root,), {"indices": indices}).grad_fn)


registry.link_view[0] = link
