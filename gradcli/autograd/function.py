"""Custom ops as PyTorch writes them: `class F(autograd.Function)` with forward/backward.

The ctx a user's forward receives is the backward node itself (as in PyTorch),
named `<ClassName>Backward`; it keeps what `save_for_backward` saved until the
graph is freed. A saved output is kept as PyTorch's SavedVariable keeps one
(`is_output`): its array, rebuilt on access as the output of this node, so a
double backward flows through it and the graph holds no reference cycle.
Both styles of PyTorch 2 work: `forward(ctx, ...)`, or `forward(...)` beside
`setup_context(ctx, inputs, output)`.
"""
from __future__ import annotations

import numpy as np

from ..errors import AutogradError, ProgramError, ProgramTypeError, ShapeError, type_name
from ..dtypes import get_default_dtype
from .._tensor import (Tensor, _grad_enabled, bump_version, no_grad, set_grad_enabled, shape_str,
                       version_counter)
from ..graph import nodes as _graph
from ..graph.callback import call_program
from ..graph.nodes import FREED_MESSAGE, Node, _modified_message, edge_to
from ..graph import saved_hooks as _saved_hooks
from ..ops import dual as _dual
from ..ops.shapes import broadcast


class _NotImplemented(ProgramError, NotImplementedError):
    """PyTorch's NotImplementedError (a program may catch it as such)."""


class _SavedOutput:
    """A saved output of the node: its array and version counter, not the tensor
    (which holds the node: a cycle)."""

    __slots__ = ("index", "data", "counter", "differentiable")

    def __init__(self, index: int, tensor: Tensor, differentiable: bool):
        self.index = index
        self.data = tensor._data
        self.counter = version_counter(tensor)
        self.differentiable = differentiable

    def unpack(self, node) -> Tensor:
        if self.differentiable:
            return Tensor._make(self.data, node, True, self.index, self.counter)
        return Tensor._make(self.data, version=self.counter)
from ..limits import budget as _budget


