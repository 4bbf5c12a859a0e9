"""The sandbox's access policy: what a program may read, write and call on the values it holds.

Read this file alone to audit the boundary. A program reaches Python objects only
through its names (the builtin table, `gradcli.lang.builtins`) and through the
four doors here:

- `Access.getattr`: `obj.attr`. One table maps a value's type to its reader;
  a type without a reader has no attributes at all. A Tensor's attributes and
  methods are `_tensor.TENSOR_ATTRIBUTES`, `TENSOR_METHODS` and `ops.METHODS`;
  a namespace's are its members; the others are listed below.
- `Access.setattr`: `obj.attr = v` on a Tensor (SETTABLE_ATTRIBUTES) and on a
  custom Function's ctx (the program's own names), nothing else.
- `Access.setitem`: `obj[i] = v` on a Tensor, a list or a dict.
- `Access.callable_types`: the engine objects a program may call besides
  Builtins and Closures (grad-mode switches and loss modules).

Anything callable that a reader hands out is wrapped in a `Builtin`, so the
program can call it but not look inside it.
"""
from __future__ import annotations

from difflib import get_close_matches

import numpy as np

import gradcli.autograd as _autograd
from gradcli import _tensor, ops as _ops
from gradcli import dtypes as _dtypes
from gradcli.autograd import graph as _graph
from gradcli.errors import GradcliError, ProgramError, ProgramTypeError
from gradcli.lang.builtins import materialize, check_length
from gradcli.lang.values import Builtin, Namespace, type_name

Tensor = _tensor.Tensor
Function = _autograd.Function
FunctionCtx = _autograd.FunctionCtx
as_int = _tensor.as_int

GRAPH_NODE_ATTRIBUTES = frozenset({"next_functions", "name"})
ACCUMULATE_GRAD_ATTRIBUTES = GRAPH_NODE_ATTRIBUTES | {"variable"}
CTX_ATTRIBUTES = GRAPH_NODE_ATTRIBUTES | {"save_for_backward", "saved_tensors",
                                          "needs_input_grad", "mark_non_differentiable",
                                          "set_materialize_grads"}
FUNCTION_CLASS_ATTRIBUTES = frozenset({"apply", "forward", "backward"})
FUNCTION_METHODS = frozenset({"forward", "backward"})
LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "index", "count", "reverse"})
DICT_METHODS = frozenset({"keys", "values", "items", "get"})
HANDLE_ATTRIBUTES = frozenset({"remove"})
OPTIMIZER_ATTRIBUTES = frozenset({"step", "zero_grad", "param_groups"})

_MISSING = object()
_MAX_RESOLVED = 256  # types resolved through their bases, remembered (a bound on the cache)


def sequence_index(index, span):
    """An index into a list, tuple, range or str: an int (an integral float or
    one-element tensor is accepted) or a slice of them."""
    try:
        if isinstance(index, slice):
            return index
        return as_int(index, "an index")
    except GradcliError as error:
        raise error.at(span)


def ctx_attribute_allowed(attr: str) -> bool:
    """A name a program may give its own value on a custom Function's ctx: not the
    engine's (`ctx.foo = 3` is fine, `ctx.next_functions = ...` is not)."""
    return not attr.startswith("_") and not hasattr(FunctionCtx, attr) \
        and attr not in ("n_outputs", "needs_input_grad")


def _read(obj, attr, span):
    try:
        return getattr(obj, attr)
    except GradcliError as error:
        raise error.at(span)


def _bound(obj, attr, span):
    """An engine object's attribute; a method comes wrapped as a Builtin."""
    value = _read(obj, attr, span)
    if callable(value) and not isinstance(value, (Tensor, tuple, list, dict)):
        return Builtin(attr, value)
    return value


def _list_method(obj: list, attr: str):
    """A list's method, with the length limit where it grows the list."""
    if attr == "append":
        def append(value):
            check_length(len(obj) + 1)
            obj.append(value)
        return append
    if attr == "extend":
        def extend(values):
            items = materialize(values)
            check_length(len(obj) + len(items))
            obj.extend(items)
        return extend
    if attr == "insert":
        def insert(index, value):
            check_length(len(obj) + 1)
            obj.insert(as_int(index, "index"), value)
        return insert
    if attr == "pop":
        return lambda index=-1: obj.pop(as_int(index, "index"))
    return getattr(obj, attr)


