"""The sandbox's access policy: what a program may read, write and call on the values it holds.

Read this file alone to audit the boundary. A program reaches Python objects only
through its names (the builtin table, `gradcli.lang.builtins`) and through the
four doors here:

- `Access.getattr`: `obj.attr`. One table maps a value's type to its reader;
  a type without a reader has no attributes at all. A Tensor's attributes and
  methods are TENSOR_ATTRIBUTES, TENSOR_METHODS and TENSOR_LANGUAGE_MEMBERS below,
  frozen lists: an op exported as a method is not reachable until it is listed
  here (`tests/lang/test_access_tables.py` fails until it is);
  a namespace's are its members; the others are listed below.
- `Access.setattr`: `obj.attr = v` on a Tensor (SETTABLE_ATTRIBUTES), on a
  custom Function's ctx (the program's own names) and on an nn.Module
  (`set_module_attribute`: registration, or the program's own names), nothing else.
- `Access.setitem`: `obj[i] = v` on a Tensor, a list, a dict or a numpy array
  (numpy refuses a read-only one: `x.numpy()`).
- `Access.callable_types`: the engine objects a program may call besides
  Builtins and Closures (grad-mode switches and loss modules), and
  CALLABLE_CLASSES, the classes it may call (exceptions, np.float32/64).

Anything callable that a reader hands out is wrapped in a `Builtin`, so the
program can call it but not look inside it.
"""
from __future__ import annotations


import numpy as np

import gradcli.autograd as _autograd
from gradcli import _tensor, ops as _ops
from gradcli import dtypes as _dtypes
from gradcli.autograd import anomaly as _anomaly
from gradcli.graph import nodes as _graph, saved_hooks as _saved_hooks
from gradcli.errors import GradcliError, ProgramError, ProgramTypeError, close_matches
from gradcli.lang import foreign as _foreign
from gradcli.lang.builtins import materialize, check_length
from gradcli.lang.classes import (MISSING as _MISSING_MEMBER, BoundMethod, ProgramClass,
                                  ProgramModule, ProgramObject, SuperProxy, member_of)
from gradcli.lang.exceptions import EXCEPTION_CLASSES
from gradcli.lang.pymodules import (NUMPY_CLASSES, TENSOR_MEMBERS, Device, Generator,
                                   array_method, check_array_index)
from gradcli.lang.strings import STR_METHODS, str_method
from gradcli.lang.unsupported import refusal, tensor_refusal
from gradcli.lang.values import Builtin, Namespace, type_name
from gradcli.limits import budget as _budget, check_built, check_walk, register_container
from gradcli.lang.classnames import register as _register_class
from gradcli import ordered as _ordered
from gradcli.nn.modules.module import Module
from gradcli.ops.factories import Parameter

Tensor = _tensor.Tensor
Function = _autograd.Function
FunctionCtx = _autograd.FunctionCtx
as_int = _tensor.as_int

# --- the Tensor's and the module's surface: the only names a program reaches -------------

