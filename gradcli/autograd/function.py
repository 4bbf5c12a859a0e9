"""Custom ops as PyTorch writes them: `class F(autograd.Function)` with forward/backward.

The ctx a user's forward receives is the backward node itself (as in PyTorch),
named `<ClassName>Backward`; it keeps what `save_for_backward` saved until the
graph is freed.
"""
from __future__ import annotations

import numpy as np

from ..errors import AutogradError, ProgramError, ProgramTypeError, ShapeError, type_name
from .._tensor import Tensor, _grad_enabled, no_grad, set_grad_enabled, shape_str
from . import graph as _graph
from .callback import call_program
from .graph import FREED_MESSAGE, Node, _modified_message, edge_to
from ..limits import budget as _budget


class FunctionCtx(Node):
    """The node of one application of a custom Function (and the `ctx` of its forward)."""

    __slots__ = ("_cls", "_saved", "_saved_versions", "_released", "needs_input_grad",
                 "_input_shapes", "_tensor_positions", "__dict__")

    # What the engine and the renderers read on other nodes (a leaf's `variable`, a saved
    # `result`, an op's `op` and `params`): declared here so that a program's `ctx.variable
    # = x` is refused like any engine attribute and a custom node never poses as another kind.
    variable = None
    result = None
    op = None
    params = None

    def name(self) -> str:
        return f"{self._cls.__name__}Backward"

    def save_for_backward(self, *tensors) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise AutogradError("save_for_backward can only save variables, but argument "
                                    f"{tensors.index(t)} is of type {type(t).__name__}")
        self._saved = tensors
        self._saved_versions = tuple(None if t is None else t._counter[0] for t in tensors)

    @property
    def saved_tensors(self) -> tuple:
        if self._released:
            raise AutogradError(FREED_MESSAGE)
        for t, v in zip(self._saved, self._saved_versions):
            if t is not None and t._counter[0] != v:
                raise AutogradError(_modified_message(t, v))
        return tuple(self._saved)

    def mark_non_differentiable(self, *tensors) -> None:
        pass

    def set_materialize_grads(self, value: bool) -> None:
        pass

    def saved_tensors_info(self):
        if self._released:
            return []
        return [(f"saved[{i}]", t) for i, t in enumerate(self._saved)]

    def release(self) -> None:
        if self._saved:
            self._saved = ()
            self._released = True

    def apply(self, grads, create_graph: bool) -> list:
        if self._released:
            raise AutogradError(FREED_MESSAGE)
        if self.n_outputs == 1:
            grads = [grads]
        wrapped = [
            (g if create_graph else Tensor._make(g)) if g is not None
            else Tensor._make(np.zeros(shape))
            for g, shape in zip(grads, self._output_shapes)
        ]
        with set_grad_enabled(create_graph):
            result = call_program(f"{self._cls.__name__}.backward", self.source,
                                  _callable(self._cls.backward), self, *wrapped)
        if not isinstance(result, tuple):
            result = (result,)
        n_args = len(self._input_shapes)
        if len(result) < n_args:
            raise AutogradError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {n_args}, got {len(result)})"
            )
        for g in result:
            if g is not None and not isinstance(g, Tensor):
                raise AutogradError(f"expected Variable or None (got {type(g).__name__})",
                                    hint=f"{self._cls.__name__}.backward returns one Tensor or None "
                                         "per input of forward")
        out = []
        for k, pos in enumerate(self._tensor_positions):
            g = result[pos]
            edge = self.next_functions[k][0]
            if g is None or edge is None:
                out.append(None)
                continue
            shape = self._input_shapes[pos]
            if g._data.shape != shape:
                try:
                    np.broadcast_shapes(g._data.shape, shape)
                    ok = len(g._data.shape) >= len(shape)
                except ValueError:
                    ok = False
                if not ok:
                    raise ShapeError(
                        f"Function {self.name()} returned an invalid gradient at index {pos} - got "
                        f"{shape_str(g._data.shape)} but expected shape compatible with {shape_str(shape)}"
                    )
                from ..ops.registry import sum_to_shape

                g = g.sum_to_size(shape) if create_graph else Tensor._make(sum_to_shape(g._data, shape))
            out.append(g if create_graph else g._data)
        return out


def _callable(method):
    """A Function's forward or backward, which a program may have replaced by anything
    (`@ones_like` as a decorator): Python's TypeError, as a program error."""
    if not callable(method):
        raise ProgramTypeError(f"'{type_name(method)}' object is not callable")
    return method


class _FunctionMeta(type):
    def __repr__(cls):
        return f"<class '{cls.__name__}'>"


class Function(metaclass=_FunctionMeta):
    """Base of custom ops: define static `forward(ctx, ...)` and `backward(ctx, *grads)`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        # PyTorch's NotImplementedError, as a user error (a program's class, not gradcli, lacks it)
        raise ProgramError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise AutogradError("You must implement either the backward or vjp method for your custom "
                            "autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        _budget.node_made()
        ctx = FunctionCtx.__new__(FunctionCtx)
        ctx._cls = cls
        ctx._saved = ()
        ctx._saved_versions = ()
        ctx._released = False
        ctx._tensor_hooks = None
        ctx.source = _graph._current_source[0]
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx._tensor_positions = positions
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx._input_shapes = tuple(a._data.shape if isinstance(a, Tensor) else () for a in args)
        record = _grad_enabled[0] and any(ctx.needs_input_grad)
        with no_grad():
            outputs = call_program(f"{cls.__name__}.forward", ctx.source, _callable(cls.forward),
                                   ctx, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        if not record:
            return outputs
        ctx.next_functions = tuple(edge_to(args[i]) for i in positions)
        ctx._output_shapes = tuple(o._data.shape if isinstance(o, Tensor) else () for o in outs)
        ctx.__dict__["n_outputs"] = len(outs)
        observer = _graph._node_observer[0]
        if observer is not None:
            observer(ctx, (args, kwargs))
        results = []
        for k, o in enumerate(outs):
            if isinstance(o, Tensor):
                # a new tensor: an input returned as is keeps its own place in the graph
                o = Tensor._make(o._data, ctx, True, k, o._counter)
            results.append(o)
        return results[0] if single else tuple(results)
