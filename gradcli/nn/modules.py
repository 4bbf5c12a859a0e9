"""`torch.nn.Module` and the layers: PyTorch's registration, traversal order, hooks and repr.

A module keeps its Parameters, buffers and submodules in three ordered dicts,
as PyTorch's does, so `named_parameters()` and `state_dict()` list them in
PyTorch's order with PyTorch's dotted names. A layer's `forward` calls the
functions of `gradcli.ops` by name when it runs (`_function`), so a layer over
an F function that is not defined yet fails only when it is called.

A program reaches a module only through the access policy (`lang/access.py`):
the registered names, the program's own attributes (`_attrs`), the layer's
`public` attribute names and MODULE_METHODS.
"""
from __future__ import annotations

import math
import weakref
from collections import OrderedDict

import numpy as np

from .. import dtypes
from .._tensor import RemovableHandle, Tensor, bump_version
from ..autograd.callback import call_program
from ..errors import ProgramError, ProgramTypeError, ProgramValueError, cuda_unavailable
from ..ops import FUNCTIONS, NN_FUNCTIONS
from ..ops.factories import Parameter
from . import init

__all__ = [
    "Module", "Parameter", "Linear", "Bilinear", "Identity", "Flatten", "Unflatten",
    "Sequential", "ModuleList", "ModuleDict",
    "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softplus", "Softmax",
    "LogSoftmax", "Dropout",
    "Conv1d", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "Embedding", "LayerNorm",
    "BatchNorm1d", "BatchNorm2d",
]

# The methods of every module a program may call (besides a layer's `public` names).
MODULE_METHODS = frozenset({
    "forward", "parameters", "named_parameters", "buffers", "named_buffers", "children",
    "named_children", "modules", "named_modules", "zero_grad", "train", "eval",
    "requires_grad_", "apply", "to", "double", "float", "state_dict", "load_state_dict",
    "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_buffer", "register_parameter", "add_module", "register_module", "get_submodule",
    "get_parameter", "extra_repr", "cpu", "cuda", "type",
})

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
        memo = set() if memo is None else memo
        out = []
        if self in memo and remove_duplicate:
            return out
        memo.add(self)
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
        seen, out = set(), []
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, table).items():
                if value is None or id(value) in seen:
                    continue
                seen.add(id(value))
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
        out = {} if destination is None else destination
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
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            lines.append(f"({name}): " + _addindent(repr(module), 2))
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
    from ..errors import type_name
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
    from ..autograd import Function

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


# --- layers ------------------------------------------------------------------


def _uniform_parameter(shape, bound: float) -> Parameter:
    p = Parameter(FUNCTIONS["empty"](*shape))
    init.uniform_(p, -bound, bound)
    return p


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b, with PyTorch's default initialisation (kaiming_uniform_(a=sqrt(5)))."""

    public = ("in_features", "out_features")

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = Parameter(FUNCTIONS["empty"](self.out_features, self.in_features, **_dt(dtype)))
        self.bias = Parameter(FUNCTIONS["empty"](self.out_features, **_dt(dtype))) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return _function("linear")(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, " \
               f"bias={self.bias is not None}"


class Bilinear(Module):
    """y_k = x1^T A_k x2 + b_k (an einsum, 'bi,kij,bj->bk')."""

    public = ("in1_features", "in2_features", "out_features")

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = int(in1_features), int(in2_features)
        self.out_features = int(out_features)
        bound = 1 / math.sqrt(self.in1_features)
        self.weight = _uniform_parameter((self.out_features, self.in1_features, self.in2_features), bound)
        if bias:
            self.bias = _uniform_parameter((self.out_features,), bound)
        else:
            self.register_parameter("bias", None)

    def forward(self, input1, input2):
        bilinear = NN_FUNCTIONS.get("bilinear")
        if bilinear is not None:
            return bilinear(input1, input2, self.weight, self.bias)
        out = FUNCTIONS["einsum"]("...i,kij,...j->...k", input1, self.weight, input2)
        return out if self.bias is None else out + self.bias

    def extra_repr(self):
        return f"in1_features={self.in1_features}, in2_features={self.in2_features}, " \
               f"out_features={self.out_features}, bias={self.bias is not None}"


class Flatten(Module):
    public = ("start_dim", "end_dim")

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = int(start_dim), int(end_dim)

    def forward(self, input):
        return FUNCTIONS["flatten"](input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    public = ("dim", "unflattened_size")

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = int(dim), tuple(int(s) for s in unflattened_size)

    def forward(self, input):
        return FUNCTIONS["unflatten"](input, self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


def _dt(dtype) -> dict:
    return {} if dtype is None else {"dtype": dtype}


# --- containers --------------------------------------------------------------


class Sequential(Module):
    """Modules called in order; indexing gives a module, slicing a Sequential."""

    program_iterable = True
    public = ("append",)

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], dict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def _index(self, idx: int) -> int:
        size = len(self._modules)
        idx = int(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        return idx % size

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx])) \
                if type(self) is Sequential else ModuleList(list(self._modules.values())[idx])
        return list(self._modules.values())[self._index(idx)]

    def __setitem__(self, idx, module):
        key = list(self._modules)[self._index(idx)]
        self.add_module(key, module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(Sequential):
    """A list of modules, registered as 0, 1, ... (not callable)."""

    public = ("append", "extend", "insert")

    def __init__(self, modules=None):
        Module.__init__(self)
        if modules is not None:
            self.extend(modules)

    def extend(self, modules):
        for module in list(modules):
            self.append(module)
        return self

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(int(index), module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def forward(self, *args, **kwargs):
        raise ProgramError("ModuleList is not callable: call the modules it holds",
                           hint="for layer in self.layers: x = layer(x)")


class ModuleDict(Module):
    """A dict of modules by name, in insertion order."""

    program_iterable = True
    public = ("keys", "values", "items", "update")

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules))

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return list(self._modules.keys())

    def values(self):
        return list(self._modules.values())

    def items(self):
        return list(self._modules.items())

    def update(self, modules):
        items = modules.items() if isinstance(modules, dict) else modules
        for key, module in items:
            self.add_module(key, module)

    def forward(self, *args, **kwargs):
        raise ProgramError("ModuleDict is not callable: call the modules it holds")