# A Tensor's attributes a program may read, and those it may assign.
TENSOR_ATTRIBUTES = frozenset({
    "grad", "data", "grad_fn", "is_leaf", "requires_grad", "shape", "ndim", "T", "mT", "dtype",
    "retains_grad", "_version", "itemsize",
})
SETTABLE_ATTRIBUTES = frozenset({"grad", "requires_grad", "data"})
# A Tensor's methods a program may call (each one a Builtin when read).
TENSOR_METHODS = frozenset({
    # the tensor itself and autograd
    "backward", "detach", "detach_", "dim", "element_size", "is_floating_point", "item",
    "numel", "register_hook", "register_post_accumulate_grad_hook", "requires_grad_",
    "retain_grad", "size", "tolist",
    # dtype conversions
    "bool", "byte", "char", "double", "float", "half", "int", "long", "short", "to", "type",
    # arithmetic and comparisons
    "abs", "add", "all", "allclose", "any", "clamp", "clamp_max", "clamp_min", "clip", "div",
    "divide", "eq", "equal", "floor_divide", "fmod", "ge", "gt", "isclose", "le",
    "logical_and", "logical_not", "logical_or", "lt", "maximum", "minimum", "mul", "ne",
    "neg", "pow", "reciprocal", "remainder", "rsqrt", "sign", "sqrt", "square", "sub",
    "true_divide",
    # elementwise functions
    "acos", "arctan2", "asin", "atan", "atan2", "ceil", "cos", "cosh", "erf", "exp", "exp2", "expm1",
    "fix", "floor", "frac", "log", "log10", "log1p", "log2", "relu", "round", "sigmoid", "sin", "sinh",
    "softplus", "tan", "tanh", "trunc",
    # in-place versions
    "abs_", "acos_", "add_", "asin_", "atan2_", "atan_", "clamp_", "clamp_max_", "clamp_min_",
    "clip_", "cos_", "cosh_", "cumprod_", "cumsum_", "div_", "erf_", "exp2_", "exp_", "expm1_",
    "floor_divide_", "fmod_", "index_add_", "log10_", "log1p_", "log2_", "log_", "masked_fill_", "mul_", "neg_",
    "pow_", "reciprocal_", "relu_", "remainder_", "rsqrt_", "scatter_add_", "sigmoid_",
    "sign_", "sin_", "sinh_", "sqrt_", "square_", "sub_", "tan_", "tanh_", "tril_", "triu_",
    # reductions, sorting, softmax
    "amax", "amin", "argmax", "argmin", "argsort", "cumprod", "cumsum", "kthvalue",
    "log_softmax", "logsumexp", "max", "mean", "min", "nansum", "norm", "prod", "softmax",
    "sort", "std", "sum", "sum_to_size", "topk", "var",
    # shape and views
    "chunk", "contiguous", "diag", "diagonal", "expand", "expand_as", "flatten", "flip",
    "moveaxis", "movedim", "narrow", "permute", "repeat", "reshape", "reshape_as", "roll",
    "select", "split", "squeeze", "swapaxes", "swapdims", "t", "transpose", "tril", "triu",
    "unbind", "unflatten", "unsqueeze", "view", "view_as",
    # indexing and selection
    "gather", "index_add", "index_select", "masked_fill", "scatter_add", "where",
    # linear algebra
    "addmm", "bmm", "det", "dot", "inverse", "matmul", "mm", "mv", "outer", "trace",
    # new tensors
    "clone", "copy_", "fill_", "new_empty", "new_full", "new_ones", "new_tensor", "new_zeros",
    "zero_",
    # sampling, queries and the rest of issue 27 (ops/sampling.py)
    "bernoulli", "bernoulli_", "exponential_", "isfinite", "isinf", "isnan", "isneginf",
    "isposinf", "multinomial", "nonzero", "normal_", "random_", "repeat_interleave", "resize",
    "resize_", "scatter", "scatter_", "type_as", "uniform_", "unique", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_and_", "bitwise_or_",
})
# The language's own members of a tensor (`pymodules.TENSOR_MEMBERS` makes them), read
# before the Tensor's: `to` checks its device argument first, `grad` warns on a non-leaf.
TENSOR_LANGUAGE_MEMBERS = frozenset({"numpy", "cpu", "cuda", "to", "device", "is_cuda",
                                     "is_xpu", "is_mps", "grad"})
# The methods of every module a program may call (besides a layer's `public` names).
MODULE_METHODS = frozenset({
    "forward", "parameters", "named_parameters", "buffers", "named_buffers", "children",
    "named_children", "modules", "named_modules", "zero_grad", "train", "eval",
    "requires_grad_", "apply", "to", "double", "float", "state_dict", "load_state_dict",
    "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_buffer", "register_parameter", "add_module", "register_module", "get_submodule",
    "get_parameter", "extra_repr", "cpu", "cuda", "type",
})


# A backward node's attributes (issue 13 added the hooks and metadata), a custom Function's
# ctx's and its class's methods a program may read or define.
GRAPH_NODE_ATTRIBUTES = frozenset({"next_functions", "name", "register_hook", "register_prehook", "metadata"})
ACCUMULATE_GRAD_ATTRIBUTES = GRAPH_NODE_ATTRIBUTES | {"variable"}
CTX_ATTRIBUTES = GRAPH_NODE_ATTRIBUTES | {"save_for_backward", "save_for_forward", "saved_tensors",
                                          "needs_input_grad", "mark_non_differentiable",
                                          "set_materialize_grads", "mark_dirty"}
