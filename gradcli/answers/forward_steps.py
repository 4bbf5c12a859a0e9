"""A forward-mode pass over the output's graph, node by node: the walk-through's forward walk
(`graph -o walk.html`).

The program is run again under a dual level of its own, its named inputs given their
tangents as they are assigned (as `jacobian --mode forward` runs it) or every leaf that
requires grad given ones when first read (`dual.SEED_LEAVES`), and every tangent
`ops/dual.propagate` computes is recorded (`dual.TRACE`, the format `jacobian --steps`
reads too). A step is one node of the output's backward graph, in the order its op ran
(the inputs first): the tangent that came in along each of its edges, and its tangent
rule's result. These are the tangents the engine computed, not a replay: a step's tangent
is what `unpack_dual(result).tangent` gave inside the level.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._tensor import Tensor


@dataclass
class ForwardStep:
    """One node's step: `tangents_in` are (output_nr, tangent array or None) along its edges in
    next_functions order; `tangent` its output's tangent (a tuple for a node with several
    outputs); a leaf's step (`variable` set) gives its seed."""

    node: str
    op: str | None
    tangent: object
    tangents_in: list = field(default_factory=list)
    variable: str | None = None
    fn: object = None            # the node itself, of the re-run's graph


@dataclass
class ForwardPass:
    seeds: dict                  # input name -> the tangent it was given (an array)
    steps: list
    tangent: object              # the output's tangent (an array), None when nothing reached it
    output: Tensor = None        # the re-run's output (its graph holds the steps' nodes)


def forward_pass(run, name: str | None, seeds: dict | None = None) -> ForwardPass:
    """Run the program again with `seeds` (input name -> tangent array) given to its named
    inputs (None: ones to every leaf that requires grad, a module's parameters too, when an op
    first reads it), and record the forward-mode pass that reaches the output `name`."""
    from ..lang.runs import tensor_output
    from ..ops import dual

    interp = run.interpreter
    level = dual.enter_level(graph=False)
    record: list = []
    if seeds is None:
        dual.SEED_LEAVES[0] = level
    else:
        dual.NAMED_TANGENTS.update({k: (level, np.asarray(v)) for k, v in seeds.items()})
    dual.TRACE[0] = (level, record)
    try:
        again = interp.program.run(interp.overrides, requires_grad=tuple(getattr(interp, "requires_grad", ())),
                                   stdout=lambda line: None, limits=interp.limits, script=interp.script)
        dual.TRACE[0] = dual.SEED_LEAVES[0] = None
        _, out = tensor_output(again, name if name in again.values else None)
        steps = _steps(again, out, record, level)
        found = level.get(out)
        tangent = None if found is None else found._data
    finally:
        dual.TRACE[0] = dual.SEED_LEAVES[0] = None
        dual.NAMED_TANGENTS.clear()
        dual.exit_level(level)
    return ForwardPass(dict(seeds or {}), steps, tangent, out)


def _reached(out: Tensor) -> tuple[list, set]:
    """The leaves' nodes (AccumulateGrad) of out's graph and the ids of all its nodes."""
    from .graphmodel import root_node

    root = root_node(out)
    seen, leaves, stack = {id(root)}, [], [root]
    while stack:
        node = stack.pop()
        if getattr(node, "variable", None) is not None:
            leaves.append(node)
        for child in reversed(node.next_nodes):
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return leaves, seen


def _as_array(tangent, like: Tensor):
    """A recorded tangent as unpack_dual gives it: of the result's shape and dtype."""
    if tangent is None:
        return None
    a = tangent._data if isinstance(tangent, Tensor) else np.asarray(tangent)
    return np.broadcast_to(a, like._data.shape).astype(like._data.dtype)


def _steps(run, out: Tensor, record: list, level) -> list:
    from ..lang.runs import tensors

    named = tensors(run, out)
    names = {id(t): k for k, t in reversed(list(named.items()))}
    order = {id(t): i for i, t in enumerate(named.values())}
    leaves, inside = _reached(out)
    leaves.sort(key=lambda leaf: order.get(id(leaf.variable), len(order)))
    tangents: dict = {}   # (id(node), output_nr) -> tangent array
    steps = []
    for leaf in leaves:
        t = level.get(leaf.variable)
        tangents[(id(leaf), 0)] = None if t is None else t._data
        steps.append(ForwardStep(leaf.name(), None, tangents[(id(leaf), 0)],
                                 variable=names.get(id(leaf.variable), "?"), fn=leaf))
    by_node: dict = {}
    for op, _, result, tangent in record:
        results = result if isinstance(result, tuple) else (result,)
        parts = tangent if isinstance(result, tuple) else (tangent,)
        for o, t in zip(results, parts):
            fn = o.grad_fn
            if fn is None or id(fn) not in inside:
                continue
            tangents[(id(fn), o._output_nr)] = _as_array(t, o)
            if id(fn) not in by_node:
                by_node[id(fn)] = ForwardStep(fn.name(), op, None, fn=fn)
                steps.append(by_node[id(fn)])
    for step in steps[len(leaves):]:
        fn = step.fn
        n = getattr(fn, "n_outputs", 1) or 1
        step.tangent = tangents.get((id(fn), 0)) if n == 1 else tuple(tangents.get((id(fn), k)) for k in range(n))
        step.tangents_in = [(int(nr), None if child is None else tangents.get((id(child), int(nr))))
                            for child, nr in zip(fn.next_nodes, fn.next_nrs)]
    return steps
