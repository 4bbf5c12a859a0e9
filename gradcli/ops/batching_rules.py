"""Each op's batching rule: the op run once on physical tensors with the batch dims in front.

A rule is `rule(op, xs, lvs, levels, params)`: `xs` the physical inputs (a tensor
batched at levels `lvs[i]` has one leading dim per level, outermost first;
an input with no levels is as the program gave it), `levels` all the levels
involved. It returns the physical result, with one leading dim per level of
`levels` (their full sizes), or NotImplemented for the loop fallback
(batching.loop), which runs the op per sample and gives the same answer. Rules
run ordinary ops (`apply`), so the graph and tangents they record are those
of plain computations on physical arrays.

Most rules come from the op table's kinds: an elementwise op (a POINTWISE
tangent, and the comparisons) broadcasts once each batched input is given its
batch dims in front and its per-sample dims padded to the result's rank; an op
with a `dim` (reductions, softmax, views) has its dims shifted past the batch
dims. The rest are written per op: views with a shape, the matrix products,
the losses with a reduction, cat and stack.
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from .apply import apply
from .batching import KEEPS_BDIM, RULES, lead
from .dual import POINTWISE
from .registry import FUNCTIONS, OPS

_DIMS = ("dim", "dims", "dim0", "dim1", "dim2")


def _logical_ndim(x, lv) -> int:
    return np.ndim(x._data if isinstance(x, Tensor) else x) - len(lv)


def _single(xs, lvs):
    """The one batched input (others must be absent or not tensors), or None."""
    batched = [i for i, lv in enumerate(lvs) if lv]
    if len(batched) != 1 or any(isinstance(x, Tensor) for i, x in enumerate(xs) if i not in batched):
        return None
    return batched[0]


# -- elementwise ------------------------------------------------------------------------


def elementwise(op, xs, lvs, levels, params):
    """Broadcast with the batch dims in front: each batched input padded to the result's rank."""
    k = len(levels)
    ranks = [_logical_ndim(x, lv) for x, lv in zip(xs, lvs) if isinstance(x, (Tensor, np.ndarray))]
    ranks += [np.ndim(v) for v in params.values() if isinstance(v, np.ndarray)]
    r = max(ranks) if ranks else 0
    dtypes = {x._data.dtype for x in xs if isinstance(x, Tensor)}
    if len(dtypes) > 1 and any(lv and _logical_ndim(x, lv) == 0 for x, lv in zip(xs, lvs)):
        return NotImplemented   # a 0-d tensor's place in type promotion is not a dimensioned one's
    new = []
    for x, lv in zip(xs, lvs):
        if lv:
            x = lead(x, lv, levels)
            shape = x._data.shape
            n = len(shape) - k
            if n < r:
                x = apply(OPS["reshape"], (x,), {"shape": shape[:k] + (1,) * (r - n) + shape[k:]})
        new.append(x)
    return apply(op, tuple(new), params)


# -- dims shifted past the batch dims --------------------------------------------------


def _shift(d, n: int, k: int):
    """A per-sample dim (or tuple of dims) of a rank-n tensor as a physical one; None if out
    of range (the loop gives PyTorch's error)."""
    if isinstance(d, (tuple, list)):
        out = [_shift(x, n, k) for x in d]
        return None if any(x is None for x in out) else tuple(out)
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
        return None
    if not -n <= d < n:
        return None
    return int(d) % n + k


_ALL_WHEN_NONE = {"amax", "amin", "logsumexp", "nansum", "norm", "norm_dim", "std", "var", "sum_dim",
                  "mean_dim"}


def shifted(op, xs, lvs, levels, params, extra: int = 0):
    """An op of one input whose dims are parameters: shift them past the batch dims."""
    i = _single(xs, lvs)
    if i is None:
        return NotImplemented
    k = len(levels)
    x = xs[i]
    n = _logical_ndim(x, lvs[i])
    if n == 0:
        return NotImplemented
    new = dict(params)
    for name in _DIMS:
        if name in params or (name in op.defaults and name == "dim"):
            d = params.get(name, op.defaults.get(name))
            if d is None or (isinstance(d, tuple) and not d and name == "dim"):
                if op.name not in _ALL_WHEN_NONE:
                    return NotImplemented
                d = tuple(range(n))
            d = _shift(d, n + extra, k)
            if d is None:
                return NotImplemented
            new[name] = d
    return apply(op, tuple(xs), new)


