"""`torch.nn.Module`: PyTorch's registration, traversal order, hooks and repr; the layers
are in the other files of this package.

A module keeps its Parameters, buffers and submodules in three ordered dicts,
as PyTorch's does, so `named_parameters()` and `state_dict()` list them in
PyTorch's order with PyTorch's dotted names. A layer's `forward` calls the
functions of `gradcli.ops` by name when it runs (`_function`, here), so a layer over
an F function that is not defined yet fails only when it is called.

A program reaches a module only through the access policy (`lang/access.py`):
the registered names, the program's own attributes (`_attrs`), the layer's
`public` attribute names and `access.MODULE_METHODS`.
"""
from __future__ import annotations

import weakref
from collections import OrderedDict

import numpy as np

from ... import dtypes
from ..._tensor import RemovableHandle, Tensor, bump_version
from ...graph.callback import call_program
from ...errors import (LimitError, ProgramError, ProgramTypeError, ProgramValueError,
                       cuda_unavailable)
from ...ops import FUNCTIONS, NN_FUNCTIONS
from ...ops.factories import Parameter
from ...limits import MAX_LIST_ITEMS, budget
from ...ordered import OrderedDict as StateDict


# The modules whose forward is running, innermost last.
CALL_STACK: list = []
# backward node -> the innermost module whose forward made it (the graph's clusters)
NODE_MODULE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _function(name: str):
    """The op `name` (F.name or torch.name), looked up when a layer runs."""
    fn = NN_FUNCTIONS.get(name) or FUNCTIONS.get(name)
    if fn is None:
        raise ProgramError(f"torch.nn.functional.{name} is not available in gradcli yet")
    return fn


def _tensor_arg(value, function: str, name: str, position: int):
    """A layer's Parameter handed to its function, checked: a program may have set it to
    None (`conv.weight = None`), as PyTorch allows, and the function then refuses it."""
    if not isinstance(value, Tensor):
        raise ProgramTypeError(f"{function}(): argument '{name}' (position {position}) must be "
                               f"Tensor, not {type(value).__name__}")
    return value


def _dt(dtype) -> dict:
    return {} if dtype is None else {"dtype": dtype}


