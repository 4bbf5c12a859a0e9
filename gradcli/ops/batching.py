"""vmap's batched tensors: the batch levels, and running an op on a batch at once.

A batched tensor is what a program inside `vmap` sees: a real Tensor whose
`_data` is a view of sample 0 (so every read of its shape, dtype or dims is the
per-sample one, as PyTorch's BatchedTensor shows its logical shape), backed by
a *physical* Tensor that holds the whole batch, one leading dim per batch level
it belongs to, outermost level first. The pairing lives in a side table keyed
by the batched tensor (dropped with it), so a run with no vmap pays nothing but
`apply`'s one check of `ON[0]`.

When an op gets a batched input, `apply` hands it to `batched_apply`: the
inputs are replaced by their physical tensors, the op's batching rule
(batching_rules.py) runs ordinary ops on those (so autograd records a graph of
physical tensors, and forward mode tangents of physical tensors: both are
plain computations on arrays with batch dims in front), and the physical result
is wrapped again. An op with no rule is run per sample and stacked (the loop
fallback), which gives the same answer.

Transforms meet vmap at their boundaries only: `grad`/`jacrev`/`jvp` inside a
vmap run on physical tensors (the differentiated arguments expanded to the
whole batch, so that each sample's gradient is its own slice), see
`leaf`, `physical_grad`, `dual_pair`.
"""
from __future__ import annotations

import weakref
from types import SimpleNamespace

import numpy as np

from .._tensor import Tensor

ON = [0]            # 1 while a batch level is active: `apply` reads this, once
LEVELS: list = []   # the active batch levels, outermost first
_TABLE: dict = {}   # id(batched tensor) -> (weak reference to it, physical tensor, its levels, bdims)
# bdims: where PyTorch's BatchedTensor would hold each level's batch dim (shown by print; the
# physical tensor here has them in front): in_dims for an argument, kept by the ops PyTorch's
# rules keep it for (KEEPS_BDIM), else 0
NOT_BATCHED = object()
GRAD_AT: list = []  # len(LEVELS) when each grad/vjp/jacrev running inside vmap began, innermost last
RULES: dict = {}    # op name -> rule(op, xs, lvs, levels, params): set by batching_rules.py
# what this module runs, set by ops/__init__.py (apply, the op table, dual and views import
# this module: no import back, no cycle); USES.load_rules imports batching_rules.py, which
# fills RULES and KEEPS_BDIM, on the first `enter` (a run with no vmap never loads it)
USES = SimpleNamespace()


class BatchLevel:
    """One vmap: the size of its batch dimension."""

    __slots__ = ("size", "index", "__weakref__")

    def __init__(self, size: int, index: int):
        self.size = size
        self.index = index

    def __repr__(self) -> str:
        return f"BatchLevel({self.index}, size={self.size})"


def enter(size: int) -> BatchLevel:
    if not RULES:
        USES.load_rules()
    level = BatchLevel(size, len(LEVELS))
    LEVELS.append(level)
    ON[0] = 1
    from .._tensor import BATCH_CHECK

    BATCH_CHECK[0] = check_tensor
    return level


def exit(level: BatchLevel) -> None:
    if level in LEVELS:
        del LEVELS[LEVELS.index(level):]
    ON[0] = 1 if LEVELS else 0
    if not LEVELS:
        from .._tensor import BATCH_CHECK
        BATCH_CHECK[0] = USES.dual.check_not_batched if any(lv.batch for lv in USES.dual.LEVELS) else None


class off:
    """`with off():` ops run on physical tensors (no batch dispatch)."""

    __slots__ = ("_prev",)

    def __enter__(self):
        self._prev = ON[0]
        ON[0] = 0

    def __exit__(self, *exc):
        ON[0] = self._prev
        return False


# -- the batched tensor and its physical one ---------------------------------------------


def entry(t):
    """(physical tensor, levels) of a batched tensor `t` at active levels, or None."""
    e = _TABLE.get(id(t))
    if e is not None and e[0]() is t:
        return e[1], e[2]
    return None


def bdims(t) -> tuple:
    """The bdims of batched `t` (see _TABLE), or ()."""
    e = _TABLE.get(id(t))
    return e[3] if e is not None and e[0]() is t else ()


def unwrap(t):
    """(physical tensor, levels): a tensor that is not batched is its own, with no levels."""
    e = _TABLE.get(id(t))
    if e is not None and e[0]() is t:
        return e[1], e[2]
    return t, ()


