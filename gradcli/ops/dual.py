"""Forward-mode AD: dual levels, the tangent each tensor carries, and each op's tangent.

A dual level (`torch.autograd.forward_ad.dual_level`, one `torch.func.jvp`) maps
tensors to their tangents in a table of its own, keyed by the tensor's id and
dropped with the tensor (a weak reference): the Tensor has no slot for it, so a
run with no level pays nothing but `apply`'s one check of `ACTIVE[0]`.

When a level is active, `apply` hands every result to `propagate`, which asks
the op's tangent rule (`Op.tangent`, in the op table beside the backward rules)
for the result's tangent from the inputs' tangents. A rule is one of:

- POINTWISE: derived from the backward rules. For an elementwise op the Jacobian
  of each input is diagonal (after broadcasting the input), so J t = J^T t: the
  backward rule applied to the tangent broadcast to the output's shape.
- LINEAR: the op is linear in its tensor inputs together (reshape, sum, cat):
  J t is the op itself run on the tangents (zeros for an input without one).
- BILINEAR: the op is linear in each input alone (mm, dot): J t is the sum over
  the inputs of the op with that input replaced by its tangent.
- SYMMETRIC: the Jacobian is symmetric (softmax: diag(s) - s s^T), so J t = J^T t:
  the backward rule applied to the tangent, as for POINTWISE.
- TRANSPOSE: derived for any op from its backward rules: a backward rule is
  linear in the gradient g, so J t is the derivative of <rule(g), t> by g (the
  backward rule run on Tensors, then differentiated once more by g).
- a tuple of rules, one per input, `rule(F, t, <names>)` read like backward rules.

Levels nest (`jvp` of `jvp`): the tangent of level k is computed with the levels
from k on switched off, so that the tangent gets the outer levels' tangents
(tangents of tangents) and never its own (no perturbation confusion).
"""
from __future__ import annotations

import weakref

import numpy as np

from .._tensor import BATCH_CHECK, TANGENT_SUFFIX, Tensor, _grad_enabled, enable_grad, no_grad, shape_str

POINTWISE = "pointwise"
LINEAR = "linear"
BILINEAR = "bilinear"
SYMMETRIC = "symmetric"
TRANSPOSE = "transpose"

from .batching import ON as BATCHING   # noqa: E402  (vmap's batch levels: ops/batching.py)

from ..graph.nodes import _current_source as _source   # noqa: E402  (a traced step's place)
from ..limits import ELEMENTS_PER_WORK, TANGENT_WORK, budget as _budget   # noqa: E402

# (level, steps): each op's (name, source span, result, tangent) at that level, while
# `jacobian --mode forward --steps` runs the program (answers/queries.py)
TRACE = [None]
ACTIVE = [0]             # how many levels propagate tangents now: `apply` reads this, once
LEVELS: list = []        # the levels entered, outermost first
ENGINE_GRAD = [None]     # autograd.engine.grad, set by the engine (ops sit below autograd)
# set by registry.py and apply.py, which import this module (no import back, no cycle):
# the rules' namespaces, what a rule's parameter reads (`Reads`), and `apply`
RULES = {}


class Level:
    """One dual level: the tangents of the tensors made dual at it or computed from them."""

    __slots__ = ("index", "batch", "graph", "tangents", "results", "__weakref__")

    def __init__(self, index: int, batch: int = 0, graph: bool = True):
        self.index = index
        self.batch = batch   # a vmap's batch level (its size): marks batched tensors, no tangents
        # whether a tangent may be differentiated in reverse afterwards (a reverse transform
        # outside this level, or forward_ad, where a program may): else tangents are computed
        # without a graph even from inputs that require grad (those of an inner jacrev)
        self.graph = graph
        self.tangents = {}   # id(tensor) -> (weak reference to it, its tangent)
        self.results = {}    # id(node) -> (weak reference to it, tangent of its saved result)

    def get(self, t):
        entry = self.tangents.get(id(t))
        if entry is not None and entry[0]() is t:
            return entry[1]
        return None

    def set(self, t, tangent) -> None:
        _remember(self.tangents, t, tangent)

    def clear(self) -> None:
        self.tangents.clear()
        self.results.clear()


def _remember(table: dict, key_object, value) -> None:
    key = id(key_object)

    def gone(ref, key=key, table=table):
        entry = table.get(key)
        if entry is not None and entry[0] is ref:
            del table[key]

    table[key] = (weakref.ref(key_object, gone), value)