def unsqueezed(op, xs, lvs, levels, params):
    return shifted(op, xs, lvs, levels, params, extra=1)


def argmax_like(op, xs, lvs, levels, params):
    if params.get("dim") is None:
        if params.get("keepdim"):
            return NotImplemented
        x = xs[0]
        k = len(levels)
        flat = apply(OPS["reshape"], (x,), {"shape": x._data.shape[:k] + (-1,)})
        return apply(op, (flat,), {**params, "dim": k})
    return shifted(op, xs, lvs, levels, params)


def permute(op, xs, lvs, levels, params):
    k = len(levels)
    n = _logical_ndim(xs[0], lvs[0])
    dims = _shift(params["dims"], n, k) if n else None
    if dims is None or len(dims) != n or len(set(dims)) != n:
        return NotImplemented
    return apply(op, (xs[0],), {**params, "dims": tuple(range(k)) + dims})


def transpose_2d(op, xs, lvs, levels, params):
    """t: a matrix's two dims swapped (a vector or a number as it is)."""
    n = _logical_ndim(xs[0], lvs[0])
    if n != 2:
        return NotImplemented
    k = len(levels)
    return apply(OPS["transpose"], (xs[0],), {"dim0": k, "dim1": k + 1})


def squeeze_all(op, xs, lvs, levels, params):
    k = len(levels)
    shape = xs[0]._data.shape
    dims = tuple(k + i for i, s in enumerate(shape[k:]) if s == 1)
    return apply(OPS["squeeze_dims"], (xs[0],), {"dim": dims})


def _batch(x, k):
    return x._data.shape[:k]


def reshaped(op, xs, lvs, levels, params):
    """reshape, _unsafe_view: the batch dims then the per-sample shape."""
    k = len(levels)
    shape = params["shape"]
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    n_free = sum(1 for s in shape if s == -1)
    known = math.prod(s for s in shape if s != -1)
    per_sample = math.prod(xs[0]._data.shape[k:])
    if n_free > 1 or (n_free == 0 and known != per_sample) or (n_free and (known == 0 or per_sample % known)):
        return NotImplemented
    return apply(op, (xs[0],), {**params, "shape": _batch(xs[0], k) + shape})


def _padded(x, k: int, sizes: tuple):
    """`x` (k batch dims in front) with size-1 per-sample dims added after the batch dims
    until it has as many per-sample dims as `sizes` (None: `sizes` is shorter than x's)."""
    shape = x._data.shape
    n = len(shape) - k
    if len(sizes) < n:
        return None
    if len(sizes) > n:   # new per-sample dims go in front of the per-sample ones, after the batch
        x = apply(OPS["reshape"], (x,), {"shape": shape[:k] + (1,) * (len(sizes) - n) + shape[k:]})
    return x


def _sized_per_sample(key: str, for_batch):
    """The rule of an op given per-sample sizes under `key` (expand's size, repeat's repeats):
    x padded to as many per-sample dims, the batch dims' entries made by `for_batch`."""
    def rule(op, xs, lvs, levels, params):
        k = len(levels)
        sizes = tuple(params[key])
        x = _padded(xs[0], k, sizes)
        if x is None:
            return NotImplemented
        return apply(op, (x,), {**params, key: for_batch(xs[0]._data.shape[:k]) + sizes})
    return rule


expanded = _sized_per_sample("size", lambda batch: batch)
repeated = _sized_per_sample("repeats", lambda batch: (1,) * len(batch))


def summed_to_size(op, xs, lvs, levels, params):
    k = len(levels)
    size = params["size"]
    size = tuple(size) if isinstance(size, (tuple, list)) else (size,)
    x = xs[0]
    shape = x._data.shape
    n = len(shape) - k
    if len(size) > n:
        return NotImplemented
    padded = (1,) * (n - len(size)) + size
    out = apply(op, (x,), {**params, "size": shape[:k] + padded})
    return apply(OPS["reshape"], (out,), {"shape": shape[:k] + size})


