"""Backward-graph nodes: what `grad_fn` and `next_functions` are made of.

A node holds ordered edges `(node, output_nr)` to the nodes of its inputs, with
`(None, 0)` for an input that needs no gradient, as PyTorch's do. The graph has
no reference cycles: a node never holds the tensors it produced (a saved output
is kept as its array and rebuilt on demand; retain_grad holds a weak reference),
and a leaf holds its AccumulateGrad node only weakly.
"""
from __future__ import annotations

import weakref
from contextlib import contextmanager

import numpy as np

from ..errors import AutogradError
from .._tensor import Tensor, RemovableHandle, shape_str
from .saved_hooks import TensorMap, saved_value

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


class _Extras:
    """What a program attached to one node: metadata, hooks (most nodes have none)."""

    __slots__ = ("metadata", "pre", "post")

    def __init__(self):
        self.metadata = {}
        self.pre = []
        self.post = []


# node -> _Extras: the engine looks a node up here only while this is non-empty
extras = weakref.WeakKeyDictionary()


# leaf tensor -> hooks of Tensor.register_post_accumulate_grad_hook
post_accumulate = TensorMap()


def _extras_of(node) -> _Extras:
    found = extras.get(node)
    if found is None:
        found = extras[node] = _Extras()
    return found


# Where PyTorch 2.13 names a saved value otherwise than the op table's input or parameter
# (checked node by node against `dir(grad_fn)`), and the constants it keeps that gradcli's
# rules do not need.
_SAVED_RENAMES = {("LinalgVectorNormBackward0", "p"): "ord", ("PowBackward2", "base"): "self"}
_SAVED_CONSTANTS = {"AddBackward0": (("_saved_alpha", 1),), "SubBackward0": (("_saved_alpha", 1),)}
_WITH_SIZES = frozenset({"MmBackward0", "BmmBackward0"})
_WITH_NUMEL = frozenset({"MeanBackward0", "MeanBackward1"})
# nodes whose `dim` PyTorch keeps as a list of dims (`(0,)` for `sum(dim=0)`)
_DIM_LISTS = frozenset({"SumBackward1", "MeanBackward1", "AmaxBackward0", "AminBackward0",
                        "LogsumexpBackward0", "StdBackward0", "VarBackward0", "NansumBackward0"})

# What a node that saved nothing holds (shared: no allocation per node).
NOTHING_SAVED = (None,) * 8


ONE_INPUT = type("OneInput", (), {"__slots__": (), "__repr__": lambda self: "ONE_INPUT"})()
MANY_INPUTS = type("ManyInputs", (), {"__slots__": (), "__repr__": lambda self: "MANY_INPUTS"})()


class _NodeClass(type):
    def __repr__(cls):
        return "<class 'torch.autograd.graph.Node'>" if cls is Node else f"<class '{cls.__name__}'>"


class Node(metaclass=_NodeClass):
    """Base of backward nodes: edges, hooks on the tensors it produced, a source slot.

    The edges are `next_nodes` (a node or None per input) and `next_nrs` (the output of that
    node each edge leads to, a shared tuple of zeros for most), not PyTorch's
    `((node, nr), ...)`, which `next_functions` makes when read: objects fewer per op for
    the cyclic collector to walk.
    """

    __slots__ = ("next0", "next1", "next_nrs", "source", "_tensor_hooks", "__weakref__")
    n_outputs = 1

    # The edges' nodes are two slots, not a tuple: one object fewer per op for the collector
    # to walk (a graph's nodes outlive many collections). `next0` and `next1` are the nodes of
    # the first and second input; a node of one input has `next1` ONE_INPUT, one of none or
    # of three or more has the whole tuple in `next0` and `next1` MANY_INPUTS. The engine
    # inlines `next_nodes` where it is hot; elsewhere it is made when read.
    @property
    def next_nodes(self) -> tuple:
        second = self.next1
        if second is ONE_INPUT:
            return (self.next0,)
        if second is MANY_INPUTS:
            return self.next0
        return (self.next0, second)

    @next_nodes.setter
    def next_nodes(self, nodes) -> None:
        nodes = tuple(nodes)
        if len(nodes) == 1:
            self.next0, self.next1 = nodes[0], ONE_INPUT
        elif len(nodes) == 2:
            self.next0, self.next1 = nodes
        else:
            self.next0, self.next1 = nodes, MANY_INPUTS

    @property
    def next_functions(self) -> tuple:
        return tuple(zip(self.next_nodes, self.next_nrs))

    @next_functions.setter
    def next_functions(self, edges) -> None:
        self.next_nodes = tuple([node for node, _ in edges])
        self.next_nrs = tuple([nr for _, nr in edges])

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"

    @property
    def metadata(self) -> dict:
        """A dict of the program's own, kept as long as the node lives."""
        return _extras_of(self).metadata

    def register_hook(self, fn) -> RemovableHandle:
        """`fn(grad_inputs, grad_outputs)` after the node ran; a tuple it returns replaces grad_inputs."""
        hooks = _extras_of(self).post
        hooks.append(fn)
        return RemovableHandle(hooks, fn)

    def register_prehook(self, fn) -> RemovableHandle:
        """`fn(grad_outputs)` before the node runs; a tuple it returns replaces grad_outputs."""
        hooks = _extras_of(self).pre
        hooks.append(fn)
        return RemovableHandle(hooks, fn)

    def saved_value(self, name: str):
        """What `grad_fn.<name>` reads, `name` PyTorch's name of a saved value (`_saved_self`)."""
        for key, value in self.saved_tensors_info():
            if key == name:
                return value
        if getattr(self, "released", False) or getattr(self, "_released", False):
            raise AutogradError(FREED_MESSAGE)
        raise KeyError(name)

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