def enter_level(batch: int = 0, graph: bool = True) -> Level:
    level = Level(len(LEVELS), batch, graph)
    LEVELS.append(level)
    ACTIVE[0] = len(LEVELS)
    TANGENT_SUFFIX[0] = _tangent_suffix
    if batch:
        BATCH_CHECK[0] = check_not_batched
    return level


def _tangent_suffix(t, suffixes: list) -> None:
    """`tangent=...` as PyTorch prints a dual tensor: a 0-d tangent as a number."""
    duals = [level for level in LEVELS if not level.batch]
    tangent = duals[-1].get(t) if duals else None
    if tangent is not None:
        suffixes.append(f"tangent={float(tangent._data)!r}" if tangent._data.ndim == 0 else f"tangent={tangent!r}")


def exit_level(level: Level) -> None:
    """Leave `level` (the innermost): its tensors lose their tangents."""
    if not LEVELS or LEVELS[-1] is not level:
        from ..errors import AutogradError

        raise AutogradError("Trying to exit a forward AD level that was not the last one that was created. "
                            "This is not supported.")
    LEVELS.pop()
    level.clear()
    ACTIVE[0] = len(LEVELS)
    if not LEVELS:
        TANGENT_SUFFIX[0] = None
    if not any(other.batch for other in LEVELS):
        BATCH_CHECK[0] = None


def leave_levels(depth: int) -> None:
    """Exit the levels entered above `depth` (a program's run that left some open)."""
    while len(LEVELS) > depth:
        exit_level(LEVELS[-1])


def tangent_of(t, level: Level | None = None):
    """The tangent of `t` at `level` (the innermost by default), or None."""
    if level is None:
        if not LEVELS:
            return None
        level = LEVELS[-1]
    return level.get(t)


def detached(t: Tensor) -> Tensor:
    """`t.detach()` keeping its tangents: a transform's own detach (jacrev's fresh leaves, its
    results) is not the program's, and tangents of an enclosing jvp pass through it."""
    if BATCHING[0]:   # inside vmap: a batched tensor's tangents are its physical tensor's
        from . import batching

        found = batching.entry(t)
        if found is not None:
            with batching.off():
                return batching.wrap(detached(found[0]), found[1])
    d = t.detach()
    if ACTIVE[0]:
        for level in LEVELS[:ACTIVE[0]]:
            tangent = level.get(t)
            if tangent is not None:
                level.set(d, tangent)
    return d


def copy_tangents(source: Tensor, target: Tensor, drop: bool = False) -> None:
    """Give `target` the tangents `source` has at the active levels (with `drop`, remove
    those `source` has not: an in-place op's tensor takes its result's tangents)."""
    for level in LEVELS[:ACTIVE[0]]:
        tangent = level.get(source)
        if tangent is not None:
            level.set(target, tangent)
        elif drop and level.get(target) is not None:
            level.set(target, Tensor._make(np.zeros_like(target._data)))


# the tangents a program's dual level had when it exited (torch.autograd.forward_ad's levels):
# id(tensor or node) -> (weak reference to it, its tangent), for `graph --values`, which reads
# the graph after the run; an entry goes with its tensor or node
EXITED: dict = {}


def stash(level: Level) -> None:
    """Keep `level`'s tangents past its exit (they are dropped from the level itself)."""
    for table in (level.tangents, level.results):
        for key, (ref, tangent) in list(table.items()):
            owner = ref()
            if owner is not None:
                _remember(EXITED, owner, tangent)


def exited_tangent(t):
    """The tangent `t` (a tensor or a node, for its saved result) had when its level exited."""
    entry = EXITED.get(id(t))
    if entry is not None and entry[0]() is t:
        return entry[1]
    return None


NAMED_TANGENTS: dict = {}   # program name -> (level, tangent array): set by `jacobian --mode forward`


def give_named_tangent(name: str, t: Tensor):
    """A program's top-level tensor `name` just assigned: give it its tangent (a forward-mode
    Jacobian column: the program is re-run with one input direction); the tensor the program
    goes on with instead, or None."""
    entry = NAMED_TANGENTS[name]
    if len(entry) == 3:   # `hessian`, forward over reverse: batched tangents (its batch level)
        return _batched_dual(t, *entry)
    level, tangent = entry
    if tangent.shape == t._data.shape and t._data.dtype.kind in "fc":
        level.set(t, Tensor._make(tangent.astype(t._data.dtype, copy=False)))
    return None


