"""Backward-graph nodes: what `grad_fn` and `next_functions` are made of.

A node holds ordered edges `(node, output_nr)` to the nodes of its inputs, with
`(None, 0)` for an input that needs no gradient, as PyTorch's do. The graph has
no reference cycles: a node never holds the tensors it produced (a saved output
is kept as its array and rebuilt on demand; retain_grad holds a weak reference),
and a leaf holds its AccumulateGrad node only weakly.
"""
from __future__ import annotations

from contextlib import contextmanager

from ..errors import AutogradError
from .._tensor import Tensor, RemovableHandle, shape_str

_current_source = [None]
_node_observer = [None]


def set_current_source(span) -> None:
    """Record `span` in every node created from now on (the interpreter sets it per op)."""
    _current_source[0] = span


@contextmanager
def observe_nodes(callback):
    """Call `callback(node, inputs)` for every node created inside (gradcheck's tape).

    `inputs` is the op's inputs as given, numbers and constants included (a node
    keeps only what its backward needs); for a custom Function, `(args, kwargs)`.
    """
    prev = _node_observer[0]
    _node_observer[0] = callback
    try:
        yield
    finally:
        _node_observer[0] = prev


FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


def _modified_message(saved: Tensor, expected: int) -> str:
    """PyTorch 2.13's wording, which names the op by its node name without `Backward0`."""
    from ..dtypes import BY_NUMPY

    kind = f"torch.{BY_NUMPY[saved._data.dtype].legacy}Tensor"
    where = ""
    if saved.grad_fn is not None:
        where = f", which is output {saved._output_nr} of {op_name(saved.grad_fn)},"
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{kind} {shape_str(saved._data.shape)}]{where} is at version "
        f"{saved._counter[0]}; expected version {expected} instead. Hint: enable anomaly detection "
        "to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def op_name(node) -> str:
    """`MulBackward0` -> `Mul`: how PyTorch's messages name the op behind a node."""
    name = node.name()
    stem = name.rstrip("0123456789")
    return stem[:-len("Backward")] if stem.endswith("Backward") and len(stem) > len("Backward") else name


# What a node that saved nothing holds (shared: no allocation per node).
NOTHING_SAVED = (None,) * 8


class Node:
    """Base of backward nodes: edges, hooks on the tensors it produced, a source slot."""

    __slots__ = ("next_functions", "source", "_tensor_hooks", "__weakref__")
    n_outputs = 1

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.name()} object>"

    @property
    def metadata(self) -> dict:
        return {}

    def _add_tensor_hook(self, output_nr: int, hook, retains: bool = False) -> RemovableHandle:
        if self._tensor_hooks is None:
            self._tensor_hooks = []
        entry = (output_nr, hook, retains)
        self._tensor_hooks.append(entry)
        return RemovableHandle(self._tensor_hooks, entry)

    def saved_tensors_info(self) -> list[tuple[str, object]]:
        """(name, value) of what this node saved for backward, for `graph --saved`."""
        return []

    def release(self) -> None:
        """Free what was saved for backward (after a backward without retain_graph)."""


def edge_to(t) -> tuple:
    """The edge a node keeps to its input `t`: (node, output_nr) or (None, 0)."""
    if isinstance(t, Tensor) and t.requires_grad:
        if t.grad_fn is not None:
            return (t.grad_fn, t._output_nr)
        return (t._accumulate_grad(), 0)
    return (None, 0)


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: gradients arriving here go into `.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor):
        self.next_functions = ()
        self.source = None
        self._tensor_hooks = None
        self.variable = variable


class OpNode(Node):
    """The node of an op of the op table (`gradcli.ops`): its rules compute the gradients.

    `saved` holds, aligned with the op's inputs, the input tensors the rules of the
    inputs that require grad will read (None for the others); `versions` their
    version counts at save time; `result` the output array when a rule reads it.
    """

    __slots__ = ("op", "saved", "versions", "params", "shapes", "result", "result_version",
                 "_result_counter", "released", "out_shapes", "n_outputs", "in_dtypes")

    def name(self) -> str:
        return self.op.node

    def saved_tensors_info(self) -> list[tuple[str, object]]:
        info = []
        if self.saved is not None and self.saved is not NOTHING_SAVED:
            for name, value, version in zip(self.op.inputs, self.saved, self.versions):
                if version is not None or (value is not None and not isinstance(value, Tensor)):
                    info.append((name, value))
        if self.result is not None:
            info.append(("result", Tensor._make(self.result)))
        for key, value in (self.params or {}).items():
            info.append((key, value))
        return info

    def release(self) -> None:
        if not self.released and (self.saved is not NOTHING_SAVED or self.result is not None):
            self.saved = None
            self.result = None
            self.released = True

    def apply(self, grad, create_graph: bool) -> list:
        """Gradients for each input from the output gradient(s): the op's rules (`Op.backward`)."""
        return self.op.backward(self, grad, create_graph)

    def check_saved(self) -> None:
        if self.released:
            raise AutogradError(FREED_MESSAGE)
        for t, version in zip(self.saved, self.versions):
            if version is not None and t.__class__ is Tensor and t._counter[0] != version:
                raise AutogradError(_modified_message(t, version))
        if self._result_counter is not None and self._result_counter[0] != self.result_version:
            fake = Tensor._make(self.result, self, True, 0, self._result_counter)
            raise AutogradError(_modified_message(fake, self.result_version))