def _is_hook(fn) -> bool:
    """A function (a program's def or lambda, a builtin), not a value that merely has __call__."""
    return callable(fn) and not isinstance(fn, (type, Tensor, str, int, float, bool, list, tuple, dict))


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    """torch.nn.Module: registration by assignment, traversal, modes, hooks and repr."""

    public: tuple = ()  # a layer's attributes a program may read (and set, for numbers)

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise ProgramTypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                                   f"but {1 + len(args)} were given" if args else
                                   f"{type(self).__name__}.__init__() got an unexpected keyword "
                                   f"argument '{next(iter(kwargs))}'")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_hooks"] = []
        d["_forward_pre_hooks"] = []
        d["_backward_hooks"] = []
        d.setdefault("_attrs", {})

    # --- registration ------------------------------------------------------

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params, modules, buffers = d.get("_parameters"), d.get("_modules"), d.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise ProgramError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise ProgramTypeError(f"cannot assign '{_tensor_type(value)}' as parameter '{name}' "
                                       "(torch.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            if modules is None:
                raise ProgramError("cannot assign module before Module.__init__() call")
            self._forget(name)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise ProgramTypeError(f"cannot assign '{_tensor_type(value)}' as child module "
                                       f"'{name}' (torch.nn.Module or None expected)")
            modules[name] = None
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise ProgramTypeError(f"cannot assign '{_tensor_type(value)}' as buffer '{name}' "
                                       "(torch.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        d = self.__dict__
        for table in (d.get("_parameters"), d.get("_buffers"), d.get("_modules"), d.get("_attrs")):
            if table is not None:
                table.pop(name, None)

    def __getattr__(self, name: str):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            values = d.get(table)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def register_parameter(self, name: str, param) -> None:
        if "_parameters" not in self.__dict__:
            raise ProgramError("cannot assign parameter before Module.__init__() call")
        _check_name(name, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise ProgramTypeError(f"cannot assign '{_tensor_type(param)}' object to parameter "
                                   f"'{name}' (torch.nn.Parameter or None required)")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise ProgramError("cannot assign buffer before Module.__init__() call")
        _check_name(name, "buffer")
        if name in self.__dict__ or name in self._parameters or name in self._modules:
            raise ProgramError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise ProgramTypeError(f"cannot assign '{_tensor_type(tensor)}' object to buffer "
                                   f"'{name}' (torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def add_module(self, name: str, module) -> None:
        if module is not None and not isinstance(module, Module):
            raise ProgramTypeError(f"{_tensor_type(module)} is not a Module subclass")
        _check_name(name, "module")
        self._modules[name] = module

    register_module = add_module

    # --- traversal ---------------------------------------------------------

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        if memo is None:
            _check_prefix(prefix, lambda: len(self.named_modules(set())))
            memo = set()
        out = []
        if self in memo and remove_duplicate:
            return out
        memo.add(self)
        _charge_key(prefix)
        out.append((prefix, self))
        for name, module in self._modules.items():
            if module is None:
                continue
            out.extend(module.named_modules(memo, prefix + ("." if prefix else "") + name,
                                            remove_duplicate))
        return out

    def modules(self):
        return [m for _, m in self.named_modules()]

    def named_children(self):
        seen, out = set(), []
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                out.append((name, module))
        return out

    def children(self):
        return [m for _, m in self.named_children()]

    def _named_members(self, table: str, prefix: str, recurse: bool):
        _check_prefix(prefix, lambda: len(self._named_members(table, "", recurse)))
        seen, out = set(), []
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, table).items():
                if value is None or id(value) in seen:
                    continue
                seen.add(id(value))
                _charge_key(module_prefix)
                out.append((module_prefix + ("." if module_prefix else "") + name, value))
        return out

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate=True):
        return self._named_members("_parameters", prefix, recurse)

    def parameters(self, recurse: bool = True):
        return [p for _, p in self.named_parameters(recurse=recurse)]

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse)

    def buffers(self, recurse: bool = True):
        return [b for _, b in self.named_buffers(recurse=recurse)]

    def get_submodule(self, target: str):
        module = self
        for part in target.split(".") if target else ():
            if part not in module._modules:
                raise ProgramError(f"{module._get_name()} has no attribute `{part}`")
            module = module._modules[part]
        return module

    def get_parameter(self, target: str):
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if name not in module._parameters:
            raise ProgramError(f"{module._get_name()} has no parameter `{name}`")
        return module._parameters[name]

    # --- modes and gradients -----------------------------------------------

    def train(self, mode: bool = True):
        if not isinstance(mode, bool):
            raise ProgramValueError("training mode is expected to be boolean")
        for module in self.modules():
            module.__dict__["training"] = mode
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                grad = p.grad
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad._data = np.zeros_like(grad._data)
                bump_version(grad)

    def apply(self, fn):
        """fn on every submodule, then on this one. As PyTorch's, it visits a module shared by
        two parents once per path (a DAG of modules is walked as the tree it unfolds to),
        so each visit is charged: the budget ends `p.a = m; p.b = m` nested 40 deep."""
        _charge_visit(self)
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # --- dtype -------------------------------------------------------------

    def to(self, *args, **kwargs):
        """Devices are accepted and ignored; a float dtype converts the float parameters and
        buffers in place (each Parameter keeps its identity, as PyTorch's `.data` swap does)."""
        dtype = kwargs.get("dtype")
        for arg in args:
            if isinstance(arg, (dtypes.dtype, dtypes.Unsupported)):
                dtype = arg
            elif isinstance(arg, Tensor):
                dtype = arg.dtype
        if dtype is not None:
            self._convert(lambda t: t.to(dtype))
        return self

    def double(self):
        return self._convert(lambda t: t.double())

    def float(self):
        return self._convert(lambda t: t.float())

    def cpu(self, *args, **kwargs):
        return self

    def cuda(self, *args, **kwargs):
        raise cuda_unavailable()

    def type(self, dst_type):
        return self.to(dst_type)

    def _convert(self, convert):
        for module in self.modules():
            for table in (module._parameters, module._buffers):
                for name, t in table.items():
                    if t is None or t._data.dtype.kind != "f":
                        continue
                    new = convert(t)
                    if new._data.dtype != t._data.dtype:
                        t._data = new._data
                        if t.grad is not None:
                            t.grad = convert(t.grad)
        return self

    # --- state -------------------------------------------------------------

    def state_dict(self, destination=None, prefix: str = "", keep_vars: bool = False):
        """Every parameter and persistent buffer by dotted name. A shared module appears once
        per path to it (as in PyTorch), so each visit is charged."""
        if destination is None:
            _check_prefix(prefix, lambda: len(self.state_dict(keep_vars=True)))
        _charge_visit(self)
        _charge_key(prefix, len(self._parameters) + len(self._buffers))
        out = StateDict() if destination is None else destination   # printed as PyTorch prints it
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent:
                out[prefix + name] = b if keep_vars else b.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(out, prefix + name + ".", keep_vars)
        return out

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy the tensors in (shapes must match); PyTorch's missing/unexpected keys report."""
        if not isinstance(state_dict, dict):
            raise ProgramTypeError(f"Expected state_dict to be dict-like, got {type(state_dict).__name__}.")
        own = self.state_dict(keep_vars=True)
        budget.charge_items(len(own) + len(state_dict))
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected torch.Tensor '
                              f"or Tensor-like object from checkpoint but received {type(value)}")
                continue
            if value.shape != target.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{_size(value.shape)} from checkpoint, the shape in current model "
                              f"is {_size(target.shape)}.")
                continue
            target._data = np.array(value._data, dtype=target._data.dtype)
            bump_version(target)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise ProgramError(f"Error(s) in loading state_dict for {self._get_name()}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    # --- calling -----------------------------------------------------------

    def forward(self, *args, **kwargs):
        raise ProgramError(f'Module [{self._get_name()}] is missing the required "forward" function')

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        return self._add_hook(self._forward_hooks, hook, "forward hook")

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        return self._add_hook(self._forward_pre_hooks, hook, "forward pre-hook")

    def register_full_backward_hook(self, hook, prepend=False):
        return self._add_hook(self._backward_hooks, hook, "backward hook")

    @staticmethod
    def _add_hook(table: list, hook, what: str) -> RemovableHandle:
        if not _is_hook(hook):
            raise ProgramTypeError(f"a {what} must be a function, not '{_tensor_type(hook)}'")
        table.append(hook)
        return RemovableHandle(table, hook)

    def __call__(self, *args, **kwargs):
        for hook in list(self._forward_pre_hooks):
            result = call_program("forward pre-hook", None, hook, self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        backward = _BackwardHook(self) if self._backward_hooks else None
        if backward is not None:
            args = backward.wrap_inputs(args)
        CALL_STACK.append(self)
        try:
            result = self.forward(*args, **kwargs)
        except AttributeError as exc:  # a layer read a tensor attribute of a program's value
            culprit = getattr(exc, "obj", None)
            if isinstance(culprit, Tensor) or not any(a is culprit for a in (*args, *kwargs.values())):
                raise  # not the program's value: a bug in gradcli
            raise ProgramTypeError(f"{self._get_name()}: the input must be a Tensor, not "
                                   f"{type(culprit).__name__}") from None
        finally:
            CALL_STACK.pop()
        _tag_nodes(self, args, result)
        for hook in list(self._forward_hooks):
            changed = call_program("forward hook", None, hook, self, args, result)
            if changed is not None:
                result = changed
        if backward is not None:
            result = backward.wrap_outputs(result)
        return result

    # --- repr --------------------------------------------------------------

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        """PyTorch's nested repr. A shared module is written once per path to it, and each
        level re-indents the text below it: each visit and each re-indent is charged."""
        _charge_visit(self)
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            inner = repr(module)
            budget.charge(len(inner) >> 2)  # re-indenting it: ~5 ns a character
            lines.append(f"({name}): " + _addindent(inner, 2))
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    __str__ = __repr__

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other) -> bool:
        return self is other

    def __dir__(self):
        return []


# A visit of one module by a walk that cannot share (state_dict, repr: PyTorch's visit a
# shared module once per path) takes ~2-4 us, and each entry it writes (a detached Tensor
# in a state_dict, a line of repr) ~1 us: charged as the budget's units take (~50 ns each),
# so that a DAG of modules unfolding to 2^40 visits ends within a second or two.
_VISIT_WORK = 80
_ENTRY_WORK = 20


def _charge_key(prefix: str, count: int = 1) -> None:
    """Charge `count` names built on `prefix` by what they hold: a program's prefix of 9 MB
    (`named_parameters(prefix='x' * 9000000)`) would make a copy per parameter, GBs for a few
    hundred; charged a unit per 4 characters, the budget holds them to ~400 MB."""
    if len(prefix) > 64:
        budget.charge((len(prefix) >> 2) * count)


def _check_prefix(prefix: str, count_names) -> None:
    """Refuse the names a call would build on a program's long prefix when they hold more
    than the string limit in all, before building one: the names are counted first, without
    the prefix (`count_names`), as the walk is charged."""
    if len(prefix) > 64:
        total = len(prefix) * count_names()
        if total > MAX_LIST_ITEMS:
            raise LimitError(f"names on a prefix of {len(prefix)} characters would hold {total} "
                             f"characters, past the limit of {MAX_LIST_ITEMS}",
                             hint="use a shorter prefix; the limit is fixed")


def _charge_visit(module: Module) -> None:
    """Charge one module visited by a walk over a program's module tree, before the visit."""
    d = module.__dict__
    budget.charge(_VISIT_WORK + _ENTRY_WORK * (len(d.get("_parameters") or ())
                                              + len(d.get("_buffers") or ())
                                              + len(d.get("_modules") or ())))


def _tag_nodes(module: Module, args, result) -> None:
    """Record `module` on the backward nodes its forward made: from the outputs back to the
    inputs' nodes (a node an inner module recorded keeps the inner one)."""
    outs = result if isinstance(result, (tuple, list)) else (result,)
    stack = [o.grad_fn for o in outs if isinstance(o, Tensor) and o.grad_fn is not None]
    if not stack:
        return
    stop = {id(a.grad_fn) for a in args if isinstance(a, Tensor) and a.grad_fn is not None}
    seen = set()
    while stack:
        node = stack.pop()
        key = id(node)
        if key in seen or key in stop or hasattr(node, "variable"):
            continue
        seen.add(key)
        if node not in NODE_MODULE:
            NODE_MODULE[node] = module
        stack.extend(child for child in node.next_nodes if child is not None)


def module_paths(values: dict) -> list:
    """(path, module, variable) for every module a run holds, in named_modules order. With one
    top-level module the paths are torchviz's (`fc1`, its parameters `fc1.weight`); with
    several, each starts with its variable (`model.fc1`)."""
    held = [(name, v) for name, v in values.items() if isinstance(v, Module)]
    if not held:
        return []
    inner = {id(m) for _, v in held for _, m in v.named_modules() if m is not v}
    tops, seen_tops = [], set()
    for name, v in held:
        if id(v) not in inner and id(v) not in seen_tops:
            seen_tops.add(id(v))
            tops.append((name, v))
    out, seen = [], set()
    for name, top in tops:
        for path, m in top.named_modules(prefix="" if len(tops) == 1 else name):
            if id(m) not in seen:
                seen.add(id(m))
                out.append((path, m, name))
    return out


def module_tensors(values: dict) -> dict:
    """The parameters and buffers of the run's modules by dotted path (`fc1.weight`)."""
    out = {}
    for path, module, _ in module_paths(values):
        for table in (module._parameters, module._buffers):
            for name, t in table.items():
                if t is not None:
                    out.setdefault(f"{path}.{name}" if path else name, t)
    return out


class _IncompatibleKeys(tuple):
    """`load_state_dict`'s result: (missing_keys, unexpected_keys), printed as PyTorch does."""

    _fields = ("missing_keys", "unexpected_keys")

    def __new__(cls, missing, unexpected):
        return super().__new__(cls, (missing, unexpected))

    missing_keys = property(lambda self: self[0])
    unexpected_keys = property(lambda self: self[1])

    def __repr__(self) -> str:
        if not self[0] and not self[1]:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self[0]}, unexpected_keys={self[1]})"