def _batched_dual(t: Tensor, level: Level, rows, batch):
    """`t` expanded to the batch of `batch` (a leaf), each sample's tangent one row of `rows`:
    the batched tensor the program goes on with (answers/forward_hessian.py)."""
    from . import batching

    if rows.shape[1:] != t._data.shape or t._data.dtype.kind not in "fc" or batching.is_batched(t):
        return None
    data = np.ascontiguousarray(np.broadcast_to(t._data, (batch.size,) + t._data.shape))
    p = Tensor._make(data, requires_grad=True)
    level.set(p, Tensor._make(rows.astype(t._data.dtype, copy=False)))
    return batching.wrap(p, (batch,))


def has_tangent(*values) -> bool:
    """Whether a tensor among `values` has a tangent at an active level."""
    for level in LEVELS[:ACTIVE[0]]:
        for v in values:
            if isinstance(v, Tensor) and level.get(v) is not None:
                return True
    return False


def set_tangent(t, tangent, level: Level) -> None:
    level.set(t, tangent)


def result_tangents(node, wrapped: Tensor) -> Tensor:
    """A node's saved result, wrapped for a backward under create_graph, given the tangents
    its output had (forward over reverse: a rule reading `result` differentiates it too)."""
    for level in LEVELS[:ACTIVE[0]]:
        entry = level.results.get(id(node))
        if entry is not None and entry[0]() is node:
            level.set(wrapped, entry[1])
    return wrapped


# -- the tangent of an op's result ---------------------------------------------------


# a level whose every leaf that requires grad gets ones as its tangent when an op first reads
# it (the walk-through's forward walk: the inputs the backward walk fills the .grad of)
SEED_LEAVES = [None]


def _seed_leaves(level: Level, inputs) -> None:
    for t in inputs:
        if isinstance(t, Tensor) and t.requires_grad and t.grad_fn is None and level.get(t) is None \
                and t._data.dtype.kind in "fc":
            level.set(t, Tensor._make(np.ones_like(t._data)))


def propagate(op, inputs: tuple, params, out):
    """Give `out` (an op's result, or its tuple of results) its tangent at every active level."""
    depth = ACTIVE[0]
    for k in range(depth):
        level = LEVELS[k]
        if SEED_LEAVES[0] is level:
            _seed_leaves(level, inputs)
        ts = None
        for i, t in enumerate(inputs):
            if isinstance(t, Tensor):
                tangent = level.get(t)
                if tangent is not None:
                    if ts is None:
                        ts = [None] * len(inputs)
                    ts[i] = tangent
        if ts is None:
            continue
        if level.batch:   # a vmap's level: the result depends on the batch
            for o in (out if isinstance(out, tuple) else (out,)):
                level.set(o, True)
            continue
        if op.tangent is None:   # not differentiable (a comparison, argmax): no tangent
            continue
        ACTIVE[0] = k   # this level and the inner ones off while its tangent is computed
        try:
            tangent = op_tangent(op, inputs, params or {}, out, ts, k == 0, level.graph)
        finally:
            ACTIVE[0] = depth
        _attach(level, out, tangent)
        if TRACE[0] is not None and TRACE[0][0] is level:   # `jacobian --mode forward --steps`
            TRACE[0][1].append((op.name, _source[0], out, tangent))
    return out


def _attach(level: Level, out, tangent) -> None:
    if isinstance(out, tuple):
        for o, t in zip(out, tangent):
            if t is not None and o._data.dtype.kind in "fc":
                _attach(level, o, t)
        return
    if tangent is None or out._data.dtype.kind not in "fc":
        return
    if not isinstance(tangent, Tensor):
        tangent = Tensor._make(np.asarray(tangent))
    if tangent._data.dtype != out._data.dtype:
        tangent = RULES["TENSORS"].to(tangent, _dtype_of(out)) if tangent.requires_grad else \
            Tensor._make(tangent._data.astype(out._data.dtype))
    if tangent._data.shape != out._data.shape:
        tangent = _expand(tangent, out._data.shape, False)
    level.set(out, tangent)
    node = out.grad_fn
    if node is not None and getattr(node, "result", None) is not None and node.n_outputs == 1:
        _remember(level.results, node, tangent)