def reduced_whole(name: str):
    """sum(), mean(): the reduction over every per-sample dim."""
    def rule(op, xs, lvs, levels, params):
        k = len(levels)
        x = xs[0]
        n = x._data.ndim - k
        if n == 0:
            return apply(OPS["clone"], (x,), {})
        return apply(OPS[name], (x,), {"dim": tuple(range(k, k + n)), "keepdim": False})
    return rule


def flattened_whole(name: str):
    """prod(), max(), min(): the reduction over the per-sample values flattened."""
    def rule(op, xs, lvs, levels, params):
        k = len(levels)
        x = xs[0]
        if x._data.size == 0:
            return NotImplemented
        flat = apply(OPS["reshape"], (x,), {"shape": x._data.shape[:k] + (-1,)})
        return apply(OPS[name], (flat,), {"dim": k, "keepdim": False})
    return rule


def same_shape(op, xs, lvs, levels, params):
    """Ops that act on any array as a whole set of values or on its last dims alone."""
    if _single(xs, lvs) is None:
        return NotImplemented
    return apply(op, tuple(xs), params)


def last_two(op, xs, lvs, levels, params):
    """tril, triu, det, inverse, diag_embed: numpy's batching over leading dims is theirs."""
    i = _single(xs, lvs)
    if i is None or _logical_ndim(xs[i], lvs[i]) < (1 if op.name == "diag_embed" else 2):
        return NotImplemented
    return apply(op, tuple(xs), params)


def gathered(op, xs, lvs, levels, params):
    k = len(levels)
    index = np.asarray(params["index"])
    n = _logical_ndim(xs[0], lvs[0])
    if index.ndim != n or n == 0:
        return NotImplemented
    full = np.broadcast_to(index, _batch(xs[0], k) + index.shape)
    return shifted(op, xs, lvs, levels, {**params, "index": full})


# -- several tensors: cat, stack, index_add -------------------------------------------


def joined(op, xs, lvs, levels, params, extra: int = 0):
    k = len(levels)
    ranks = {_logical_ndim(x, lv) for x, lv in zip(xs, lvs) if isinstance(x, Tensor)}
    if len(ranks) != 1 or not all(isinstance(x, Tensor) for x in xs):
        return NotImplemented
    n = ranks.pop()
    if n == 0 and not extra:
        return NotImplemented
    d = _shift(params.get("dim", 0), n + extra, k)
    if d is None:
        return NotImplemented
    new = [lead(x, lv, levels, expand=True) for x, lv in zip(xs, lvs)]
    out = dict(params)
    out["dim"] = d
    return apply(op, tuple(new), out)


def index_added(op, xs, lvs, levels, params):
    return joined(op, xs, lvs, levels, params)


# -- matrix products --------------------------------------------------------------------


def _matmul(a, la, b, lb, levels):
    """matmul of per-sample a and b (batched at la, lb) on physical tensors."""
    k = len(levels)
    na, nb = _logical_ndim(a, la), _logical_ndim(b, lb)
    if na == 0 or nb == 0:
        return NotImplemented
    ra, rb = (na if na > 1 else 2), (nb if nb > 1 else 2)
    if a._data.shape[-1] != b._data.shape[-2 if nb > 1 else -1]:
        return NotImplemented
    r = max(ra, rb)

    def prepared(x, lv, n, vector_at):
        if lv:
            x = lead(x, lv, levels)
        shape = x._data.shape
        batch, rest = (shape[:k], shape[k:]) if lv else ((), shape)
        if n == 1:
            rest = rest[:vector_at] + (1,) + rest[vector_at:] if vector_at == 0 else rest + (1,)
        if lv:
            rest = (1,) * (r - len(rest)) + rest
        new = batch + rest
        return x if new == shape else apply(OPS["reshape"], (x,), {"shape": new})

    a2 = prepared(a, la, na, 0)
    b2 = prepared(b, lb, nb, 1)
    out = FUNCTIONS["matmul"](a2, b2)
    shape = out._data.shape
    if na == 1 or nb == 1:
        drop = [len(shape) - 2] if na == 1 else []
        drop += [len(shape) - 1] if nb == 1 else []
        out = apply(OPS["reshape"], (out,), {"shape": tuple(s for i, s in enumerate(shape) if i not in drop)})
    return out


