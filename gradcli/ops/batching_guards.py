"""vmap's guards: the public functions that read their tensor arguments' values, wrapped
once at start-up so that inside vmap they run per sample or by a rule of their own.

They must be in the tables before tensor_methods.py attaches the methods, so this module
loads with the op table; the per-op batching rules (batching_rules.py) load on the first
vmap (`batching.enter`), as only vmap runs them.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .apply import apply
from .batching import lead
from .registry import FUNCTIONS, OPS


# -- whole functions that read their tensor arguments' values ---------------------------
#
# A wrapper that turns a tensor's values into an op's parameters (a target's classes,
# max's indices, a tensor index) would read sample 0 of a batched tensor: those functions
# run per sample inside vmap (batching.per_sample), or by a rule of their own here.


def _class_nll(logp, target, weight, ignore_index, reduction):
    """nll_loss of batched log-probabilities (N, C) or (C,) and class-index targets, batched
    or not: the samples' rows as one (M, C) input, then each sample's reduction."""
    from .batching import expanded as to_levels, union, unwrap, wrap, off

    lp, llv = unwrap(logp)
    tp, tlv = unwrap(target)
    levels = union([llv, tlv])
    k = len(levels)
    with off():
        lp = to_levels(logp, levels)
        t = np.broadcast_to(lead(tp, tlv, levels, expand=True)._data, lp._data.shape[:-1]).astype(np.int64)
        classes = lp._data.shape[-1]
        flat = apply(OPS["reshape"], (lp,), {"shape": (-1, classes)})
        per = FUNCTIONS["nll_loss"](flat, Tensor._make(t.reshape(-1)), weight, ignore_index=ignore_index,
                                    reduction="none")
        per = apply(OPS["reshape"], (per,), {"shape": t.shape})
        if reduction != "none":
            axes = tuple(range(k, t.ndim))
            per = apply(OPS["sum_dim"], (per,), {"dim": axes, "keepdim": False}) if axes else per
            if reduction == "mean":
                w = np.ones(classes) if weight is None else np.asarray(weight._data, dtype=np.float64)
                valid = t != ignore_index
                denom = np.where(valid, w[np.where(valid, t, 0)], 0.0).sum(axis=axes)
                per = apply(OPS["div"], (per, np.asarray(denom, dtype=per._data.dtype)), {})
    return wrap(per, levels)


def _targets_rule(fn, log_softmax_first: bool):
    def rule(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean", label_smoothing=0.0):
        from .batching import is_batched, per_sample

        simple = (isinstance(input, Tensor) and isinstance(target, Tensor) and target._data.dtype.kind in "iu"
                  and input._data.ndim in (1, 2) and target._data.ndim == input._data.ndim - 1
                  and not is_batched(weight) and size_average is None and reduce is None
                  and reduction in ("none", "mean", "sum") and float(label_smoothing) == 0.0)
        if not simple:
            kwargs = {"weight": weight, "size_average": size_average, "ignore_index": ignore_index,
                      "reduce": reduce, "reduction": reduction}
            if log_softmax_first:
                kwargs["label_smoothing"] = label_smoothing
            return per_sample(fn, (input, target), kwargs)
        tp = target._data   # (checked per sample by the function itself, on sample 0's classes)
        if tp.size and (tp.min() < 0 and (tp != ignore_index).any()):
            return per_sample(fn, (input, target), {"weight": weight, "ignore_index": ignore_index,
                                                    "reduction": reduction})
        logp = FUNCTIONS["log_softmax"](input, input._data.ndim - 1) if log_softmax_first else input
        return _class_nll(logp, target, weight, int(ignore_index), reduction)
    return rule


def _guard(fn, when, rule=None):
    """fn, run by `rule` (default: per sample) when `when(args, kwargs)` holds inside vmap."""
    from .batching import ON, per_sample

    def guard(*args, **kwargs):
        if ON[0] and when(args, kwargs):
            return rule(*args, **kwargs) if rule is not None else per_sample(fn, args, kwargs)
        return fn(*args, **kwargs)

    guard.__name__ = getattr(fn, "__name__", "fn")
    guard.__doc__ = fn.__doc__
    guard.__wrapped__ = fn
    return guard


def _any(args, kwargs) -> bool:
    from .batching import _any_batched

    return _any_batched(args, kwargs)


def _after_first(args, kwargs) -> bool:
    """A batched tensor among the arguments after the first (an index, a mask, a target)."""
    from .batching import _any_batched

    return _any_batched(args[1:], kwargs)


def _with_dim(args, kwargs) -> bool:
    """max(x, dim)/min(x, dim): the indices are read from the values."""
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    return dim is not None and not isinstance(dim, Tensor) and _any(args, kwargs)


_MASK = ("vmap: We do not support batching operators that can support dynamic shape. Attempting to batch "
         "over indexing with a boolean mask.")


def _unbatched_self(name: str) -> str:
    return (f"vmap: {name}(self, *extra_args) is not possible because there exists a Tensor `other` in "
            "extra_args that has more elements than `self`. This happened due to `other` being vmapped over "
            f"but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of "
            f"{name}. If said operator is being called inside the PyTorch framework, please file a bug report "
            "instead.")


def _batched_mask(parts) -> bool:
    from .batching import is_batched

    return any(is_batched(i) and i._data.dtype == np.bool_ for i in parts)


def _setitem_rule(fn):
    """`x[index] = value` inside vmap, as PyTorch's copy_/index_put_ rules: into the physical
    tensor with the index shifted past the batch dims; per sample (select views of the physical
    tensor, so the graph records CopySlices on it) when the index is batched or its tensor
    indices are apart (numpy would move their dims in front of the batch dims). PyTorch's errors
    for a batched value or index written into an unbatched tensor, and for a batched mask."""
    def rule(input, index, value):
        from ..errors import AutogradError
        from .batching import off, rebind, union, unwrap

        p, lv = unwrap(input)
        vp, vlv = unwrap(value) if isinstance(value, Tensor) else (value, ())
        parts = index if isinstance(index, tuple) else (index,)
        advanced = [d for d, i in enumerate(parts) if isinstance(i, (Tensor, list, np.ndarray))]
        if _batched_mask(parts):
            raise AutogradError(_MASK)
        levels = union([lv, vlv] + [unwrap(i)[1] for i in parts if isinstance(i, Tensor)])
        if levels != lv:
            raise AutogradError(_unbatched_self("index_put_" if advanced else "inplace arithmetic"))
        k = len(lv)
        if any(isinstance(i, Tensor) and unwrap(i)[1] for i in parts) or (
                advanced and advanced[-1] - advanced[0] + 1 != len(advanced)):
            _setitem_per_sample(rule, fn, p, lv, index, value)
            rebind(input, p, lv)
            return
        with off():
            if isinstance(vp, Tensor):
                vp = lead(vp, vlv, lv, expand=True)
                region = p._data[(slice(None),) * k + tuple(
                    i._data if isinstance(i, Tensor) else i for i in parts)].shape
                vshape = vp._data.shape[k:]
                if len(vshape) < len(region) - k:
                    vp = apply(OPS["reshape"], (vp,), {"shape": vp._data.shape[:k] + (1,) * (
                        len(region) - k - len(vshape)) + vshape})
            fn(p, (slice(None),) * k + parts, vp)
        rebind(input, p, lv)
    return rule


def _setitem_per_sample(rule, fn, p, lv, index, value):
    """The assignment per sample of the outermost level, into select views of physical `p`."""
    from .batching import _select, off, wrap

    first, rest = lv[0], lv[1:]
    for b in range(first.size):
        with off():
            view = apply(OPS["select"], (p,), {"dim": 0, "index": b})
        at = _select(index, first, b)
        sub = _select(value, first, b)
        if rest:
            rule(wrap(view, rest), at, sub)
        else:
            with off():
                fn(view, at, sub)


def _getitem_rule(fn):
    """`x[index]` with a batched index: per sample; a batched mask is PyTorch's error."""
    def rule(input, index):
        from ..errors import AutogradError
        from .batching import per_sample

        if _batched_mask(index if isinstance(index, tuple) else (index,)):
            raise AutogradError(_MASK)
        return per_sample(fn, (input, index), {})
    return rule


