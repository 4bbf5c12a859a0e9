"""A forward-mode pass, step by step: `jacobian --mode forward --steps` and the forward walk
of the walk-through (`graph -o walk.html`).

The program is run again under a dual level of its own, its named inputs given their
tangents as they are assigned (as `jacobian --mode forward` runs it), and every tangent
`ops/dual.propagate` computes is recorded (`dual.TRACE`) with the op and the node that
made it. A step is one node of the output's backward graph, in the order the ops ran
(inputs first): the tangents that came in along its edges, and its tangent rule's
result. This is the tangents the engine computed, not a replay: a step shows what
`unpack_dual(...).tangent` of that op's result was.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._tensor import Tensor


@dataclass
class ForwardStep:
    """One node's step: `tangents_in` are (next node name or None, output_nr, tangent array
    or None, leaf variable or None) along its edges in next_functions order; `tangent` its
    output's tangent (a tuple for a node with several outputs); a leaf's step gives its seed."""

    node: str
    op: str | None
    rule: dict | None            # the op's tangent rule: {"kind", "formula"} (`gradcli ops`)
    source: tuple | None
    tangent: object
    tangents_in: list = field(default_factory=list)
    variable: str | None = None  # a leaf's name: its step is its tangent's seed
    fn: object = None            # the node itself (mapped onto the graph by the walk-through)


@dataclass
class ForwardPass:
    seeds: dict                  # input name -> the tangent it was given (an array)
    steps: list
    tangent: object              # the output's tangent (an array), None when nothing reached it
    output: Tensor = None        # the output of the run (its graph holds the steps' nodes)
    names: dict = None           # the run's named tensors


def forward_pass(run, name: str | None, seeds: dict, requires_grad=()) -> ForwardPass:
    """Run the program again with `seeds` (input name -> tangent array) given to its named
    inputs, and record the forward-mode pass that reaches the output `name`."""
    from ..lang.runs import tensor_output
    from ..ops import dual

    interp = run.interpreter
    level = dual.enter_level(graph=False)
    record: list = []   # (op, node, output_nr, tangent): each result's tangent when computed

    def trace(at, op, out):
        if at is not level:
            return
        for o in out if isinstance(out, tuple) else (out,):
            fn = o.grad_fn
            if fn is not None:
                record.append((op, fn, o._output_nr, level.get(o)))

    dual.NAMED_TANGENTS.update({k: (level, np.asarray(v)) for k, v in seeds.items()})
    dual.TRACE[0] = trace
    try:
        again = interp.program.run(interp.overrides, requires_grad=tuple(requires_grad),
                                   stdout=lambda line: None, limits=interp.limits, script=interp.script)
        dual.TRACE[0] = None
        _, out = tensor_output(again, name if name in again.values else None)
        steps = _steps(again, out, record, level)
        found = level.get(out)
        tangent = None if found is None else found._data
    finally:
        dual.TRACE[0] = None
        dual.NAMED_TANGENTS.clear()
        dual.exit_level(level)
    return ForwardPass(dict(seeds), steps, tangent, out, again.values)


def _reached(out: Tensor) -> tuple[list, set]:
    """The leaves' nodes (AccumulateGrad) of out's graph, in the order first reached, and
    the ids of all its nodes."""
    from .graphmodel import root_node

    root = root_node(out)
    seen, leaves, stack = {id(root): root}, [], [root]
    while stack:
        node = stack.pop()
        if getattr(node, "variable", None) is not None:
            leaves.append(node)
        for child in reversed(node.next_nodes):
            if child is not None and id(child) not in seen:
                seen[id(child)] = child
                stack.append(child)
    return leaves, set(seen)


def _steps(run, out: Tensor, record: list, level) -> list:
    from ..lang.runs import tensors
    from .optable import tangent_text

    names = {id(t): k for k, t in reversed(list(tensors(run, out).items()))}
    leaves, inside = _reached(out)
    order = {id(t): i for i, t in enumerate(tensors(run, out).values())}
    leaves.sort(key=lambda leaf: order.get(id(leaf.variable), len(order)))
    tangents: dict = {}   # (id(node), output_nr) -> tangent array, or None
    steps = []
    for leaf in leaves:
        t = level.get(leaf.variable)
        variable = names.get(id(leaf.variable), "?")
        tangents[(id(leaf), 0)] = None if t is None else t._data
        steps.append(ForwardStep(leaf.name(), None, None, None, tangents[(id(leaf), 0)], variable=variable,
                                 fn=leaf))
    by_node: dict = {}
    for op, fn, nr, t in record:
        if id(fn) not in inside:
            continue
        tangents[(id(fn), nr)] = None if t is None else t._data
        entry = by_node.get(id(fn))
        if entry is None:
            entry = by_node[id(fn)] = (op, fn, {})
            steps.append(entry)
        entry[2][nr] = tangents[(id(fn), nr)]
    done = steps[:len(leaves)]
    for op, fn, outs in steps[len(leaves):]:
        n = getattr(fn, "n_outputs", 1) or 1
        tangent = outs.get(0) if n == 1 else tuple(outs.get(k) for k in range(n))
        step = ForwardStep(fn.name(), op.name, tangent_text(op), getattr(fn, "source", None), tangent, fn=fn)
        for child, nr in zip(fn.next_nodes, fn.next_nrs):
            variable = getattr(child, "variable", None)
            step.tangents_in.append((None if child is None else child.name(), int(nr),
                                     None if child is None else tangents.get((id(child), int(nr))),
                                     None if variable is None else names.get(id(variable), "?")))
        done.append(step)
    return done


def seed_of(value, shape) -> np.ndarray:
    """A tangent seed: "ones", or a value of the input's shape."""
    if isinstance(value, str) and value == "ones":
        return np.ones(shape)
    return np.broadcast_to(np.asarray(value, dtype=float), shape).copy()


def jacobian_passes(run, name: str, wrt: list, requires_grad=()) -> list:
    """The passes of a forward-mode Jacobian, one per input element: (title, ForwardPass),
    the tangent e_j given to that input and zeros to the other inputs of `wrt`."""
    from ..lang.runs import lookup, tensor_output

    _, out = tensor_output(run, name if name in run.values else None)
    xs = lookup(run, wrt, "--wrt", out)
    total = sum(x._data.size for x in xs)
    passes = []
    for x_name, x in zip(wrt, xs):
        for j in range(x._data.size):
            seeds = {}
            for other, y in zip(wrt, xs):
                seeds[other] = np.zeros(y._data.shape)
            seeds[x_name].reshape(-1)[j] = 1.0
            where = f"[{', '.join(str(int(k)) for k in np.unravel_index(j, x._data.shape))}]" \
                if x._data.ndim else ""
            title = f"pass {len(passes) + 1} of {total} (column {x_name}{where})"
            passes.append((title, forward_pass(run, name, seeds, requires_grad)))
    return passes
