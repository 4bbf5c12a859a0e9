"""`torch.autograd.graph.register_multi_grad_hook`: one hook over several tensors' gradients.

As PyTorch builds it (`torch/autograd/graph.py`), from a tensor hook on each tensor:
mode "all" calls `fn(grads)` once per backward, when every tensor whose gradient this
backward computes has it (None in the place of a tensor the backward does not reach);
mode "any" calls `fn(grad)` once per backward, with the first gradient computed. The
engine says which backward runs (`engine.current_task`) and whether it will run a node.
"""
from __future__ import annotations

from .._tensor import RemovableHandle, Tensor
from ..errors import ProgramError, ProgramTypeError, ProgramValueError
from ..graph.callback import call_program
from . import engine

MODES = ("all", "any")


class MultiHandle(RemovableHandle):
    """The handle register_multi_grad_hook returns: remove() takes off every tensor's hook."""

    __slots__ = ("handles",)

    def __init__(self, handles: tuple):
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def _node_of(t: Tensor):
    """The node whose run gives t its gradient: grad_fn, or the leaf's AccumulateGrad (None
    when no graph holds one yet)."""
    if t.grad_fn is not None:
        return t.grad_fn
    return t._accumulator() if t._accumulator is not None else None


def _task():
    task = engine.current_task()
    if task is None:
        raise ProgramError("expected this hook to be called inside a backward call")
    return task


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Register `fn` over the gradients of `tensors` (mode "all" or "any")."""
    if mode not in MODES:
        raise ProgramValueError(f"Expects mode to be one of {MODES} but got {mode}")
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise ProgramTypeError("register_multi_grad_hook() expects a sequence of Tensors")
    tensors = list(tensors)
    for t in tensors:
        if not isinstance(t, Tensor):
            raise ProgramTypeError(f"register_multi_grad_hook() expects Tensors, got {type(t).__name__}")
    if mode == "all":
        count: dict = {}
        buffers: dict = {}
        expected: dict = {}

        def inner(idx: int):
            def hook(grad):
                task = _task()
                key = task.id
                seen = count.get(key, 0)
                if seen == 0:
                    expected[key] = sum(task.will_execute(_node_of(t)) for t in tensors)
                    buffers[key] = [None] * len(tensors)
                count[key] = seen + 1
                buffers[key][idx] = grad
                if seen == expected[key] - 1:
                    grads = buffers.pop(key)
                    del count[key], expected[key]
                    call_program("register_multi_grad_hook", None, fn, grads)
            return hook

        return MultiHandle(tuple(t.register_hook(inner(i)) for i, t in enumerate(tensors)))

    ran: set = set()

    def first(grad):
        task = _task()
        if task.id in ran:
            return
        ran.add(task.id)
        call_program("register_multi_grad_hook", None, fn, grad)

    return MultiHandle(tuple(t.register_hook(first) for t in tensors if t.requires_grad))