_RANKS = {"mm": (2, 2), "bmm": (3, 3), "mv": (2, 1), "dot": (1, 1)}


def product(op, xs, lvs, levels, params):
    (a, b), (la, lb) = xs, lvs
    if (_logical_ndim(a, la), _logical_ndim(b, lb)) != _RANKS[op.name] or not (
            isinstance(a, Tensor) and isinstance(b, Tensor)) or a._data.dtype != b._data.dtype:
        return NotImplemented
    if op.name == "bmm" and a._data.shape[len(la)] != b._data.shape[len(lb)]:
        return NotImplemented
    return _matmul(a, la, b, lb, levels)


def addmm(op, xs, lvs, levels, params):
    (c, a, b), (lc, la, lb) = xs, lvs
    if not all(isinstance(x, Tensor) for x in xs) or (_logical_ndim(a, la), _logical_ndim(b, lb)) != (2, 2):
        return NotImplemented
    if len({x._data.dtype for x in xs}) != 1:
        return NotImplemented
    mm = _matmul(a, la, b, lb, levels)
    if mm is NotImplemented:
        return NotImplemented
    beta, alpha = params.get("beta", 1.0), params.get("alpha", 1.0)
    mm_lv = levels if (la or lb) else ()
    if alpha != 1.0:
        mm = apply(OPS["mul"], (mm, alpha), {})
    if beta == 0.0:
        return lead(mm, mm_lv, levels, expand=True)
    if beta != 1.0:
        c = apply(OPS["mul"], (c, beta), {})
    return elementwise(OPS["add"], [mm, c], [mm_lv, lc], levels, {})


# -- losses with a reduction: elementwise, then reduced per sample -----------------------


def loss(op, xs, lvs, levels, params):
    reduction = params.get("reduction", op.defaults.get("reduction", "mean"))
    if reduction not in ("none", "mean", "sum"):
        return NotImplemented
    # (the input and target of a loss have the same shape: both given the whole batch)
    xs = [lead(x, lv, levels, expand=True) if isinstance(x, Tensor) else x for x, lv in zip(xs, lvs)]
    out = elementwise(op, xs, [levels if isinstance(x, Tensor) else () for x in xs], levels,
                      {**params, "reduction": "none"})
    if out is NotImplemented or reduction == "none":
        return out
    k = len(levels)
    n = out._data.ndim - k
    if n == 0:
        return out
    name = "mean_dim" if reduction == "mean" else "sum_dim"
    return apply(OPS[name], (out,), {"dim": tuple(range(k, k + n)), "keepdim": False})


def nll(op, xs, lvs, levels, params):
    """nll_loss of batched log-probabilities and a per-sample target (a parameter): the
    samples' rows as one (M, C) input, then each sample's reduction."""
    k = len(levels)
    x = xs[0]
    shape = x._data.shape
    n = len(shape) - k
    target = np.asarray(params["target"])
    if n not in (1, 2):
        return NotImplemented
    batch = shape[:k]
    classes = shape[-1]
    flat = apply(OPS["reshape"], (x,), {"shape": (-1, classes)})
    tiled = np.broadcast_to(target, batch + target.shape).reshape(-1)
    per = apply(op, (flat,), {**params, "target": tiled, "reduction": "none"})
    per = apply(OPS["reshape"], (per,), {"shape": batch + shape[k:-1]})
    reduction = params.get("reduction", "mean")
    if reduction == "none":
        return per
    total = apply(OPS["sum_dim"], (per,), {"dim": tuple(range(k, k + n - 1)), "keepdim": False}) if n == 2 else per
    if reduction == "sum":
        return total
    weight = params.get("weight")
    ignore = params.get("ignore_index", -100)
    valid = target != ignore
    w = np.ones(classes) if weight is None else np.asarray(weight, dtype=np.float64)
    denom = float(np.sum(np.where(valid, w[np.where(valid, target, 0)], 0.0)))
    return apply(OPS["div"], (total, denom), {})