def is_batched(t) -> bool:
    return isinstance(t, Tensor) and entry(t) is not None


def wrap(p: Tensor, levels: tuple, bdims: tuple = None) -> Tensor:
    """The batched tensor a program sees for physical `p` batched at `levels` (none: `p`)."""
    if not levels:
        return p
    data = p._data
    k = len(levels)
    if all(data.shape[:k]):
        view = data[(0,) * k + (Ellipsis,)]
    else:
        view = np.zeros(data.shape[k:], dtype=data.dtype)
    if tracked():
        t = Tensor._make(view, p.grad_fn, p.requires_grad, p._output_nr)
    else:
        t = Tensor._make(view)
    key = id(t)

    def gone(ref, key=key):
        e = _TABLE.get(key)
        if e is not None and e[0] is ref:
            del _TABLE[key]

    _TABLE[key] = (weakref.ref(t, gone), p, levels, bdims or (0,) * len(levels))
    return t


def rewrap(t: Tensor) -> Tensor:
    """A batched `t` wrapped again at the present transform (see `tracked`)."""
    e = entry(t)
    return t if e is None else wrap(e[0], e[1], bdims(t))


def rebind(t: Tensor, p: Tensor, levels: tuple) -> None:
    """Make batched `t` stand for physical `p` (an in-place op gave it a new value)."""
    data = p._data
    k = len(levels)
    t._data = data[(0,) * k + (Ellipsis,)] if all(data.shape[:k]) else np.zeros(data.shape[k:], data.dtype)
    on = tracked()
    t.grad_fn = p.grad_fn if on else None
    t.requires_grad = p.requires_grad if on else False
    t._output_nr = p._output_nr if on else 0
    ref, _, _, bdims = _TABLE[id(t)]
    _TABLE[id(t)] = (ref, p, levels, bdims)


def tracked() -> bool:
    """Whether the innermost transform is a grad (vmap(grad(f))): then a batched tensor shows
    its physical tensor's requires_grad and grad_fn; under a vmap it shows none, as PyTorch's
    BatchedTensor has no autograd of its own (autograd.grad of it: 'element 0 of tensors does
    not require grad')."""
    return bool(GRAD_AT) and GRAD_AT[-1] == len(LEVELS)


class grad_inside:
    """`with grad_inside():` a grad/vjp/jacrev's function runs inside vmap (see `tracked`)."""

    __slots__ = ()

    def __enter__(self):
        GRAD_AT.append(len(LEVELS))

    def __exit__(self, *exc):
        GRAD_AT.pop()
        return False


def requires_grad(t) -> bool:
    """`t.requires_grad` of the physical tensor behind a batched one (transforms read this)."""
    return unwrap(t)[0].requires_grad


def union(lvs) -> tuple:
    """The levels of several inputs together, outermost first."""
    found = set()
    for lv in lvs:
        found.update(lv)
    return tuple(sorted(found, key=lambda level: level.index))


def lead(x: Tensor, lv: tuple, levels: tuple, expand: bool = False) -> Tensor:
    """Physical `x` (batched at `lv`) with one leading dim per level of `levels`: size 1 where it
    is not batched (or the level's size, with `expand`)."""
    if lv == levels:
        return x
    shape = x._data.shape
    rest = shape[len(lv):]
    batch = tuple(shape[lv.index(level)] if level in lv else 1 for level in levels)
    if batch + rest != shape:
        x = USES.apply(USES.OPS["reshape"], (x,), {"shape": batch + rest})
    if expand:
        full = tuple(level.size for level in levels) + rest
        if full != batch + rest:
            x = USES.apply(USES.OPS["expand"], (x,), {"size": full})
    return x


# -- running an op on batched inputs ------------------------------------------------------


