"""A finished run's graph, replayed as a function of chosen tensors.

A program is not a Python function of its inputs: its leaves are made by the
program itself (`x = torch.tensor([1., 2.], requires_grad=True)`), may be
trained in place, and are not all `--set`-able. What autograd differentiates is
the recorded graph, so that is what the checks evaluate again: `Tape` walks
`next_functions` from the output once, and `Tape.__call__(*tensors)` re-applies
every node (each op through the op table, each custom `autograd.Function`
through its own `apply`) with the chosen tensors in place of the originals.
`Tape.symbolic` does the same with object arrays of SymPy expressions through
each op's SymPy counterpart, so the SymPy reference is a node-by-node
translation of the very graph the engine differentiates.

The graph keeps only what backward needs, not every input of every node (a
constant added to `x` is not saved), so a run meant for replay is made under
`recording()`, which notes each node's inputs as it is created.
"""
from __future__ import annotations

import weakref
from contextlib import contextmanager

import numpy as np

from ..errors import AutogradError
from .._tensor import Tensor, enable_grad, no_grad, version_counter
from ..autograd.function import FunctionCtx
from ..graph import nodes as _graph
from ..graph.nodes import AccumulateGrad, OpNode, edge_to, observe_nodes
from ..ops import registry
from .symbolic import OverBudget


def edge_value(edge, given: dict, values: dict, leaf):
    """The value flowing along `edge` (node, output_nr): a given one, a node's output
    from `values`, or `leaf(tensor)` for a leaf's."""
    if edge in given:
        return given[edge]
    node, nr = edge
    if isinstance(node, AccumulateGrad):
        return leaf(node.variable)
    out = values[node]
    return out[nr] if isinstance(out, tuple) else out


class ReplayError(AutogradError):
    """A graph that cannot be evaluated again (a node whose inputs were not recorded)."""


# -- recording ------------------------------------------------------------------------

_active: list = []  # the recorders of the runs being recorded (innermost last)


# A constant this small is copied as it is recorded (a program may change it in place
# later); a larger one is kept by reference, its version counter checked at replay.
SNAPSHOT_ELEMENTS = 4096


def _note(t):
    if t.__class__ is not Tensor and not isinstance(t, Tensor):
        return t
    if not t.requires_grad and t._data.size <= SNAPSHOT_ELEMENTS:
        return (t._data.copy(), None, 0)
    return (t._data, version_counter(t), t._counter[0])


def _observe(node, inputs):
    if not _active:
        return
    if isinstance(node, FunctionCtx):
        _active[-1][node] = inputs  # (args, kwargs) of the custom Function
        # each class's first application, kept when its node is gone (a result dropped)
        _active[-1].applied.setdefault(node._cls, node.source)
    else:
        _active[-1][node] = tuple(_note(t) for t in inputs)


@contextmanager
def recording():
    """Note the inputs of every graph node created inside; yields node -> inputs."""
    notes = weakref.WeakKeyDictionary()
    notes.applied = {}   # custom Function class -> the place of its first application
    outer = not _active
    _active.append(notes)
    try:
        if outer:
            with observe_nodes(_observe):
                yield notes
        else:
            yield notes
    finally:
        _active.pop()


# -- the tape -------------------------------------------------------------------------


def key_of(t: Tensor):
    """The graph position of a tensor: (node, output_nr), AccumulateGrad for a leaf."""
    if not t.requires_grad:
        return None
    return edge_to(t)