# --- activations and dropout ---------------------------------------------------


def _activation(name: str, function: str, options: tuple = (), defaults: tuple = (),
                repr_options: tuple | None = None):
    """A layer that calls F.function(input, **options), its repr listing `repr_options`."""

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        if len(args) > len(options):
            raise ProgramTypeError(f"{name}.__init__() takes {len(options) + 1} positional "
                                   f"arguments but {len(args) + 1} were given")
        values = dict(zip(options, defaults))
        values.update(zip(options, args))
        for key, value in kwargs.items():
            if key not in options:
                raise ProgramTypeError(f"{name}.__init__() got an unexpected keyword argument '{key}'")
            values[key] = value
        for key in options:
            object.__setattr__(self, key, values[key])

    def forward(self, input):
        kwargs = {key: getattr(self, key) for key in options if key != "inplace"}
        return _function(function)(input, **kwargs)

    def extra_repr(self):
        shown = options if repr_options is None else repr_options
        parts = []
        for key in shown:
            value = getattr(self, key)
            if key == "inplace":
                if value:
                    parts.append("inplace=True")
                continue
            parts.append(f"{key}={value}")
        return ", ".join(parts)

    cls = type(name, (Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr,
                                 "public": tuple(options), "__module__": __name__,
                                 "__doc__": f"torch.nn.{name}: F.{function}."})
    return cls


ReLU = _activation("ReLU", "relu", ("inplace",), (False,))
LeakyReLU = _activation("LeakyReLU", "leaky_relu", ("negative_slope", "inplace"), (0.01, False))
ELU = _activation("ELU", "elu", ("alpha", "inplace"), (1.0, False))
GELU = _activation("GELU", "gelu", ("approximate",), ("none",))
SiLU = _activation("SiLU", "silu", ("inplace",), (False,))
Sigmoid = _activation("Sigmoid", "sigmoid")
Tanh = _activation("Tanh", "tanh")
Softplus = _activation("Softplus", "softplus", ("beta", "threshold"), (1.0, 20.0))
Softmax = _activation("Softmax", "softmax", ("dim",), (None,))
LogSoftmax = _activation("LogSoftmax", "log_softmax", ("dim",), (None,))


def _gelu_repr(self):
    return f"approximate='{self.approximate}'"


GELU.extra_repr = _gelu_repr