def _dtype_of(t):
    from .. import dtypes

    return dtypes.BY_NUMPY[t._data.dtype]


def _needs_graph(inputs, ts) -> bool:
    """Whether a tangent must be computed on Tensors (a graph of it wanted), not on arrays."""
    if not _grad_enabled[0]:
        return False
    for t in inputs:
        if isinstance(t, Tensor) and t.requires_grad:
            return True
    for t in ts:
        if t is not None and t.requires_grad:
            return True
    return False


def op_tangent(op, inputs, params, out, ts, outermost: bool, graph: bool = True):
    """The tangent of `op`'s result from the inputs' tangents `ts` (None: a zero tangent)."""
    graph = graph and _needs_graph(inputs, ts)
    if outermost or graph:
        if not graph:
            _charge_on_arrays(op, inputs, params, ts)
        return _op_tangent(op, inputs, params, out, ts, outermost, graph)
    with no_grad():   # on Tensors for the outer levels' tangents, with no graph of its own
        return _op_tangent(op, inputs, params, out, ts, outermost, graph)


def _charge_on_arrays(op, inputs, params, ts) -> None:
    """Charge a tangent computed on arrays (the outermost level's, no graph of it wanted)
    before it runs: its rules run numpy directly, not through `apply`, so nothing else
    charges them. Each input's part costs about the op's forward again: its elements, as
    `apply` charged them, and TANGENT_WORK for its Python (a linear op's tangent is one
    forward over the tangents, whatever their number)."""
    parts = 1
    if op.tangent != LINEAR:
        parts = 0
        for t in ts:
            if t is not None:
                parts += 1
    cost = op.cost
    if cost is None:
        count = 0
        for x in inputs:
            count += x._data.size if isinstance(x, Tensor) else 1
        count *= op.weight
    else:
        try:
            count = cost(*[x._data if isinstance(x, Tensor) else x for x in inputs], **params)
        except Exception:   # operands its cost function does not read as the forward got them
            count = 0
    budget = _budget
    budget.work += parts * (TANGENT_WORK + count // ELEMENTS_PER_WORK)
    if budget.work > budget.max_work:
        raise budget.exhausted()


def _op_tangent(op, inputs, params, out, ts, outermost: bool, graph: bool):
    apply, ARRAYS, TENSORS = RULES["apply"], RULES["ARRAYS"], RULES["TENSORS"]
    kind = op.tangent
    if kind == TRANSPOSE:
        return _transposed(op, inputs, params, out, ts, outermost, graph)
    arrays = outermost and not graph
    F = ARRAYS if arrays else TENSORS
    if arrays:
        xs = [t._data if isinstance(t, Tensor) else t for t in inputs]
        ts = [None if t is None else t._data for t in ts]
        result = out._data if isinstance(out, Tensor) else tuple(o._data for o in out)
    else:
        xs = list(inputs)
        result = out
    if kind == LINEAR:
        args = [x if t is None and not isinstance(given, Tensor) else t if t is not None
                else np.zeros_like(x) if arrays else _zeros(x) for x, t, given in zip(xs, ts, inputs)]
        return op.forward(*args, **params) if arrays else apply(op, tuple(args), params)
    total = None
    for i, t in enumerate(ts):
        if t is None:
            continue
        if kind == BILINEAR:
            args = list(xs)
            args[i] = t
            part = op.forward(*args, **params) if arrays else apply(op, tuple(args), params)
        else:
            derived = kind == POINTWISE or kind == SYMMETRIC
            rule = (op.rules if derived else kind)[i]
            if rule is None:
                continue
            plan = op.plans[i] if derived else op.tangent_plans[i]
            if derived:
                shape = _shape(result)
                if np.shape(t) != shape:
                    t = _expand(t, shape, arrays)
            part = rule(F, t, *_arguments(op, plan, xs, params, result))
        total = part if total is None else _add(total, part)
    return total


def _zeros(x: Tensor) -> Tensor:
    return Tensor._make(np.zeros_like(x._data))


def _shape(value):
    return value._data.shape if isinstance(value, Tensor) else np.shape(value)


def _expand(t, shape, arrays: bool):
    if arrays:
        return np.broadcast_to(t, shape)
    return RULES["TENSORS"].expand(t, shape)


def _add(a, b):
    if isinstance(a, tuple):
        return tuple(x if y is None else y if x is None else x + y for x, y in zip(a, b))
    return a + b


def _arguments(op, plan, xs, params, result) -> list:
    INPUT, RESULT, PARAM = RULES["INPUT"], RULES["RESULT"], RULES["PARAM"]
    args = []
    for kind, key in plan or ():
        if kind is INPUT:
            args.append(xs[key])
        elif kind is RESULT:
            args.append(result)
        elif kind is PARAM:
            args.append(params[key] if key in params else op.defaults.get(key))
        else:
            args.append(_shape(xs[key]))
    return args


def _transposed(op, inputs, params, out, ts, outermost: bool, graph: bool):
    """J t from the backward rules: J^T g is linear in g, so J t = d<J^T g, t>/dg."""
    TENSORS = RULES["TENSORS"]
    grad = ENGINE_GRAD[0]
    outs = out if isinstance(out, tuple) else (out,)
    # a graph of the tangent is kept when it is differentiated later, or when it has
    # tangents at outer levels (the backward rules then run on Tensors, which carry them)
    keep = not outermost or graph
    with enable_grad():
        seeds = [Tensor._make(np.zeros_like(o._data), requires_grad=o._data.dtype.kind in "fc")
                 for o in outs]
        g = seeds if isinstance(out, tuple) else seeds[0]
        result = out
        if not keep and isinstance(out, Tensor):
            result = Tensor._make(out._data)   # not the graph behind it: the engine would walk it
        xs = list(inputs)
        if not keep:   # nor the inputs' graphs: the engine would free what they saved (a later backward fails)
            xs = [Tensor._make(x._data) if isinstance(x, Tensor) and x.requires_grad else x for x in xs]
        vjps, cotangents = [], []
        for i, t in enumerate(ts):
            if t is None or op.rules[i] is None:
                continue
            gi = op.rules[i](TENSORS, g, *_arguments(op, op.plans[i], xs, params, result))
            shape = _shape(xs[i])
            if gi._data.shape != shape:
                gi = TENSORS.sum_to_size(gi, shape)
            if gi.requires_grad:
                vjps.append(gi)
                cotangents.append(t)
        trainable = [s for s in seeds if s.requires_grad]
        if not vjps:
            parts = (None,) * len(trainable)
        else:
            parts = grad(vjps, trainable, cotangents, retain_graph=keep, create_graph=keep, allow_unused=True)
    parts = iter(parts)
    tangents = []
    for s in seeds:
        part = next(parts) if s.requires_grad else None
        if part is None and s.requires_grad:
            part = Tensor._make(np.zeros_like(s._data))
        tangents.append(part if keep or part is None else part.detach())
    return tuple(tangents) if isinstance(out, tuple) else tangents[0]


# -- vmap's refusals (autograd/vmap.py), on tensors its batch levels marked -------------


def check_not_batched(t: Tensor, what: str) -> None:
    """PyTorch's refusals inside vmap: `.item()` or a truth value of a batched tensor,
    `.requires_grad_()` of any tensor."""
    if what == "requires_grad_":
        from . import batching

        return batching.check_tensor(t, what)
    if what not in ("item", "bool"):
        return None
    for level in LEVELS[:ACTIVE[0]]:
        if level.batch and level.get(t) is not None:
            from ..errors import AutogradError

            if what == "item":
                raise AutogradError("vmap: It looks like you're calling .item() on a Tensor. We don't support "
                                    "vmap over calling .item() on a Tensor, please try to rewrite what you're "
                                    "doing with other operations. If error is occurring somewhere inside "
                                    "PyTorch internals, please file a bug report.")
            raise AutogradError("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
                                "control flow. We don't support that yet, please file an issue at "
                                "https://github.com/pytorch/pytorch/issues .")


def check_inplace(self: Tensor, args) -> None:
    """An in-place op writing a batched value into an unbatched tensor: PyTorch's shape error."""
    for level in LEVELS[:ACTIVE[0]]:
        if level.batch and level.get(self) is None and any(
                isinstance(a, Tensor) and level.get(a) is not None for a in args):
            from ..errors import ShapeError

            raise ShapeError(f"output with shape {shape_str(self._data.shape)} doesn't match the broadcast "
                                f"shape {shape_str((level.batch,) + self._data.shape)}")
