"""Hooks on the graph's nodes, run by the engine as PyTorch runs them.

`grad_fn.register_prehook(fn(grad_outputs))` before a node runs and
`grad_fn.register_hook(fn(grad_inputs, grad_outputs))` after it, each free to
return a tuple that replaces the gradients; `Tensor.register_post_accumulate_grad_hook(
fn(tensor))` after a leaf's `.grad` was updated. What a hook returns is checked
with PyTorch's messages before the engine uses it, so a program's hook can
hand back only tensors (or None).
"""
from __future__ import annotations

import numpy as np

from ..errors import AutogradError, ProgramTypeError, ShapeError
from .._tensor import RemovableHandle, Tensor
from . import nodes as _graph
from .callback import call_program


def _type_name(value) -> str:
    from ..errors import type_name

    return type_name(value)


def _hook_name(hook) -> str:
    return getattr(hook, "name", None) or getattr(hook, "__name__", "hook")


def _as_tensors(grads, create_graph: bool) -> tuple:
    return tuple(None if g is None else (g if create_graph else Tensor._make(g)) for g in grads)


def _checked(hook, returned, current: list, create_graph: bool) -> list:
    """A hook's replacement gradients, checked as PyTorch checks them; None keeps `current`."""
    if returned is None:
        return current
    if not isinstance(returned, tuple):
        raise ProgramTypeError(f"expected tuple, but hook returned '{_type_name(returned)}'")
    if len(returned) != len(current):
        raise AutogradError(f"hook '{_hook_name(hook)}' has returned an incorrect number of values "
                            f"(got {len(returned)}, but expected {len(current)})")
    out = []
    for new, old in zip(returned, current):
        if new is None:
            out.append(None)
            continue
        if not isinstance(new, Tensor):
            raise ProgramTypeError(f"expected Variable, but hook returned '{_type_name(new)}'")
        if old is not None and new._data.shape != np.shape(old._data if isinstance(old, Tensor) else old):
            raise ShapeError(f"hook '{_hook_name(hook)}' has changed the size of value")
        out.append(new if create_graph else new._data)
    return out


def run_prehooks(hooks: list, node, g, create_graph: bool):
    """Node pre-hooks on the gradients arriving at `node` (a list per output when it has several)."""
    multi = node.n_outputs != 1
    current = list(g) if multi else [g]
    for hook in list(hooks):
        current = _checked(hook, call_program("hook", None, hook, _as_tensors(current, create_graph)), current, create_graph)
    return current if multi else current[0]


def run_posthooks(hooks: list, node, grad_inputs, grad_outputs, create_graph: bool) -> list:
    outputs = _as_tensors(grad_outputs if node.n_outputs != 1 else [grad_outputs], create_graph)
    current = list(grad_inputs)
    for hook in list(hooks):
        current = _checked(hook, call_program("hook", None, hook, _as_tensors(current, create_graph), outputs), current,
                           create_graph)
    return current


def apply_hooked(node, hooked, g, create_graph: bool):
    """A node with hooks: pre-hooks, the node, post-hooks."""
    if hooked.pre:
        g = run_prehooks(hooked.pre, node, g, create_graph)
    grads = node.apply(g, create_graph)
    if hooked.post:
        grads = run_posthooks(hooked.post, node, grads, g, create_graph)
    return grads


def run_post_accumulate(variable: Tensor) -> None:
    for hook in list(_graph.post_accumulate.get(variable, ())):
        returned = call_program("post accumulate grad hook", None, hook, variable)
        if returned is not None:
            raise AutogradError("post accumulate grad hooks cannot return anything.")


def register_post_accumulate_grad_hook(self: Tensor, hook) -> RemovableHandle:
    """`Tensor.register_post_accumulate_grad_hook(fn(tensor))`: after `.grad` was accumulated."""
    if not self.requires_grad:
        raise AutogradError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise AutogradError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks = _graph.post_accumulate.get(self)
    if hooks is None:
        hooks = _graph.post_accumulate[self] = []
    hooks.append(hook)
    return RemovableHandle(hooks, hook)