def batched_apply(op, inputs: tuple, params):
    """`apply` of an op one of whose inputs may be batched: NOT_BATCHED if none is."""
    xs = lvs = None
    kept = None
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor):
            e = _TABLE.get(id(t))
            if e is not None and e[0]() is t:
                if xs is None:
                    xs = list(inputs)
                    lvs = [()] * len(inputs)
                    kept = e[3]
                else:
                    kept = None
                xs[i] = e[1]
                lvs[i] = e[2]
    if xs is None:
        return NOT_BATCHED
    levels = union(lvs)
    ON[0] = 0
    try:
        out = run(op, xs, lvs, levels, params or {})
    finally:
        ON[0] = 1
    if isinstance(out, (tuple, list)):
        return tuple(wrap(o, levels) for o in out)
    if kept is not None and op.name in KEEPS_BDIM and sum(isinstance(t, Tensor) for t in inputs) == 1:
        # (with another tensor, PyTorch's binary rules move the batch dim to 0)
        return wrap(out, levels, kept)
    return wrap(out, levels)


KEEPS_BDIM: set = set()   # ops whose result keeps the input's bdims (set by batching_rules.py)


def run(op, xs, lvs, levels, params):
    """The op on physical inputs: its rule, else the loop over the outermost level."""
    rule = RULES.get(op.name)
    if rule is not None:
        out = rule(op, xs, lvs, levels, params)
        if out is not NotImplemented:
            return out
    return loop(op, xs, lvs, levels, params)


def loop(op, xs, lvs, levels, params):
    """The loop-and-stack fallback: the op per sample of the outermost level, stacked."""
    first, rest = levels[0], levels[1:]
    select = USES.OPS["select"]
    outs = []
    for b in range(first.size):
        sub, sub_lvs = [], []
        for x, lv in zip(xs, lvs):
            if lv and lv[0] is first:
                sub.append(USES.apply(select, (x,), {"dim": 0, "index": b}))
                sub_lvs.append(lv[1:])
            else:
                sub.append(x)
                sub_lvs.append(lv)
        outs.append(run(op, sub, sub_lvs, rest, params) if rest else USES.apply(op, tuple(sub), params))
    if not outs:
        raise _error("vmap: a batch of size 0")
    stack = USES.FUNCTIONS["stack"]
    if isinstance(outs[0], (tuple, list)):
        return tuple(stack([o[k] for o in outs], 0) for k in range(len(outs[0])))
    return stack(outs, 0)


def _error(message: str):
    from ..errors import AutogradError

    return AutogradError(message)


# -- whole functions that read a tensor's values (indices, targets, masks) ---------------


def per_sample(fn, args: tuple, kwargs: dict):
    """fn(*args, **kwargs) for a function that reads its arguments' values (an index tensor, a
    target): run per sample of the outermost level and stacked, batched at the levels used."""
    found = []
    _collect(args, found)
    _collect(tuple(kwargs.values()), found)
    levels = union([lv for _, lv in found])
    if not levels:
        return fn(*args, **kwargs)
    first = levels[0]
    results = []
    for b in range(first.size):
        results.append(fn(*_select(args, first, b), **dict(zip(kwargs, _select(tuple(kwargs.values()), first, b)))))
    return _stack_results(results, first, USES.FUNCTIONS["stack"])


def _collect(value, found: list) -> None:
    if isinstance(value, Tensor):
        e = entry(value)
        if e is not None:
            found.append(e)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _collect(v, found)
    elif isinstance(value, dict):
        for v in value.values():
            _collect(v, found)


def _select(value, level, b):
    """`value` with every tensor batched at `level` replaced by its sample b (batched at the
    other levels it had)."""
    if isinstance(value, Tensor):
        e = entry(value)
        if e is None or level not in e[1]:
            return value
        p, lv = e
        with off():
            piece = USES.apply(USES.OPS["select"], (p,), {"dim": lv.index(level), "index": b})
        return wrap(piece, tuple(x for x in lv if x is not level))
    if isinstance(value, tuple):
        return tuple(_select(v, level, b) for v in value)
    if isinstance(value, list):
        return [_select(v, level, b) for v in value]
    if isinstance(value, dict):
        return {k: _select(v, level, b) for k, v in value.items()}
    return value


def _stack_results(results, level, stack):
    """Per-sample results stacked into tensors batched at `level` (and the levels they have)."""
    first = results[0]
    if isinstance(first, (tuple, list)):
        items = [_stack_results([r[k] for r in results], level, stack) for k in range(len(first))]
        kind = type(first)
        return kind._make(items) if hasattr(kind, "_make") else kind(items)   # (max's named pair)
    if not isinstance(first, Tensor):
        return first
    pieces, lvs = [], []
    for r in results:
        p, lv = unwrap(r)
        pieces.append(p)
        lvs.append(lv)
    inner = union(lvs)
    with off():
        pieces = [lead(p, lv, inner, expand=True) for p, lv in zip(pieces, lvs)]
        outer = tuple(x for x in inner if x.index < level.index)
        # the new level's dim goes after the outer levels' dims, before the inner ones'
        stacked = stack(pieces, len(outer))
    return wrap(stacked, union([inner, (level,)]))