class Tape:
    """The nodes between `outputs` and the leaves, in an order that evaluates them."""

    def __init__(self, outputs: list, wrt: list, notes):
        self.outputs = list(outputs)
        self.wrt = list(wrt)
        self.wrt_keys = [key_of(t) for t in wrt]
        for t, key in zip(wrt, self.wrt_keys):
            if key is None:
                raise ReplayError("a checked tensor does not require grad")
        self.out_keys = [key_of(t) for t in self.outputs]
        self.notes = notes
        self.order = self._toposort()
        self.depends = self._dependencies()

    def _toposort(self) -> list:
        stop = set(self.wrt_keys)
        order, seen = [], set()
        stack = [(k[0], False) for k in self.out_keys if k is not None and k not in stop]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if node in seen:
                continue
            seen.add(node)
            if isinstance(node, AccumulateGrad):
                continue
            if not isinstance(node, (OpNode, FunctionCtx)):
                raise ReplayError(f"cannot evaluate a {node.name()} node again")
            if node not in self.notes:
                raise ReplayError(f"the inputs of {node.name()} were not recorded: the graph "
                                  "was built outside the checked run")
            stack.append((node, True))
            for edge in node.next_functions:
                if edge[0] is not None and edge not in stop and edge[0] not in seen:
                    stack.append((edge[0], False))
        return [n for n in order if not isinstance(n, AccumulateGrad)]

    def _dependencies(self) -> dict:
        """node -> set of indices of `wrt` it depends on."""
        index = {k: i for i, k in enumerate(self.wrt_keys)}
        deps = {}
        for node in self.order:
            d = set()
            for edge in node.next_functions:
                if edge in index:
                    d.add(index[edge])
                elif edge[0] is not None:
                    d |= deps.get(edge[0], set())
            deps[node] = d
        return deps

    # -- evaluation ---------------------------------------------------------------

    def _value(self, edge, given: dict, values: dict):
        return edge_value(edge, given, values, lambda leaf: Tensor._make(leaf._data))

    def _constant(self, note):
        if isinstance(note, tuple) and len(note) == 3 and isinstance(note[0], np.ndarray):
            data, version, at = note
            if version is not None and version[0] != at:
                raise ReplayError("a constant the output depends on was modified in place after it "
                                  "was used, so the output cannot be computed again",
                                  hint="check a program that keeps the constant, or clone() it")
            return data
        return note

    def _inputs(self, node, given, values):
        """The inputs of an op node: values along its edges, recorded constants elsewhere."""
        args = []
        for edge, recorded in zip(node.next_functions, self.notes[node]):
            if edge[0] is None:
                args.append(self._constant(recorded))
            else:
                args.append(self._value(edge, given, values))
        return args

    def _function_args(self, node, given, values):
        """The arguments of a custom Function's apply, with tensors along its edges replaced."""
        args, kwargs = self.notes[node]
        args = list(args)
        for k, pos in enumerate(node._tensor_positions):
            edge = node.next_functions[k]
            if edge[0] is not None:
                args[pos] = self._value(edge, given, values)
        return args, kwargs

    def evaluate(self, inputs, keep: bool = False):
        """The outputs (and, with keep, every node's value) with `inputs` in place of `wrt`."""
        given = dict(zip(self.wrt_keys, inputs))
        values = {}
        before = _graph._current_source[0]
        try:
            for node in self.order:
                # a node made again keeps the program position of the one it replays
                _graph.set_current_source(node.source)
                if isinstance(node, OpNode):
                    args = self._inputs(node, given, values)
                    values[node] = registry.apply(node.op, tuple(args), node.params)
                else:
                    args, kwargs = self._function_args(node, given, values)
                    values[node] = node._cls.apply(*args, **kwargs)
        finally:
            _graph.set_current_source(before)
        outs = tuple(self._value(k, given, values) if k is not None else t
                     for k, t in zip(self.out_keys, self.outputs))
        return (outs, values) if keep else outs

    def __call__(self, *inputs):
        return self.evaluate(inputs)

    # -- SymPy ---------------------------------------------------------------------

    def symbolic(self, sp, inputs: list, base: dict, budget) -> list:
        """The outputs as object arrays of SymPy expressions of `inputs` (object arrays).

        `base` holds every node's value at the point (from `evaluate(keep=True)`): a
        node that does not depend on a symbolic input keeps its number.
        """
        given = {k: v for k, v in zip(self.wrt_keys, inputs)}
        values = {}

        def value(edge):
            return edge_value(edge, given, values, lambda leaf: leaf._data)

        for node in self.order:
            budget.check()
            if not self.depends[node]:
                out = base[node]
                values[node] = tuple(o._data for o in out) if isinstance(out, tuple) else out._data
                continue
            if isinstance(node, OpNode):
                op = node.op
                if op.sympy is None:
                    raise Unavailable(f"{op.name} has no SymPy counterpart")
                args = []
                for edge, recorded in zip(node.next_functions, self.notes[node]):
                    arg = self._constant(recorded) if edge[0] is None else value(edge)
                    # a SymPy counterpart may write expressions into its inputs' arrays
                    args.append(as_objects(arg) if isinstance(arg, np.ndarray) else arg)
                budget.size(args, base[node])
                out = _translate(op, sp, args, node.params)
            else:
                out = self._symbolic_function(sp, node, value, budget)
            values[node] = tuple(as_objects(o) for o in out) if isinstance(out, (tuple, list)) \
                else as_objects(out)
        return [value(k) if k is not None else t._data for k, t in zip(self.out_keys, self.outputs)]

    def _symbolic_function(self, sp, node, value, budget):
        """A custom Function: its forward is a program, so translate the graph it builds."""
        args, kwargs = self.notes[node]
        args = list(args)
        leaves, symbolic = [], []
        for k, pos in enumerate(node._tensor_positions):
            edge = node.next_functions[k]
            if edge[0] is None:
                continue
            leaf = Tensor(np.array(args[pos]._data), requires_grad=True)
            args[pos] = leaf
            leaves.append(leaf)
            symbolic.append(value(edge))
        ctx = _new_ctx(node._cls, args)
        with recording() as notes, enable_grad():
            outs = node._cls._call_forward(ctx, args, kwargs)
        single = not isinstance(outs, tuple)
        outs = [outs] if single else list(outs)
        tensors = [o if isinstance(o, Tensor) else Tensor._make(np.asarray(o, dtype=np.float64))
                   for o in outs]
        sub = Tape(tensors, leaves, notes)
        with no_grad():
            _, base = sub.evaluate([Tensor._make(l._data) for l in leaves], keep=True)
        result = sub.symbolic(sp, symbolic, base, budget)
        return result[0] if single else tuple(result)


def _translate(op, sp, args, params):
    """An op's SymPy counterpart on these inputs; a counterpart that fails is no reference."""
    try:
        return op.sympy(sp, *args, **(params or {}))
    except OverBudget:
        raise
    except Exception as exc:
        raise Unavailable(f"the SymPy counterpart of {op.name} failed: {type(exc).__name__}: {exc}") \
            from None


def _new_ctx(cls, args) -> FunctionCtx:
    """A fresh ctx for calling a custom Function's forward directly (as Function.apply makes one)."""
    ctx = FunctionCtx.fresh(cls, args, None)
    ctx.next_functions = ()
    return ctx


class Unavailable(Exception):
    """The SymPy reference cannot be formed (an op without a SymPy counterpart)."""


def as_objects(value) -> np.ndarray:
    """An object array of SymPy expressions (numpy returns bare scalars from 0-d object ops)."""
    if isinstance(value, np.ndarray):
        return value if value.dtype == object else value.astype(object)
    arr = np.empty((), dtype=object)
    arr[()] = value
    return arr