FUNCTION_METHODS = frozenset({"forward", "backward", "setup_context", "vjp", "jvp"})
FUNCTION_CLASS_ATTRIBUTES = frozenset({"apply"}) | FUNCTION_METHODS
# engine objects a `with` statement accepts: the grad-mode switches, warnings.catch_warnings,
# saved-tensor hooks, anomaly mode (and forward_ad's dual_level: `is_context_manager`)
# (warnings.catch_warnings and dual_level, whose modules load on first use: `is_context_manager`)
CONTEXT_MANAGERS = (_tensor._GradMode, _saved_hooks.saved_tensors_hooks,
                    _saved_hooks.disable_saved_tensors_hooks, _anomaly.detect_anomaly,
                    _anomaly.set_detect_anomaly)
LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "index", "count", "reverse", "clear",
                          "remove", "copy"})
DICT_METHODS = frozenset({"keys", "values", "items", "get"})
SET_METHODS = frozenset({"add", "discard", "remove"})
HANDLE_ATTRIBUTES = frozenset({"remove"})
UNPACKED_DUAL_ATTRIBUTES = frozenset({"primal", "tangent"})   # forward_ad.unpack_dual's named tuple
OPTIMIZER_ATTRIBUTES = frozenset({"step", "zero_grad", "param_groups", "state", "defaults", "add_param_group"})
SCHEDULER_ATTRIBUTES = frozenset({"step", "get_last_lr", "get_lr", "last_epoch", "base_lrs", "optimizer",
                                  "state_dict", "load_state_dict"})
# what a program reads of each scheduler besides SCHEDULER_ATTRIBUTES (PyTorch's public attributes)
SCHEDULER_OWN_ATTRIBUTES = {
    "StepLR": frozenset({"step_size", "gamma"}), "ExponentialLR": frozenset({"gamma"}),
    "MultiStepLR": frozenset({"gamma"}), "ConstantLR": frozenset({"factor", "total_iters"}),
    "LinearLR": frozenset({"start_factor", "end_factor", "total_iters"}),
    "CosineAnnealingLR": frozenset({"T_max", "eta_min"}),
    "CosineAnnealingWarmRestarts": frozenset({"T_0", "T_i", "T_mult", "T_cur", "eta_min"}),
    "OneCycleLR": frozenset({"total_steps", "cycle_momentum", "use_beta1"}),
    "ReduceLROnPlateau": frozenset({"mode", "factor", "patience", "threshold", "threshold_mode", "cooldown",
                                    "min_lrs", "eps", "best", "num_bad_epochs", "cooldown_counter",
                                    "in_cooldown"}),
}
EXCEPTION_ATTRIBUTES = frozenset({"args"})
ARRAY_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "T", "tolist", "item", "sum",
                              "mean", "max", "min", "reshape", "flatten", "copy"})
NUMPY_SCALAR_ATTRIBUTES = frozenset({"item", "dtype", "tolist"})
DEVICE_ATTRIBUTES = frozenset({"type", "index"})
GENERATOR_ATTRIBUTES = frozenset({"initial_seed", "manual_seed"})
CALLABLE_CLASSES = EXCEPTION_CLASSES | frozenset(NUMPY_CLASSES) | {Tensor}
# classes whose call is a function, not the class's own constructor: torch.Tensor(data)
# (the default dtype's legacy constructor), while the class stays for isinstance
CONSTRUCTORS = {Tensor: _ops.FUNCTIONS["Tensor"]}

_MISSING = object()
_MAX_RESOLVED = 256  # types resolved through their bases, remembered (a bound on the cache)