def _any_batched(args, kwargs) -> bool:
    found: list = []
    _collect(args, found)
    if not found and kwargs:
        _collect(tuple(kwargs.values()), found)
    return bool(found)


# -- PyTorch's refusals, and the tensor methods that do not go through an op -------------


def check_tensor(t: Tensor, what: str):
    """`.item()`, a truth value, `.tolist()`, `.numpy()` of a batched tensor: PyTorch's errors;
    `.detach()`: the batched detached tensor (None when `t` is not batched)."""
    if what in ("backward", "requires_grad_"):
        if what == "requires_grad_" and (LEVELS or any(level.batch for level in USES.dual.LEVELS)):
            from ..errors import AutogradError

            raise AutogradError("You are attempting to call Tensor.requires_grad_() (or perhaps using "
                                "torch.autograd.functional.* APIs) inside of a function being transformed by a "
                                "functorch transform. This is unsupported, please attempt to use the functorch "
                                "transforms (e.g. grad, vjp, jacrev, jacfwd, hessian) or call requires_grad_() "
                                "outside of a function being transformed instead.")
        if what == "backward" and LEVELS:
            from ..errors import AutogradError

            raise AutogradError("backward() called inside a functorch transform. This is not supported, please "
                                "use functorch.grad or functorch.vjp instead or call backward() outside of "
                                "functorch transforms.")
        return None
    e = entry(t)
    if e is None:
        if any(level.batch for level in USES.dual.LEVELS):
            USES.dual.check_not_batched(t, what)
        return None
    if what == "detach":
        return wrap(e[0].detach(), e[1], bdims(t))
    if what == "repr":
        return _batched_repr(e[0], e[1], bdims(t))
    from ..errors import AutogradError

    if what == "item":
        raise AutogradError("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap "
                            "over calling .item() on a Tensor, please try to rewrite what you're doing with "
                            "other operations. If error is occurring somewhere inside PyTorch internals, "
                            "please file a bug report.")
    if what in ("tolist", "numpy"):
        raise AutogradError(f"vmap: It looks like you're calling .{what}() on a Tensor inside vmap; a batched "
                            "tensor has no per-sample values to give out")
    raise AutogradError("vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
                        "flow. We don't support that yet, please file an issue at "
                        "https://github.com/pytorch/pytorch/issues .")


def _batched_repr(p: Tensor, levels: tuple, dims: tuple) -> str:
    """PyTorch's `BatchedTensor(lvl=L, bdim=B, value=...)`, one per level, innermost outside;
    the value with each level's batch dim where PyTorch's would hold it (the physical tensor
    here has them in front)."""
    k = len(levels)
    order = list(range(k, p._data.ndim))   # the per-sample dims, then each level's put in
    for i in range(k - 1, -1, -1):
        order.insert(dims[i], i)
    value = p
    if order != list(range(p._data.ndim)):
        with off():
            value = USES.apply(USES.OPS["permute"], (p,), {"dims": tuple(order)})
    return _nested_repr(value, levels, dims)


def _nested_repr(value: Tensor, levels: tuple, dims: tuple) -> str:
    if not levels:
        return repr(value)
    inner = _nested_repr(value, levels[:-1], dims[:-1])
    body = "\n".join("    " + line if line else line for line in inner.split("\n"))
    return f"BatchedTensor(lvl={levels[-1].index + 1}, bdim={dims[-1]}, value=\n{body}\n)"


def inplace(self: Tensor, fn, args, kwargs):
    """An in-place op inside vmap: NotImplemented when nothing is batched; PyTorch's error when
    a batched value is written into a tensor that is not; else the batched result written into
    the physical tensor (so views and the graph follow, as for any in-place op)."""
    e = entry(self)
    found: list = []
    _collect(args, found)
    if e is None and not found:
        return NotImplemented
    from .._tensor import shape_str
    from ..errors import ShapeError

    lv = e[1] if e is not None else ()
    levels = union([lv] + [x[1] for x in found])
    if levels != lv:
        raise ShapeError(f"output with shape {shape_str(self._data.shape)} doesn't match the broadcast shape "
                         f"{shape_str(tuple(level.size for level in levels) + self._data.shape)}")
    result = fn(self, *args, **kwargs)   # batched, out of place
    p_result, r_lv = unwrap(result)
    with off():
        p_result = lead(p_result, r_lv, lv, expand=True)
        physical = e[0]
        USES.inplace(physical, lambda old: p_result)
    rebind(self, physical, lv)
    return self


