"""Graphs a program's own backward freed, kept for the command that asks about them.

A pasted snippet often ends `y.backward(); print(x.grad)`. PyTorch frees the saved
tensors of y's graph there, so a command that then asks `grad` or `jacobian` of y
would fail with "Trying to backward through the graph a second time". While a
program runs under such a command (`Program.run`), the engine hands every node it
frees to the active `Keeper` first: the program still sees the node freed (a second
backward of its own is PyTorch's error, as it should be), and once the run is over
`restore` gives the command the graph as it was before that call.

The keeper also notes each backward call (its roots, whether it accumulated into
`.grad`, where in the program), so that `backward` can report the `.grad` values the
program's own call left instead of calling backward again. Only the last
`MAX_CALLS` calls are kept, so a training loop does not keep every step's graph.
"""
from __future__ import annotations

from collections import deque

from ..graph import nodes as _graph
from ..graph.nodes import NOTHING_SAVED, OpNode

MAX_CALLS = 8  # the calls (and their freed graphs) kept: a loop's last steps, not all of them

active = [None]  # the Keeper of the program being run, else None (read by the engine)


class Call:
    """One backward or autograd.grad call of the program."""

    __slots__ = ("roots", "accumulate", "source", "stash", "grads")

    def __init__(self, roots: list, accumulate: bool, source):
        self.roots = roots            # the tensors it differentiated
        self.accumulate = accumulate  # backward (into .grad), not autograd.grad
        self.source = source          # the span of the op being run when it was called
        self.stash = []               # (node, what release would have dropped)
        self.grads = {}               # id(tensor) -> (tensor, a copy of its .grad just after the call)


class Keeper:
    """The calls of one run and what their release dropped."""

    def __init__(self):
        self.calls: deque = deque(maxlen=MAX_CALLS)

    def begin(self, roots: list, accumulate: bool) -> None:
        self.calls.append(Call(list(roots), accumulate, _graph._current_source[0]))

    def finish(self, deps: dict) -> None:
        """After a backward call: copy the .grad of every leaf its graph reaches, and of every
        tensor of it that retains its grad (`h.retain_grad()`), as the call left it (a later
        `zero_grad()` or `x.grad.zero_()` does not change what it produced)."""
        if not self.calls:
            return
        from .._tensor import Tensor, _RetainGrad

        grads = self.calls[-1].grads
        for node in deps:
            held = [getattr(node, "variable", None)]
            held += [hook._tensor() for _, hook, retains in getattr(node, "_tensor_hooks", None) or ()
                     if retains and isinstance(hook, _RetainGrad)]
            for t in held:
                if t is not None and t.grad is not None:
                    grads[id(t)] = (t, Tensor._make(t.grad._data.copy()))

    def stash(self, node) -> None:
        """Note what releasing `node` drops (call before the release)."""
        if not self.calls:
            return
        if node.__class__ is OpNode:
            if node.released or (node.saved is NOTHING_SAVED and node.result is None):
                return
            self.calls[-1].stash.append((node, (node.saved, node.result)))
        elif getattr(node, "_saved", None) and not getattr(node, "_released", True):
            self.calls[-1].stash.append((node, (node._saved, node._packed)))

    def restore(self) -> None:
        """Give every kept node back what its release dropped (oldest call first)."""
        for call in self.calls:
            for node, state in call.stash:
                if node.__class__ is OpNode:
                    node.saved, node.result = state
                    node.released = False
                else:
                    node._saved, node._packed = state
                    node._released = False
            call.stash = []


def differentiated(calls, out, limit: int = 100_000):
    """The last call that accumulated into .grad from `out`, or from a tensor computed
    from it (`y.sum().backward()` for the output y); None if there is none."""
    target = getattr(out, "grad_fn", None)
    for call in reversed(calls):
        if not call.accumulate:
            continue
        for root in call.roots:
            if root is out:
                return call
            if target is None:
                continue
            seen, stack = set(), [getattr(root, "grad_fn", None)]
            while stack and len(seen) < limit:
                node = stack.pop()
                if node is None or id(node) in seen:
                    continue
                if node is target:
                    return call
                seen.add(id(node))
                stack.extend(nxt for nxt, _ in node.next_functions)
    return None