def is_context_manager(obj) -> bool:
    """Whether a `with` statement accepts `obj`: CONTEXT_MANAGERS, warnings.catch_warnings or
    a forward_ad.dual_level (their modules imported only here, where a program has one or the
    check fails anyway)."""
    if isinstance(obj, CONTEXT_MANAGERS):
        return True
    from gradcli.autograd.forward_ad import dual_level
    from gradcli.lang.stdlib import CatchWarnings

    return isinstance(obj, (CatchWarnings, dual_level))


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
    """A list's method, with the length limit where it grows the list, the nesting limit
    where it deepens it, and the budget charged before a scan or a shift of its items."""
    if attr == "append":
        def append(value):
            check_length(len(obj) + 1)
            obj.append(value)
            check_built(obj)
        return append
    if attr == "extend":
        def extend(values):
            items = materialize(values)
            check_length(len(obj) + len(items))
            obj.extend(items)
            check_built(obj)
        return extend
    if attr == "insert":
        def insert(index, value):
            check_length(len(obj) + 1)
            _budget.charge_items(len(obj))  # the items after `index` move
            obj.insert(as_int(index, "index"), value)
            check_built(obj)
        return insert
    if attr == "pop":
        def pop(index=-1):
            index = as_int(index, "index")
            if index != -1:
                _budget.charge_items(len(obj))
            return obj.pop(index)
        return pop
    if attr == "copy":
        def copy():
            _budget.charge_items(len(obj))
            return list(obj)
        return copy
    if attr in ("count", "index", "remove"):
        method = getattr(obj, attr)

        def scan(value, *bounds):
            check_walk(obj)  # compares `value` with each item, nested ones in full
            return method(value, *bounds)
        return scan
    return getattr(obj, attr)


def _dict_method(obj: dict, attr: str):
    """A dict's method; keys/values/items give lists (no live views)."""
    if attr == "get":
        return lambda key, default=None: obj.get(key, default)
    return lambda: list(getattr(obj, attr)())


def _counter_method(obj, attr: str):
    return obj.most_common if attr == "most_common" else _dict_method(obj, attr)


def _set_method(obj: set, attr: str):
    if attr == "add":
        def add(value):
            check_length(len(obj) + 1, "a set")
            obj.add(value)
        return add
    return getattr(obj, attr)


def _no_attribute(obj, attr: str, span, allowed) -> ProgramError:
    def hint():  # made only if the error is shown (a caught one is not)
        close = close_matches(attr, sorted(allowed), n=1) if allowed else []
        if close:
            return f"did you mean '{close[0]}'?"
        if allowed and len(allowed) <= 8:
            return "its attributes are " + ", ".join(sorted(allowed))
        return None

    kind = obj.name() if isinstance(obj, _graph.Node) else type_name(obj)
    return _attribute_error(f"'{kind}' object has no attribute '{attr}'", span, hint)


def _attribute_error(message: str, span, hint) -> ProgramError:
    error = ProgramError(message, span, hint=hint)
    error.__cause__ = AttributeError(message)  # what a program's `except` catches
    return error


# --- readers: (obj, attr, span) -> the value, or a ProgramError -----------------


def _named_reader(names: frozenset):
    """Reads `names` (methods wrapped as Builtins) and nothing else: optimizers, handles, nodes."""
    def read(obj, attr, span):
        if attr in names:
            return _bound(obj, attr, span)
        raise _no_attribute(obj, attr, span, names)
    return read


def _read_array(obj, attr, span):
    """A numpy array's attribute: its methods charged before they run (pymodules)."""
    if attr in ARRAY_ATTRIBUTES:
        method = array_method(obj, attr)
        return _bound(obj, attr, span) if method is None else Builtin(attr, method)
    raise _no_attribute(obj, attr, span, ARRAY_ATTRIBUTES)


# the nodes PyTorch writes in C++ outside the generated ones: `.name()` gives their qualified name
_QUALIFIED_NODE_NAMES = {name: "torch::autograd::" + name
                         for name in ("AccumulateGrad", "CopyBackwards", "CopySlices", "Error")}