_GUARDS = {
    "setitem": lambda fn: _guard(fn, _any, _setitem_rule(fn)),
    "cross_entropy": lambda fn: _guard(fn, _any, _targets_rule(fn, True)),
    "nll_loss": lambda fn: _guard(fn, _after_first, _targets_rule(fn, False)),
    "max": lambda fn: _guard(fn, _with_dim), "min": lambda fn: _guard(fn, _with_dim),
    "median": lambda fn: _guard(fn, _any), "mode": lambda fn: _guard(fn, _any),
    "sort": lambda fn: _guard(fn, _any), "argsort": lambda fn: _guard(fn, _any),
    "topk": lambda fn: _guard(fn, _any), "kthvalue": lambda fn: _guard(fn, _any),
    "getitem": lambda fn: _guard(fn, _after_first, _getitem_rule(fn)), "gather": lambda fn: _guard(fn, _after_first),
    "take_along_dim": lambda fn: _guard(fn, _after_first), "index_select": lambda fn: _guard(fn, _after_first),
    "where": lambda fn: _guard(fn, lambda a, k: _any((a[0],) if a else (), {"c": k.get("condition")})),
    "masked_fill": lambda fn: _guard(fn, _after_first), "embedding": lambda fn: _guard(fn, _any),
    "scatter_add": lambda fn: _guard(fn, _after_first), "scatter": lambda fn: _guard(fn, _after_first),
    "index_add": lambda fn: _guard(fn, _after_first), "masked_select": lambda fn: _guard(fn, _any),
    "nonzero": lambda fn: _guard(fn, _any), "unique": lambda fn: _guard(fn, _any),
    "one_hot": lambda fn: _guard(fn, _any), "bincount": lambda fn: _guard(fn, _any),
    "take": lambda fn: _guard(fn, _after_first), "multi_margin_loss": lambda fn: _guard(fn, _after_first),
    "multilabel_margin_loss": lambda fn: _guard(fn, _after_first),
}


def install_guards() -> None:
    """Replace the value-reading functions in the tables by their guarded forms (before
    tensor_methods.py attaches the methods)."""
    from .registry import METHODS, NN_FUNCTIONS, TENSORS

    made: dict = {}   # one guard per function, whichever tables publish it
    for table in (FUNCTIONS, METHODS, NN_FUNCTIONS):
        for name, make in _GUARDS.items():
            fn = table.get(name)
            if fn is not None and not hasattr(fn, "__wrapped__"):
                if id(fn) not in made:
                    made[id(fn)] = (fn, make(fn))
                table[name] = made[id(fn)][1]
                if getattr(TENSORS, name, None) is fn:
                    setattr(TENSORS, name, table[name])