# -- the transforms' boundaries ------------------------------------------------------------


def all_levels() -> tuple:
    return tuple(LEVELS)


def expanded(t: Tensor, levels: tuple) -> Tensor:
    """Physical `t` batched at every one of `levels` (its graph kept: an op, `expand`)."""
    p, lv = unwrap(t)
    with off():
        return lead(p, lv, levels, expand=True)


def leaf(t: Tensor) -> Tensor:
    """A differentiated argument of grad/jacrev inside vmap: batched at every active level, so
    that each sample's gradient is its own slice of the physical gradient (the tangents it
    has are kept, expanded alike)."""
    from .._tensor import no_grad

    levels = all_levels()
    p, lv = unwrap(t)
    if p.requires_grad:   # an enclosing transform differentiates through it: an op
        with off():
            q = lead(p, lv, levels, expand=True)
        if q is p:
            q = _alias(p)
        return wrap(q, levels)
    with off(), no_grad():
        data = lead(Tensor._make(p._data), lv, levels, expand=True)._data
    q = Tensor._make(np.array(data), requires_grad=True)
    for level in USES.dual.LEVELS[:USES.dual.ACTIVE[0]]:
        tangent = level.get(p)
        if tangent is not None:
            with off():
                level.set(q, lead(tangent, lv, levels, expand=True))
    return wrap(q, levels)


def _alias(p: Tensor) -> Tensor:
    with off():
        return USES.apply(USES.OPS["alias"], (p,), {})


def physical_grad(outputs, inputs, grad_outputs, **kwargs):
    """autograd.grad inside vmap, on physical tensors: `inputs` are `leaf`s (batched at every
    active level); an output not batched at all of them does not depend on them. The
    gradients come back batched at every level."""
    grad = USES.dual.ENGINE_GRAD[0]   # autograd.engine.grad (ops sit below autograd)
    levels = all_levels()
    if not any(unwrap(t)[1] for t in list(outputs) + list(inputs)):
        return _unbatched_graph_grad(grad, outputs, inputs, grad_outputs, kwargs)
    outs, gos, keep = [], [], []
    for k, (o, g) in enumerate(zip(outputs, grad_outputs)):
        p, lv = unwrap(o)
        if lv != levels or not p.requires_grad:
            continue
        gp, glv = unwrap(g) if isinstance(g, Tensor) else (Tensor._make(np.ones_like(o._data)), ())
        with off():
            gp = lead(gp, glv, levels, expand=True)
            if gp._data.shape != p._data.shape:
                gp = Tensor._make(np.ascontiguousarray(np.broadcast_to(gp._data, p._data.shape)))
        outs.append(p)
        gos.append(gp)
        keep.append(k)
    ins = [unwrap(t)[0] for t in inputs]
    if not outs:
        return [None] * len(ins)
    with off():
        grads = grad(outs, ins, gos, allow_unused=True, **kwargs)
    return [None if g is None else wrap(g, levels) for g in grads]


def _unbatched_graph_grad(grad, outputs, inputs, grad_outputs, kwargs):
    """A vjp_fn made outside vmap, called inside it (`vmap(vjp_fn)(cotangents)`): the graph is
    not batched, the cotangents may be; one backward per sample of theirs, stacked."""
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not kept:
        return [None] * len(inputs)
    found = [unwrap(g) if isinstance(g, Tensor) else (None, ()) for _, g in kept]
    cot_levels = union([lv for _, lv in found])
    with off():
        cots = [gp if gp is None else lead(gp, lv, cot_levels, expand=True) for gp, lv in found]
    sizes = tuple(level.size for level in cot_levels)
    per_input = [[] for _ in inputs]
    kwargs = dict(kwargs, retain_graph=True)
    for index in np.ndindex(*sizes):
        with off():
            gos = [None if c is None else _sample_of(c, index) for c in cots]
            grads = grad([o for o, _ in kept], list(inputs), gos, allow_unused=True, **kwargs)
        for k, (g, x) in enumerate(zip(grads, inputs)):
            per_input[k].append(g if g is not None else Tensor._make(np.zeros_like(x._data)))
    out = []
    with off():
        for pieces, x in zip(per_input, inputs):
            stacked = USES.FUNCTIONS["stack"](pieces, 0)
            out.append(wrap(USES.FUNCTIONS["reshape"](stacked, sizes + x._data.shape), cot_levels))
    return out