def _node_reader(names: frozenset):
    """A backward node: `names`, and `_saved_<name>`, what it saved under PyTorch's names."""
    named = _named_reader(names)

    def read(obj, attr, span):
        if attr == "name" and obj.name() in _QUALIFIED_NODE_NAMES:
            return Builtin("name", lambda: _QUALIFIED_NODE_NAMES[obj.name()])
        if not attr.startswith("_saved_"):
            return named(obj, attr, span)
        try:
            return obj.saved_value(attr)
        except KeyError:
            raise _no_attribute(obj, attr, span, None) from None
        except GradcliError as error:
            raise error.at(span)
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
    refused = refusal(obj.name, attr)
    if refused is not None:  # PyTorch has it: never a did-you-mean to another name
        functional = obj.members.get("functional")
        given = _foreign.namespace_hint(obj.name, attr, getattr(functional, "members", {}))
        raise _attribute_error(refused[0], span, given or refused[1])

    def hint():  # made only if the error is shown (a caught one is not)
        functional = obj.members.get("functional")
        given = _foreign.namespace_hint(obj.name, attr, getattr(functional, "members", {}))
        close = close_matches(attr, sorted(obj.members), n=1) if given is None else None
        return given or (f"did you mean '{obj.name}.{close[0]}'?" if close else None)

    raise _attribute_error(f"module '{obj.name}' has no attribute '{attr}'", span, hint)


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


def _methods_reader(names: frozenset, make):
    """Reads `names` of a list, dict or set: each a Builtin that `make(obj, attr)` gives."""
    def read(obj, attr, span):
        if attr in names:
            return Builtin(attr, make(obj, attr))
        raise _no_attribute(obj, attr, span, names)
    return read


def _read_named_tuple(obj, attr, span):
    fields = type(obj)._fields
    if attr in fields:
        return getattr(obj, attr)
    raise _no_attribute(obj, attr, span, frozenset(fields))


_ATTRIBUTE, _METHOD = object(), object()


def _tensor_reader(attributes: frozenset, methods: frozenset):
    """A Tensor's reader: one lookup says what `attr` is, an attribute, a method (a Builtin),
    or the language's own member (numpy, cpu, cuda, to, device: `pymodules.TENSOR_MEMBERS`).
    The hottest reader, so it reads the attribute itself."""
    kinds = dict.fromkeys(methods, _METHOD)
    kinds.update(dict.fromkeys(attributes, _ATTRIBUTE))
    kinds.update((name, TENSOR_MEMBERS[name]) for name in TENSOR_LANGUAGE_MEMBERS)
    allowed = frozenset(kinds)

    def read(obj, attr, span):
        kind = kinds.get(attr)
        try:
            if kind is _ATTRIBUTE:
                return getattr(obj, attr)
            if kind is _METHOD:
                return Builtin(attr, getattr(obj, attr))
        except GradcliError as error:
            raise error.at(span)
        if kind is None:
            refused = tensor_refusal(attr)
            if refused is not None:
                raise _attribute_error(refused[0], span, refused[1])
            error = _no_attribute(obj, attr, span, allowed)
            close = error._hint
            error.hint = lambda: _foreign.tensor_attribute_hint(attr) or close()
            raise error
        value = kind(obj)
        return Builtin(attr, value) if callable(value) else value

    return read


def _read_module(obj, attr, span):
    """A module's attribute: its Parameters, buffers and submodules, the program's own
    attributes, a program class's methods (bound), the layer's `public` names, MODULE_METHODS."""
    if attr[:2] != "__":
        d = obj.__dict__
        for table in ("_parameters", "_buffers", "_modules", "_attrs"):
            values = d.get(table)
            if values is not None and attr in values:
                return values[attr]
        if obj.__class__ is ProgramModule:
            value = member_of(obj, d["_program_class"], attr)
            if value is not _MISSING_MEMBER:
                return value
        if attr == "training" or attr in obj.public:
            return _bound(obj, attr, span)
        if attr in MODULE_METHODS:
            return Builtin(attr, getattr(obj, attr))
    raise _no_attribute(obj, attr, span, MODULE_METHODS | frozenset(obj.public))


def _read_program_class(obj, attr, span):
    """`Net.method` (the program's function, unbound) or a class attribute."""
    if attr == "__name__":
        return obj.name
    value = obj.read(attr) if attr[:2] != "__" else _MISSING_MEMBER
    if value is _MISSING_MEMBER:
        raise _attribute_error(f"type object '{obj.name}' has no attribute '{attr}'", span, None)
    return value