class Dropout(Module):
    """F.dropout(input, p, training): zeroes in train mode, the identity in eval mode."""

    public = ("p", "inplace")

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= float(p) <= 1.0:
            raise ProgramValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = float(p), bool(inplace)

    def forward(self, input):
        return _function("dropout")(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


# --- layers over nn-ops' functions (looked up when called) --------------------


def _tuple(value, n: int) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(int(v) for v in value)
    return (int(value),) * n


class _ConvNd(Module):
    public = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation",
              "groups", "padding_mode")
    n = 2
    function = "conv2d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        n = self.n
        in_channels, out_channels, groups = int(in_channels), int(out_channels), int(groups)
        if groups <= 0:
            raise ProgramValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ProgramValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ProgramValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise ProgramValueError(f"padding_mode '{padding_mode}' is not supported (only 'zeros')")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation, self.padding_mode = _tuple(dilation, n), padding_mode
        shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(FUNCTIONS["empty"](*shape, **_dt(dtype)))
        if bias:
            self.bias = Parameter(FUNCTIONS["empty"](out_channels, **_dt(dtype)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    reset_parameters = Linear.reset_parameters

    def forward(self, input):
        return _function(self.function)(input, self.weight, self.bias, self.stride, self.padding,
                                        self.dilation, self.groups)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * self.n:
            s += f", padding={self.padding!r}"
        if self.dilation != (1,) * self.n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv1d(_ConvNd):
    n, function = 1, "conv1d"


class Conv2d(_ConvNd):
    n, function = 2, "conv2d"


class _Pool2d(Module):
    public = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding


class MaxPool2d(_Pool2d):
    public = _Pool2d.public + ("dilation", "return_indices", "ceil_mode")

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, padding)
        self.dilation, self.return_indices, self.ceil_mode = dilation, bool(return_indices), bool(ceil_mode)

    def forward(self, input):
        return _function("max_pool2d")(input, self.kernel_size, self.stride, self.padding,
                                       self.dilation, ceil_mode=self.ceil_mode,
                                       return_indices=self.return_indices)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, " \
               f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"


class AvgPool2d(_Pool2d):
    public = _Pool2d.public + ("ceil_mode", "count_include_pad", "divisor_override")

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__(kernel_size, stride, padding)
        self.ceil_mode, self.count_include_pad = bool(ceil_mode), bool(count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input):
        return _function("avg_pool2d")(input, self.kernel_size, self.stride, self.padding,
                                       self.ceil_mode, self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    public = ("output_size",)

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return _function("adaptive_avg_pool2d")(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class Embedding(Module):
    """A lookup table, weight ~ N(0, 1); the padding_idx row is zero and gets no gradient."""

    public = ("num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
              "scale_grad_by_freq", "sparse")

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None:
            padding_idx = int(padding_idx)
            if not -self.num_embeddings <= padding_idx < self.num_embeddings:
                raise ProgramValueError("Padding_idx must be within num_embeddings")
            padding_idx %= self.num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(FUNCTIONS["empty"](self.num_embeddings, self.embedding_dim,
                                                       **_dt(dtype)))
            init.normal_(self.weight)
            if padding_idx is not None:
                self.weight._data[padding_idx] = 0
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def forward(self, input):
        return _function("embedding")(input, self.weight, self.padding_idx, self.max_norm,
                                      self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s


class LayerNorm(Module):
    public = ("normalized_shape", "eps", "elementwise_affine")

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.normalized_shape = _tuple(normalized_shape, 1)
        self.eps, self.elementwise_affine = float(eps), bool(elementwise_affine)
        self.has_bias = bool(bias)
        if self.elementwise_affine:
            self.weight = Parameter(FUNCTIONS["ones"](*self.normalized_shape, **_dt(dtype)))
            if bias:
                self.bias = Parameter(FUNCTIONS["zeros"](*self.normalized_shape, **_dt(dtype)))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return _function("layer_norm")(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, " \
               f"elementwise_affine={self.elementwise_affine}, bias={self.has_bias}"


class _BatchNorm(Module):
    """Batch statistics in training (updating running_mean/var by momentum, or a cumulative
    average when momentum is None); the running statistics in eval."""

    public = ("num_features", "eps", "momentum", "affine", "track_running_stats")
    dims = (2, 3)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), momentum
        self.affine, self.track_running_stats = bool(affine), bool(track_running_stats)
        self.has_bias = bool(bias)
        n = self.num_features
        if self.affine:
            self.weight = Parameter(FUNCTIONS["ones"](n, **_dt(dtype)))
            if bias:
                self.bias = Parameter(FUNCTIONS["zeros"](n, **_dt(dtype)))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", FUNCTIONS["zeros"](n, **_dt(dtype)))
            self.register_buffer("running_var", FUNCTIONS["ones"](n, **_dt(dtype)))
            self.register_buffer("num_batches_tracked", Tensor._make(np.array(0, dtype=np.int64)))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def forward(self, input):
        ndim = len(input.shape)
        if ndim not in self.dims:
            raise ProgramValueError(f"expected {' or '.join(f'{d}D' for d in self.dims)} input "
                                    f"(got {ndim}D input)")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            tracked = self.num_batches_tracked
            tracked._data = tracked._data + 1
            bump_version(tracked)
            if self.momentum is None:
                momentum = 1.0 / float(tracked._data)
        use_batch = self.training or self.running_mean is None
        return _function("batch_norm")(
            input,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight, self.bias, use_batch, momentum, self.eps)

    def extra_repr(self):
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, " \
               f"affine={self.affine}, bias={self.bias is not None}, " \
               f"track_running_stats={self.track_running_stats}"


class BatchNorm1d(_BatchNorm):
    dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    dims = (4,)
