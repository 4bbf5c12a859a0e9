"""Which results are views: a result whose array shares its input's storage shares the
input's root base and version counter, as PyTorch's view ops' outputs do. Below `apply`,
which calls `link` on every result that may be a view; the in-place machinery that
builds on it is in views.py."""
from __future__ import annotations

import weakref

import numpy as np

from .._tensor import Tensor, _grad_enabled, version_counter


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
    view._counter = version_counter(root)
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