class FunctionCtx(Node):
    """The node of one application of a custom Function (and the `ctx` of its forward)."""

    __slots__ = ("_cls", "_saved", "_saved_versions", "_released", "needs_input_grad",
                 "_input_shapes", "_tensor_positions", "__dict__")
    # set by mark_dirty / mark_non_differentiable / set_materialize_grads (class defaults,
    # so a ctx made elsewhere, e.g. check/replay's, has them too)
    _dirty = ()
    _non_differentiable = ()
    _materialize_grads = True
    _packed = None   # what saved_tensors_hooks' pack returned, per saved tensor

    # What the engine and the renderers read on other nodes (a leaf's `variable`, a saved
    # `result`, an op's `op` and `params`): declared here so that a program's `ctx.variable
    # = x` is refused like any engine attribute and a custom node never poses as another kind.
    variable = None
    result = None
    op = None
    params = None

    @classmethod
    def fresh(cls, function, args, source) -> "FunctionCtx":
        """The ctx `function.apply(*args)` hands to forward (check/replay makes one too)."""
        ctx = cls.__new__(cls)
        ctx._cls = function
        ctx._saved = ()
        ctx._saved_versions = ()
        ctx._released = False
        ctx._tensor_hooks = None
        ctx.source = source
        ctx._tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx._input_shapes = tuple(a._data.shape if isinstance(a, Tensor) else () for a in args)
        return ctx

    def name(self) -> str:
        return f"{self._cls.__name__}Backward"

    def __repr__(self) -> str:
        return f"<torch.autograd.function.{self.name()} object at {id(self):#x}>"

    def save_for_backward(self, *tensors) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise AutogradError("save_for_backward can only save variables, but argument "
                                    f"{tensors.index(t)} is of type {type(t).__name__}")
        for t in tensors:
            if t is not None:
                _saved_hooks.check_savable(t)
        self._saved = tensors
        self._saved_versions = tuple(None if t is None else t._counter[0] for t in tensors)

    def save_for_forward(self, *tensors) -> None:
        """Tensors for `jvp` (forward mode), read there as `ctx.saved_tensors`."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise AutogradError("save_for_forward expects all arguments to be tensors; you should "
                                    "save non-tensors as attributes on ctx.")
        self.__dict__["_saved_forward"] = tensors

    @property
    def saved_tensors(self) -> tuple:
        forward = self.__dict__.get("_in_jvp")
        if forward is not None:   # inside jvp: what save_for_forward saved
            return forward
        if self._released:
            raise AutogradError(FREED_MESSAGE)
        if self._packed is not None:
            return tuple(_saved_hooks.unpack(p) for p in self._packed)
        out = []
        for t, v in zip(self._saved, self._saved_versions):
            if t.__class__ is _SavedOutput:
                t = t.unpack(self)
            if t is not None and t._counter[0] != v:
                raise AutogradError(_modified_message(t, v))
            out.append(t)
        return tuple(out)

    saved_variables = saved_tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_differentiable = self._non_differentiable + _tensors_of(tensors, "mark_non_differentiable")

    def mark_dirty(self, *tensors) -> None:
        self._dirty = self._dirty + _tensors_of(tensors, "mark_dirty")

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize_grads = bool(value)

    def saved_tensors_info(self):
        if self._released:
            return []
        return [(f"saved[{i}]", t.unpack(self) if t.__class__ is _SavedOutput else t)
                for i, t in enumerate(self._saved)]

    def release(self) -> None:
        if self._saved:
            self._saved = ()
            self._packed = None
            self._released = True

    def apply(self, grads, create_graph: bool) -> list:
        if self._released:
            raise AutogradError(FREED_MESSAGE)
        if self.n_outputs == 1:
            grads = [grads]
        materialize = self._materialize_grads
        wrapped = [
            (g if create_graph else Tensor._make(g)) if g is not None
            else (Tensor._make(np.zeros(shape, dtype=dtype or get_default_dtype().np)) if materialize else None)
            for g, shape, dtype in zip(grads, self._output_shapes, self._output_dtypes)
        ]
        with set_grad_enabled(create_graph):
            result = call_program(f"{self._cls.__name__}.backward", self.source,
                                  _callable(self._cls._backward_method()), self, *wrapped)
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
                    broadcast(g._data.shape, shape)
                    ok = len(g._data.shape) >= len(shape)
                except ValueError:
                    ok = False
                if not ok:
                    raise ShapeError(
                        f"Function {self.name()} returned an invalid gradient at index {pos} - got "
                        f"{shape_str(g._data.shape)} but expected shape compatible with {shape_str(shape)}"
                    )
                from ..ops.shapes import sum_to_shape

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

    @staticmethod
    def vjp(ctx, *grad_outputs):
        """PyTorch's other name for backward: a class may define either."""
        return Function.backward(ctx, *grad_outputs)

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Forward mode: the output tangent(s) from one tangent per forward input."""
        raise _NotImplemented("You must implement the jvp function for custom autograd.Function to use it "
                              "with forward mode AD.")

    @classmethod
    def _backward_method(cls):
        if cls.backward is Function.backward and cls.vjp is not Function.vjp:
            return cls.vjp
        return cls.backward

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise ProgramError("You must implement the setup_context function for custom "
                           "autograd.Function with a forward that takes no ctx.")

    @classmethod
    def _uses_setup_context(cls) -> bool:
        return cls.setup_context is not Function.setup_context

    @classmethod
    def _call_forward(cls, ctx, args, kwargs):
        """`forward(ctx, ...)`, or `forward(...)` then `setup_context(ctx, inputs, output)`
        when the class defines setup_context."""
        forward = f"{cls.__name__}.forward"
        if not cls._uses_setup_context():
            return call_program(forward, ctx.source, _callable(cls.forward), ctx, *args, **kwargs)
        outputs = call_program(forward, ctx.source, _callable(cls.forward), *args, **kwargs)
        call_program(f"{cls.__name__}.setup_context", ctx.source, _callable(cls.setup_context),
                     ctx, tuple(args), outputs)
        return outputs

    @classmethod
    def _forward(cls, ctx, args, kwargs):
        with no_grad():
            if not _dual.ACTIVE[0]:
                return cls._call_forward(ctx, args, kwargs)
            depth = _dual.ACTIVE[0]
            _dual.ACTIVE[0] = 0   # the forward sees primals: its output tangents come from jvp
            try:
                return cls._call_forward(ctx, args, kwargs)
            finally:
                _dual.ACTIVE[0] = depth

    @classmethod
    def _tangents(cls, ctx, args, outputs):
        """Forward mode through a custom Function: `jvp(ctx, *tangents)` at each active level
        where an input has a tangent (PyTorch's error when the class has no jvp)."""
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        depth = _dual.ACTIVE[0]
        for k in range(depth):
            level = _dual.LEVELS[k]
            ts = [level.get(a) if isinstance(a, Tensor) else None for a in args]
            if all(t is None for t in ts):
                continue
            if level.batch:   # vmap's level: the outputs depend on the batch
                for o in outs:
                    if isinstance(o, Tensor):
                        level.set(o, True)
                continue
            ts = [Tensor._make(np.zeros_like(a._data)) if t is None and isinstance(a, Tensor) else t
                  for a, t in zip(args, ts)]
            _dual.ACTIVE[0] = k
            ctx.__dict__["_in_jvp"] = tuple(ctx.__dict__.get("_saved_forward", ()))
            try:
                result = call_program(f"{cls.__name__}.jvp", ctx.source, _callable(cls.jvp), ctx, *ts)
            finally:
                _dual.ACTIVE[0] = depth
                del ctx.__dict__["_in_jvp"]
            results = result if isinstance(result, tuple) else (result,)
            if len(results) != len(outs):
                raise AutogradError(f"function {cls.__name__}_jvp returned an incorrect number of forward "
                                    f"gradients (expected {len(outs)}, got {len(results)})")
            for o, t in zip(outs, results):
                if isinstance(o, Tensor) and isinstance(t, Tensor):
                    if t._data.shape != o._data.shape:
                        raise AutogradError("Trying to set a forward gradient that has a different size than "
                                            "that of the original Tensor, this is not supported. Tensor is of "
                                            f"size {shape_str(o._data.shape)} while the given forward gradient "
                                            f"is of size {shape_str(t._data.shape)}.")
                    level.set(o, t)
        return outputs

    @classmethod
    def apply(cls, *args, **kwargs):
        _budget.node_made()
        ctx = FunctionCtx.fresh(cls, args, _graph._current_source[0])
        positions = ctx._tensor_positions
        record = _grad_enabled[0] and any(ctx.needs_input_grad)
        outputs = cls._forward(ctx, args, kwargs)
        if _dual.ACTIVE[0]:
            return cls._tangents(ctx, args, cls._recorded(ctx, args, kwargs, outputs) if record else outputs)
        if not record:
            return outputs
        return cls._recorded(ctx, args, kwargs, outputs)

    @classmethod
    def _recorded(cls, ctx, args, kwargs, outputs):
        """The outputs made outputs of the node `ctx`."""
        positions = ctx._tensor_positions
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        ctx.next_functions = tuple(edge_to(args[i]) for i in positions)
        ctx._output_shapes = tuple(o._data.shape if isinstance(o, Tensor) else () for o in outs)
        ctx._output_dtypes = tuple(o._data.dtype if isinstance(o, Tensor) else None for o in outs)
        ctx.__dict__["n_outputs"] = len(outs)
        observer = _graph._node_observer[0]
        if observer is not None:
            observer(ctx, (args, kwargs))
        results = []
        saved = list(ctx._saved)
        for k, o in enumerate(outs):
            if isinstance(o, Tensor):
                differentiable = not any(o is t for t in ctx._non_differentiable)
                for i, t in enumerate(saved):
                    if t is o and not any(t is a for a in args):
                        saved[i] = _SavedOutput(k, o, differentiable)
                if not differentiable:
                    pass   # PyTorch's: no grad_fn, requires_grad=False; its gradient arrives as zeros
                elif any(o is t for t in ctx._dirty):
                    _rebase_dirty(o, ctx, k)
                else:
                    o = Tensor._make(o._data, ctx, True, k, version_counter(o))
            results.append(o)
        ctx._saved = tuple(saved)
        if _saved_hooks.active() and ctx._saved:
            ctx._packed = tuple(None if t is None else _saved_hooks.pack(
                t.unpack(ctx) if t.__class__ is _SavedOutput else t) for t in ctx._saved)
        return results[0] if single else tuple(results)


def _tensors_of(tensors, what: str) -> tuple:
    for t in tensors:
        if not isinstance(t, Tensor):
            raise ProgramTypeError(f"{what} only accepts Tensors as arguments, got {type(t).__name__}")
    return tuple(tensors)


def _rebase_dirty(t: Tensor, ctx, k: int) -> None:
    """An input the forward changed in place (`mark_dirty`): it becomes the output itself."""
    if t.grad_fn is None and t.requires_grad:
        raise AutogradError("a leaf Variable that requires grad has been used in an in-place operation.")
    t.grad_fn = ctx
    t.requires_grad = True
    t._output_nr = k
    bump_version(t)   # PyTorch bumps the version of a dirty tensor once more


def once_differentiable(fn):
    """`@once_differentiable` on a backward: it runs without building a graph, and a
    double backward that reaches its result is PyTorch's error."""
    from ..errors import Builtin

    def wrapper(ctx, *grads):
        enabled = _grad_enabled[0]
        with no_grad():
            outputs = _callable(fn)(ctx, *grads)
        if not enabled or not any(isinstance(g, Tensor) and g.requires_grad for g in grads):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        node = _graph.DelayedError("trying to differentiate twice a function that was marked with "
                                   "@once_differentiable", len(outs))
        wrapped = tuple(Tensor._make(o._data, node, True, k) if isinstance(o, Tensor) else o
                        for k, o in enumerate(outs))
        return wrapped[0] if single else wrapped

    return Builtin(getattr(fn, "name", None) or getattr(fn, "__name__", "backward"), wrapper)