def _dict_method(obj: dict, attr: str):
    """A dict's method; keys/values/items give lists (no live views)."""
    if attr == "get":
        return lambda key, default=None: obj.get(key, default)
    return lambda: list(getattr(obj, attr)())


def _no_attribute(obj, attr: str, span, allowed) -> ProgramError:
    close = get_close_matches(attr, sorted(allowed), n=1) if allowed else []
    if close:
        hint = f"did you mean '{close[0]}'?"
    elif allowed and len(allowed) <= 8:
        hint = "its attributes are " + ", ".join(sorted(allowed))
    else:
        hint = None
    kind = obj.name() if isinstance(obj, _graph.Node) else type_name(obj)
    return ProgramError(f"'{kind}' object has no attribute '{attr}'", span, hint=hint)


# --- readers: (obj, attr, span) -> the value, or a ProgramError -----------------


def _named_reader(names: frozenset):
    """Reads `names` (methods wrapped as Builtins) and nothing else: optimizers, handles, nodes."""
    def read(obj, attr, span):
        if attr in names:
            return _bound(obj, attr, span)
        raise _no_attribute(obj, attr, span, names)
    return read


def _read_ctx(obj, attr, span):
    if attr in CTX_ATTRIBUTES:
        return _bound(obj, attr, span)
    if ctx_attribute_allowed(attr) and attr in vars(obj):
        return vars(obj)[attr]  # a value the program's forward stored on ctx
    raise _no_attribute(obj, attr, span, CTX_ATTRIBUTES)


def _read_namespace(obj, attr, span):
    value = obj.members.get(attr, _MISSING)
    if value is not _MISSING:
        return value
    close = get_close_matches(attr, sorted(obj.members), n=1)
    raise ProgramError(f"module '{obj.name}' has no attribute '{attr}'", span,
                       hint=f"did you mean '{obj.name}.{close[0]}'?" if close else None)


def _read_class(obj, attr, span):
    """A class: only a program's own Function subclass has attributes (apply, forward, backward)."""
    if issubclass(obj, Function) and obj is not Function:
        if attr == "apply":
            return Builtin(f"{obj.__name__}.apply", obj.apply)
        member = vars(obj).get(attr) if attr in FUNCTION_METHODS else None
        if member is not None:
            return member.__func__  # the program's own forward/backward
        raise _no_attribute(obj, attr, span, FUNCTION_CLASS_ATTRIBUTES)
    raise _no_attribute(obj, attr, span, None)


def _read_list(obj, attr, span):
    if attr in LIST_METHODS:
        return Builtin(attr, _list_method(obj, attr))
    raise _no_attribute(obj, attr, span, LIST_METHODS)


def _read_dict(obj, attr, span):
    if attr in DICT_METHODS:
        return Builtin(attr, _dict_method(obj, attr))
    raise _no_attribute(obj, attr, span, DICT_METHODS)


def _read_named_tuple(obj, attr, span):
    fields = type(obj)._fields
    if attr in fields:
        return getattr(obj, attr)
    raise _no_attribute(obj, attr, span, frozenset(fields))


def _read_nothing(obj, attr, span):
    raise _no_attribute(obj, attr, span, None)