def _sample_of(c: Tensor, index: tuple) -> Tensor:
    if not c.requires_grad:
        return Tensor._make(c._data[index])
    for i in index:   # a cotangent with a graph keeps it (select by select)
        c = USES.apply(USES.OPS["select"], (c,), {"dim": 0, "index": i})
    return c


def program_grad(grad, outputs, inputs, grad_outputs, **kwargs):
    """torch.autograd.grad called inside vmap(grad(f)) (`tracked`): `grad` on the physical
    tensors (each output's grad_output expanded to its batch), each gradient batched as its
    input is."""
    many = isinstance(outputs, (tuple, list))
    outputs = list(outputs) if many else [outputs]
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif not isinstance(grad_outputs, (tuple, list)):
        grad_outputs = [grad_outputs]
    inputs = list(inputs) if isinstance(inputs, (tuple, list)) else [inputs]
    outs, gos = [], []
    for o, g in zip(outputs, grad_outputs):
        if not isinstance(o, Tensor):
            outs.append(o)
            gos.append(g)
            continue
        p, lv = unwrap(o)
        if g is None and o._data.size == 1 and p.requires_grad:
            g = Tensor._make(np.ones_like(p._data))
        elif isinstance(g, Tensor):
            gp, glv = unwrap(g)
            with off():
                gp = lead(gp, glv, lv, expand=True)
            if gp._data.shape != p._data.shape and gp._data.size * int(np.prod(p._data.shape[:len(lv)])) \
                    == p._data.size:
                gp = USES.apply(USES.OPS["expand"], (gp,), {"size": p._data.shape})
            g = gp
        outs.append(p)
        gos.append(g)
    ins = [unwrap(t)[0] if isinstance(t, Tensor) else t for t in inputs]
    GRAD_AT.append(-1)   # the physical tensors' grad is not routed here again
    try:
        with off():
            grads = grad(outs, ins, gos, **kwargs)
    finally:
        GRAD_AT.pop()
    return tuple(g if g is None or not isinstance(t, Tensor) else wrap(g, unwrap(t)[1])
                 for g, t in zip(grads, inputs))


def one_hot_rows(output: Tensor, inputs, create_graph: bool = True) -> list:
    """jacrev's rows inside vmap: one backward per element of the per-sample output, seeded in
    every sample at once; out.shape + in.shape per input, batched at every level."""
    levels = all_levels()
    n = output._data.size
    rows = [[] for _ in inputs]
    for r in range(n):
        seed = np.zeros(n, dtype=output._data.dtype)
        seed[r] = 1.0
        grads = physical_grad([output], inputs, [Tensor._make(seed.reshape(output._data.shape))],
                              retain_graph=True, create_graph=create_graph)
        for k, (g, x) in enumerate(zip(grads, inputs)):
            rows[k].append(g if g is not None else wrap(Tensor._make(np.zeros(
                tuple(level.size for level in levels) + x._data.shape, dtype=x._data.dtype)), levels))
    out = []
    for k, x in enumerate(inputs):
        if n:
            stacked = USES.FUNCTIONS["stack"](rows[k], 0)
            out.append(USES.FUNCTIONS["reshape"](stacked, output._data.shape + x._data.shape))
        else:
            out.append(Tensor._make(np.zeros(output._data.shape + x._data.shape, dtype=output._data.dtype)))
    return out


def dual_pair(primal: Tensor, tangent: Tensor):
    """A jvp's primal and tangent inside vmap, both physical and batched at the same levels
    (the one not batched is expanded to the other's): (primal, tangent, levels)."""
    pp, plv = unwrap(primal)
    tp, tlv = unwrap(tangent)
    levels = union([plv, tlv])
    with off():
        pp = lead(pp, plv, levels, expand=True)
        tp = lead(tp, tlv, levels, expand=True)
    return pp, tp, levels