def _read_program_object(obj, attr, span):
    """An attribute of a program's plain object: its own, then its class's members."""
    if attr[:2] != "__":
        value = obj.attrs.get(attr, _MISSING)
        if value is not _MISSING:
            return value
        value = member_of(obj, obj.program_class, attr)
        if value is not _MISSING_MEMBER:
            return value
    raise _attribute_error(f"'{obj.program_class.name}' object has no attribute '{attr}'", span,
                           None)


def set_program_attribute(obj, attr: str, value) -> None:
    """`obj.attr = value` on a program's plain object, or `Cls.attr = value` on its class:
    identifiers not starting with '__', kept in the program's own table."""
    if not attr.isidentifier() or attr[:2] == "__":
        raise ProgramError(f"cannot set attribute '{attr}'",
                           hint="a program's attribute names are identifiers not starting "
                                "with '__'")
    if obj.__class__ is ProgramClass:
        obj.attributes[attr] = value
    else:
        obj.attrs[attr] = value


def _read_super(obj, attr, span):
    value = obj.read(attr, MODULE_METHODS) if attr == "__init__" or attr[:2] != "__" else None
    if value is None:
        raise _attribute_error(f"'super' object has no attribute '{attr}'", span, None)
    return value if value.__class__ is BoundMethod or not callable(value) else Builtin(attr, value)


def set_module_attribute(obj, attr: str, value) -> None:
    """`module.attr = value`: a Parameter, a Module or a registered name is registered as
    PyTorch's __setattr__ does; `training` takes a bool; a layer's public option takes a
    plain value; any other name is the program's own (kept apart from the module's internals)."""
    if not attr.isidentifier() or attr[:2] == "__":
        raise ProgramError(f"cannot set attribute '{attr}' of a module",
                           hint="a module's attribute names are identifiers not starting with '__'")
    d = obj.__dict__
    if attr == "training":
        if not isinstance(value, (bool, np.bool_)):
            raise ProgramTypeError("training must be a bool")
        d["training"] = bool(value)
        return
    registered = any(attr in (d.get(table) or ()) for table in ("_parameters", "_modules", "_buffers"))
    if registered or isinstance(value, (Parameter, Module)):
        if "_parameters" not in d:
            kind = "parameters" if isinstance(value, Parameter) else "module"
            raise ProgramError(f"cannot assign {kind} before Module.__init__() call",
                               hint="call super().__init__() first in __init__")
        d["_attrs"].pop(attr, None)
        Module.__setattr__(obj, attr, value)
        return
    if attr in obj.public and attr in d:
        if not isinstance(value, (bool, int, float, str, tuple, type(None))):
            raise ProgramTypeError(f"{obj._get_name()}.{attr} takes a number, a string or a tuple")
        d[attr] = value
        return
    d["_attrs"][attr] = value


def _read_nothing(obj, attr, span):
    raise _no_attribute(obj, attr, span, None)


# static methods a program calls on a torch class itself, by class name
CLASS_STATIC_METHODS = {"Transformer": frozenset({"generate_square_subsequent_mask"})}


def _read_builtin(obj, attr, span):
    """A builtin: only a torch class's static methods listed in CLASS_STATIC_METHODS
    (`nn.Transformer.generate_square_subsequent_mask(3)`, called on the class)."""
    cls = obj.fn
    if isinstance(cls, type) and attr in CLASS_STATIC_METHODS.get(cls.__name__, ()) \
            and isinstance(vars(cls).get(attr), staticmethod):
        return Builtin(f"{cls.__name__}.{attr}", getattr(cls, attr))
    raise _no_attribute(obj, attr, span, None)