class Access:
    """The policy, built once per process from the engine's tables and the namespaces."""

    def __init__(self, modules: dict):
        self.tensor_attributes = frozenset(_tensor.TENSOR_ATTRIBUTES)
        self.tensor_methods = frozenset(_tensor.TENSOR_METHODS) | frozenset(_ops.METHODS)
        self.settable = frozenset(_tensor.SETTABLE_ATTRIBUTES)
        self.callable_types = _callable_types(modules)
        # exact types; a subclass is resolved through its bases (`_resolve`)
        self.readers = {
            Tensor: self._read_tensor,
            Namespace: _read_namespace,
            _graph.Node: _named_reader(GRAPH_NODE_ATTRIBUTES),
            _graph.OpNode: _named_reader(GRAPH_NODE_ATTRIBUTES),
            _graph.AccumulateGrad: _named_reader(ACCUMULATE_GRAD_ATTRIBUTES),
            FunctionCtx: _read_ctx,
            list: _read_list,
            dict: _read_dict,
        }
        self.readers.update((cls, _named_reader(names)) for cls, names in _attribute_tables(modules))
        self.resolved: dict = {}

    def getattr(self, obj, attr: str, span):
        """`obj.attr`, for the attributes the language defines and no other."""
        cls = obj.__class__
        reader = self.readers.get(cls) or self.resolved.get(cls) or self._resolve(cls)
        return reader(obj, attr, span)

    def _resolve(self, cls):
        """The reader of a type not in the table: its nearest base's (a Tensor subclass is a
        Tensor), a class's, a named tuple's; list and dict subclasses have no attributes."""
        if issubclass(cls, type):
            reader = _read_class
        elif issubclass(cls, tuple) and hasattr(cls, "_fields"):
            reader = _read_named_tuple
        else:
            reader = next((self.readers[base] for base in cls.__mro__[1:]
                           if base in self.readers and base not in (list, dict, Namespace)),
                          _read_nothing)
        if len(self.resolved) < _MAX_RESOLVED:
            self.resolved[cls] = reader
        return reader

    def _read_tensor(self, obj, attr, span):
        if attr in self.tensor_attributes:
            return _read(obj, attr, span)
        if attr in self.tensor_methods:
            return Builtin(attr, _read(obj, attr, span))
        raise _no_attribute(obj, attr, span, self.tensor_attributes | self.tensor_methods)

    def setattr(self, obj, attr: str, value) -> None:
        """`obj.attr = value`: a Tensor's settable attributes and a ctx's own names."""
        if isinstance(obj, Tensor):
            if attr not in self.settable:
                raise ProgramError(f"cannot set attribute '{attr}' of a Tensor",
                                   hint="settable: " + ", ".join(sorted(self.settable)))
            if attr == "requires_grad":
                if not isinstance(value, (bool, np.bool_)):
                    raise ProgramTypeError("requires_grad must be a bool")
                obj.requires_grad_(bool(value))  # PyTorch's checks: leaves only, float dtypes
                return
        elif isinstance(obj, FunctionCtx):
            if not ctx_attribute_allowed(attr):
                raise ProgramError(f"cannot set attribute '{attr}' of ctx")
        else:
            raise ProgramError(f"cannot set attributes of a '{type_name(obj)}' object")
        setattr(obj, attr, value)

    @staticmethod
    def setitem(obj, index, value, span) -> None:
        """`obj[index] = value` on a Tensor, a list or a dict."""
        if obj.__class__ is list:
            index = sequence_index(index, span)
            if isinstance(index, slice):
                value = materialize(value)
        elif not (isinstance(obj, Tensor) or obj.__class__ is dict):
            raise ProgramTypeError(f"'{type_name(obj)}' object does not support item assignment")
        obj[index] = value


def _callable_types(modules: dict) -> tuple:
    """Engine objects a program may call besides Builtins and Closures: grad-mode switches
    (`no_grad()` used as a decorator) and loss modules (torch.nn's classes with __call__)."""
    types = [_tensor._GradMode]
    for value in modules["torch.nn"].members.values():
        fn = value.fn if isinstance(value, Builtin) else None
        if isinstance(fn, type) and any("__call__" in vars(k) for k in fn.__mro__[:-1]):
            types.append(fn)
    return tuple(types)


def _attribute_tables(modules: dict) -> list:
    """(type, names) pairs: the attributes a program may read on handles and optimizers."""
    tables = [(_tensor.RemovableHandle, HANDLE_ATTRIBUTES), *_dtypes.ATTRIBUTES]
    for value in modules["torch.optim"].members.values():
        if isinstance(value, Builtin) and isinstance(value.fn, type):
            tables.append((value.fn, OPTIMIZER_ATTRIBUTES))
    return tables


_POLICY: dict = {}


def policy(modules: dict) -> Access:
    """The Access for these namespaces: made once per process, like the namespaces."""
    access = _POLICY.get("access")
    if access is None or _POLICY.get("modules") is not modules:
        access = Access(modules)
        _POLICY.update(access=access, modules=modules)
    return access