def _as_value(value):
    """A node's parameter as a value of the language: an array (indices) is a Tensor, a
    numpy number a Python one; anything else but plain data is its text."""
    if value is None or isinstance(value, (bool, int, float, str, Tensor)):
        return value
    if isinstance(value, np.ndarray):
        return Tensor._make(value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):
        return type(value)(_as_value(v) for v in value)
    return repr(value)


def edge_to(t) -> tuple:
    """The edge a node keeps to its input `t`: (node, output_nr) or (None, 0)."""
    if isinstance(t, Tensor) and t.requires_grad:
        if t.grad_fn is not None:
            return (t.grad_fn, t._output_nr)
        return (accumulate_grad(t), 0)
    return (None, 0)


def accumulate_grad(t: Tensor) -> "AccumulateGrad":
    """The AccumulateGrad node of leaf `t`, one per leaf while the graph holds it (held
    weakly by the leaf: `Tensor._accumulate_grad`)."""
    node = t._accumulator() if t._accumulator is not None else None
    if node is None:
        node = AccumulateGrad(t)
        t._accumulator = weakref.ref(node)
    return node


class DelayedError(Node):
    """PyTorch's `Error` node: what a backward marked @once_differentiable returns under
    create_graph; differentiating through it is the error it carries."""

    __slots__ = ("message", "n_outputs")

    def __init__(self, message: str, n_outputs: int):
        self.message = message
        self.n_outputs = n_outputs
        self.next_functions = ((None, 0),) * n_outputs
        self.source = _current_source[0]
        self._tensor_hooks = None

    def name(self) -> str:
        return "Error"

    def apply(self, grads, create_graph: bool):
        raise AutogradError(self.message)


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: gradients arriving here go into `.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor):
        self.next0, self.next1, self.next_nrs = (), MANY_INPUTS, ()
        self.source = None
        self._tensor_hooks = None
        self.variable = variable


class OpNode(Node):
    """The node of an op of the op table (`gradcli.ops`): its rules compute the gradients.

    `saved` holds, aligned with the op's inputs, the input tensors the rules of the
    inputs that require grad will read (None for the others); `versions` their
    version counts at save time; `result` the output array when a rule reads it.
    """

    __slots__ = ("op", "saved", "versions", "made_at", "params", "shapes", "result", "result_version",
                 "_result_counter", "released", "out_shapes", "n_outputs", "in_dtypes")

    def name(self) -> str:
        return self.op.node

    def saved_tensors_info(self) -> list[tuple[str, object]]:
        info = []
        if self.saved is not None and self.saved is not NOTHING_SAVED:
            for i, (name, value, version) in enumerate(zip(self.op.inputs, self.saved, self.versions)):
                if version is not None:
                    info.append((self._pytorch_name(name), saved_value(self, i)))
                elif value is not None and not isinstance(value, Tensor):
                    info.append((self._pytorch_name(name), value))
        if self.result is not None:
            # PyTorch's saved output: the output of this node itself
            info.append(("_saved_result", saved_value(self, "result")))
        for key, value in (self.params or {}).items():
            if key == "dim" and self.op.node in _DIM_LISTS and isinstance(value, int):
                value = (value,)
            info.append((self._pytorch_name(key), _as_value(value)))
        if self.shapes is not None and self.op.reads_shapes:
            # a rule that reads an input's shape: PyTorch saves it as `_saved_<input>_sym_sizes`
            for plan in self.op.plans:
                for kind, key in plan or ():
                    if kind != 3:
                        continue
                    name = self._pytorch_name(self.op.inputs[key]) + "_sym_sizes"
                    if all(name != k for k, _ in info):
                        info.append((name, tuple(self.shapes[key])))
        if self.op.node in _WITH_SIZES:   # sizes (and strides, contiguous) of the saved matrices
            for name, value in list(info):
                if isinstance(value, Tensor):
                    shape = value._data.shape
                    strides = tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
                    info += [(name + "_sym_sizes", tuple(shape)), (name + "_sym_strides", strides)]
        for name, value in list(info):
            if name == "_saved_self_sym_sizes" and self.op.node in _WITH_NUMEL:
                info.append(("_saved_self_sym_numel", int(np.prod(value))))
        for key, value in _SAVED_CONSTANTS.get(self.op.node, ()):
            info.append((key, value))
        return info

    def _pytorch_name(self, name: str) -> str:
        """`self` -> `_saved_self`: PyTorch 2.13's attribute name of a saved value of this node."""
        return "_saved_" + _SAVED_RENAMES.get((self.op.node, name), name)

    def saved_value(self, name: str):
        """PyTorch gives None for an input its node did not save (`(x * w).grad_fn._saved_self`
        when only x requires grad)."""
        try:
            return super().saved_value(name)
        except KeyError:
            if any(self._pytorch_name(i) == name for i in self.op.inputs):
                return None
            raise

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