class Access:
    """The policy, built once per process from the tables above and the namespaces."""

    def __init__(self, modules: dict):
        self.tensor_attributes = TENSOR_ATTRIBUTES
        self.tensor_methods = TENSOR_METHODS
        self.settable = SETTABLE_ATTRIBUTES
        self.modules = modules
        self.callable = None  # the callable types once torch.nn is loaded (`callable_types`)
        # the namespaces whose types' readers join the table once a program reads one
        self.pending = dict(_LAZY_TABLES)
        # exact types; a subclass is resolved through its bases (`_resolve`)
        self.readers = {
            Tensor: _tensor_reader(self.tensor_attributes, self.tensor_methods),
            Namespace: _read_namespace,
            Builtin: _read_builtin,
            _graph.Node: _node_reader(GRAPH_NODE_ATTRIBUTES),
            _graph.OpNode: _node_reader(GRAPH_NODE_ATTRIBUTES),
            _graph.AccumulateGrad: _node_reader(ACCUMULATE_GRAD_ATTRIBUTES),
            FunctionCtx: _read_ctx,
            list: _methods_reader(LIST_METHODS, _list_method),
            dict: _methods_reader(DICT_METHODS, _dict_method),
            set: _methods_reader(SET_METHODS, _set_method),
            str: _methods_reader(STR_METHODS, str_method),
            _ordered.OrderedDict: _methods_reader(DICT_METHODS, _dict_method),
            BaseException: _named_reader(EXCEPTION_ATTRIBUTES),
            SystemExit: _named_reader(EXCEPTION_ATTRIBUTES | {"code"}),
            np.ndarray: _read_array,
            np.generic: _named_reader(NUMPY_SCALAR_ATTRIBUTES),
            Device: _named_reader(DEVICE_ATTRIBUTES),
            Generator: _named_reader(GENERATOR_ATTRIBUTES),
            Module: _read_module,
            ProgramModule: _read_module,
            ProgramClass: _read_program_class,
            ProgramObject: _read_program_object,
            SuperProxy: _read_super,
        }
        self.readers.update((cls, _named_reader(names)) for cls, names in _attribute_tables())
        self.resolved: dict = {}

    @property
    def callable_types(self) -> tuple:
        """The engine objects a program may call besides Builtins and Closures (grad-mode
        switches used as decorators, modules, program classes and objects), and torch.nn's
        classes with `__call__` (the losses) once a program has read torch.nn: no instance of
        one exists before, and a plain program does not import torch.nn at all."""
        types = self.callable
        if types is None:
            nn = self.modules["torch.nn"]
            if not nn.loaded:
                return _CALLABLE_TYPES
            types = self.callable = _callable_types(nn)
        return types

    def getattr(self, obj, attr: str, span):
        """`obj.attr`, for the attributes the language defines and no other."""
        cls = obj.__class__
        reader = self.readers.get(cls) or self.resolved.get(cls) or self._resolve(cls)
        return reader(obj, attr, span)

    def _resolve(self, cls):
        """The reader of a type not in the table: an optimizer's, a scheduler's or forward_ad's
        named tuple (added to the table once a program has read their namespace), its nearest base's (a Tensor subclass is a
        Tensor), a class's, a named tuple's; list and dict subclasses have no attributes."""
        for name, tables in list(self.pending.items()):
            if self.modules[name].loaded:
                del self.pending[name]
                self.readers.update(tables(self.modules))
        if cls in self.readers:
            return self.readers[cls]
        if issubclass(cls, type):
            reader = _read_class
        elif issubclass(cls, tuple) and hasattr(cls, "_fields"):
            reader = _read_named_tuple
        else:
            reader = next((self.readers[base] for base in cls.__mro__[1:]
                           if base in self.readers and base not in (list, dict, set, Namespace)),
                          _read_nothing)
        if len(self.resolved) < _MAX_RESOLVED:
            self.resolved[cls] = reader
        return reader

    def setattr(self, obj, attr: str, value) -> None:
        """`obj.attr = value`: a Tensor's settable attributes and a ctx's own names."""
        if isinstance(obj, Tensor):
            if attr not in self.settable:
                raise ProgramError(f"cannot set attribute '{attr}' of a Tensor",
                                   hint="settable: " + ", ".join(sorted(self.settable)))
            if attr == "requires_grad":
                if not isinstance(value, (bool, np.bool_)):
                    raise ProgramTypeError("requires_grad must be a bool")
                obj._set_requires_grad(bool(value))  # PyTorch's checks (leaves, float dtypes), not vmap's
                return
        elif isinstance(obj, FunctionCtx):
            if not ctx_attribute_allowed(attr):
                raise ProgramError(f"cannot set attribute '{attr}' of ctx")
        elif isinstance(obj, Module):
            set_module_attribute(obj, attr, value)
            return
        elif obj.__class__ in (ProgramObject, ProgramClass):
            set_program_attribute(obj, attr, value)
            return
        else:
            raise ProgramError(f"cannot set attributes of a '{type_name(obj)}' object")
        setattr(obj, attr, value)

    @staticmethod
    def setitem(obj, index, value, span) -> None:
        """`obj[index] = value` on a Tensor, a list, a dict or a numpy array."""
        if obj.__class__ is list:
            index = sequence_index(index, span)
            if isinstance(index, slice):
                value = materialize(value)
        elif obj.__class__ is np.ndarray:
            check_array_index(obj, index)
            if isinstance(value, Tensor):
                raise ProgramTypeError("assign a number or a numpy array into a numpy array, "
                                       "not a Tensor")
        elif not (isinstance(obj, Tensor) or isinstance(obj, dict)):
            raise ProgramTypeError(f"'{type_name(obj)}' object does not support item assignment")
        obj[index] = value