def convolution(op, xs, lvs, levels, params):
    """conv with batched input and a weight and bias that are not: the batch folded into N."""
    x, w, b = xs
    lx, lw, lb = lvs
    if lw or lb or not lx:
        return NotImplemented
    k = len(levels)
    shape = x._data.shape
    folded = apply(OPS["reshape"], (x,), {"shape": (-1,) + shape[k + 1:]})
    out = apply(op, (folded, w, b), params)
    return apply(OPS["reshape"], (out,), {"shape": shape[:k + 1] + out._data.shape[1:]})


def layer_norm(op, xs, lvs, levels, params):
    if lvs[1] or lvs[2] or not lvs[0]:
        return NotImplemented
    return apply(op, tuple(xs), params)


# -- the table ---------------------------------------------------------------------------

_ELEMENTWISE_TOO = ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not", "celu",
                    "hardsigmoid", "hardswish", "mish", "selu", "div_scalar", "floor_divide",
                    "floor_divide_scalar", "rfloor_divide", "rremainder", "threshold")
_SHIFTED = ("amax", "amin", "cumsum", "cumprod", "glu", "softmax", "log_softmax", "logsumexp", "mean_dim",
            "sum_dim", "prod_dim", "nansum", "norm", "norm_dim", "std", "var", "flip", "select", "slice",
            "squeeze_dim", "squeeze_dims", "transpose", "transpose_result", "diagonal", "unbind", "split",
            "split_with_sizes", "index_select", "_matmul_squeeze")


def _install() -> None:
    for name, op in OPS.items():
        if op.tangent == POINTWISE and not any(p in _DIMS for p in op.params) and op.n_outputs == 1:
            RULES[name] = elementwise
    for name in _ELEMENTWISE_TOO:
        RULES[name] = elementwise
    # the ops whose result keeps its one batched input's bdim in PyTorch (its unary pointwise
    # rules, and comparisons with a number): recorded from PyTorch 2.13's prints
    KEEPS_BDIM.update(name for name, op in OPS.items() if op.tangent == POINTWISE and len(op.inputs) == 1
                      and name not in ("rpow", "logsigmoid", "masked_fill"))
    KEEPS_BDIM.update(("selu", "celu", "mish", "hardsigmoid", "clone", "copy", "_to_copy", "zero", "alias",
                       "logical_not", "eq", "ne", "lt", "le", "gt", "ge"))
    for name in ("clone", "contiguous", "alias", "zero", "copy", "_to_copy"):
        RULES[name] = same_shape
    for name in _SHIFTED:
        RULES[name] = shifted
    for name in ("mse_loss", "huber_loss", "smooth_l1_loss", "soft_margin_loss", "binary_cross_entropy",
                 "binary_cross_entropy_with_logits"):
        RULES[name] = loss
    for name in ("tril", "triu", "det", "inverse"):
        RULES[name] = last_two
    for name in _RANKS:
        RULES[name] = product
    RULES.update({
        "unsqueeze": unsqueezed, "stack": lambda *a: joined(*a, extra=1), "cat": joined, "argmax": argmax_like,
        "argmin": argmax_like, "permute": permute, "t": transpose_2d, "squeeze": squeeze_all,
        "reshape": reshaped, "_unsafe_view": reshaped, "expand": expanded, "repeat": repeated,
        "sum_to_size": summed_to_size, "sum": reduced_whole("sum_dim"), "mean": reduced_whole("mean_dim"),
        "prod": flattened_whole("prod_dim"), "max": flattened_whole("amax"), "min": flattened_whole("amin"),
        "gather": gathered, "index_add": index_added, "addmm": addmm, "nll_loss": nll,
        "convolution": convolution, "layer_norm": layer_norm,
    })


_install()   # imported on the first vmap (`batching.enter`), when every op is defined