def _check_name(name, what: str) -> None:
    if not isinstance(name, str):
        raise ProgramTypeError(f"{what} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise ProgramError(f'{what} name can\'t contain "."')
    if name == "":
        raise ProgramError(f'{what} name can\'t be empty string ""')
    if name.startswith("__"):
        raise ProgramError(f"{what} name must not start with '__', got '{name}'")


def _tensor_type(value) -> str:
    if isinstance(value, Tensor):
        return {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
                "int64": "torch.LongTensor", "bool": "torch.BoolTensor"}.get(
            str(value._data.dtype), "torch.Tensor")
    from ...errors import type_name
    return type_name(value)


def _size(shape) -> str:
    return f"torch.Size([{', '.join(str(s) for s in shape)}])"


# --- backward hooks ----------------------------------------------------------


class _BackwardHook:
    """register_full_backward_hook: identity nodes (BackwardHookFunctionBackward) around the
    module's tensors. The outputs' node keeps grad_output; the inputs' node calls the hooks
    with grad_input (or, when no input needs a gradient, the outputs' node calls them with
    grad_input None, as PyTorch does)."""

    def __init__(self, module: Module):
        self.module = module
        self.grad_output = None
        self.n_inputs = 0
        self.inputs_tracked = False

    def wrap_inputs(self, args):
        tensors = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.n_inputs = len(tensors)
        if not any(args[i].requires_grad for i in tensors):
            return args
        self.inputs_tracked = True
        outs = _identity(tuple(args[i] for i in tensors), self._on_inputs)
        args = list(args)
        for i, out in zip(tensors, outs):
            args[i] = out
        return tuple(args)

    def wrap_outputs(self, result):
        single = isinstance(result, Tensor)
        outs = (result,) if single else tuple(result) if isinstance(result, tuple) else None
        if outs is None or not any(isinstance(o, Tensor) and o.requires_grad for o in outs):
            return result
        wrapped = _identity(outs, self._on_outputs)
        return wrapped[0] if single else tuple(wrapped)

    def _on_outputs(self, grads):
        self.grad_output = grads
        if not self.inputs_tracked:
            self._call_hooks((None,) * max(self.n_inputs, 1))
        return grads

    def _on_inputs(self, grads):
        return self._call_hooks(grads)

    def _call_hooks(self, grad_input):
        for hook in list(self.module._backward_hooks):
            result = call_program("backward hook", None, hook, self.module, grad_input, self.grad_output)
            if result is not None:
                result = result if isinstance(result, tuple) else (result,)
                if len(result) != len(grad_input):
                    raise ProgramError(f"Backward hook returned an invalid number of grad_input, "
                                       f"got {len(result)}, but expected {len(grad_input)}")
                grad_input = result
        return grad_input


def _identity(tensors: tuple, on_backward):
    """The tensors through one identity node whose backward passes its grads to on_backward."""
    from ...autograd import Function

    class BackwardHookFunction(Function):
        @staticmethod
        def forward(ctx, *inputs):
            ctx.mark_non_differentiable(*[t for t in inputs if not t.requires_grad]) \
                if any(not t.requires_grad for t in inputs) else None
            return tuple(t.view_as(t) for t in inputs) if len(inputs) > 1 else inputs[0].view_as(inputs[0])

        @staticmethod
        def backward(ctx, *grads):
            result = on_backward(tuple(grads))
            return result if len(result) > 1 else result[0]

    out = BackwardHookFunction.apply(*tensors)
    return out if isinstance(out, tuple) else (out,)