# the engine objects a program may call besides Builtins and Closures, before torch.nn is read
_CALLABLE_TYPES = (_tensor._GradMode, Module, ProgramClass, BoundMethod, ProgramObject)


def _callable_types(nn) -> tuple:
    """`_CALLABLE_TYPES` and the loss modules (torch.nn's classes with __call__), given the
    torch.nn namespace."""
    types = list(_CALLABLE_TYPES)
    for value in nn.members.values():
        fn = value.fn if isinstance(value, Builtin) else None
        if isinstance(fn, type) and any("__call__" in vars(k) for k in fn.__mro__[:-1]):
            types.append(fn)
    return tuple(types)


def _attribute_tables() -> list:
    """(type, names) pairs: the attributes a program may read on handles and dtypes."""
    return [(_tensor.RemovableHandle, HANDLE_ATTRIBUTES), *_dtypes.ATTRIBUTES]


def _forward_ad_tables(modules: dict) -> list:
    from gradcli.autograd.forward_ad import UnpackedDualTensor

    return [(UnpackedDualTensor, _named_reader(UNPACKED_DUAL_ATTRIBUTES))]


def _collections_tables(modules: dict) -> list:
    """(type, reader) pairs: the methods a program may call on defaultdict and Counter."""
    from gradcli.lang.stdlib import Counter, DefaultDict

    return [(DefaultDict, _methods_reader(DICT_METHODS, _dict_method)),
            (Counter, _methods_reader(DICT_METHODS | {"most_common"}, _counter_method))]


def _optim_tables(modules: dict) -> list:
    """(type, reader) pairs: the attributes a program may read on optimizers and schedulers."""
    tables = []
    for value in modules["torch.optim"].members.values():
        if isinstance(value, Builtin) and isinstance(value.fn, type):
            tables.append((value.fn, _named_reader(OPTIMIZER_ATTRIBUTES)))
    schedulers = modules["torch.optim"].members.get("lr_scheduler")
    for value in (schedulers.members.values() if schedulers is not None else ()):
        if isinstance(value, Builtin) and isinstance(value.fn, type):
            own = SCHEDULER_OWN_ATTRIBUTES.get(value.fn.__name__, frozenset())
            tables.append((value.fn, _named_reader(SCHEDULER_ATTRIBUTES | own)))
    return tables


# (namespace, its types' tables): the types a program gets only from that namespace
_LAZY_TABLES = {"torch.optim": _optim_tables, "torch.optim.lr_scheduler": _optim_tables,
                "torch.autograd.forward_ad": _forward_ad_tables, "collections": _collections_tables}

# OrderedDict is what state_dict() gives, whether or not a program reads `collections`
# (lang/stdlib.py, loaded then, registers defaultdict and Counter the same way)
_ordered.ITEMS[0] = lambda items: materialize(items, "a dict")
_register_class(_ordered.OrderedDict, "collections.OrderedDict")
register_container(_ordered.OrderedDict)

_POLICY: dict = {}


def policy(modules: dict) -> Access:
    """The Access for these namespaces: made once per process, like the namespaces."""
    access = _POLICY.get("access")
    if access is None or _POLICY.get("modules") is not modules:
        access = Access(modules)
        _POLICY.update(access=access, modules=modules)
    return access
