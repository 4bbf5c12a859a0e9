"""The builtin table and the `torch` namespaces: every name a program can reach
without defining it.

Built from the engine's own tables (`gradcli.ops.FUNCTIONS`, `NN_FUNCTIONS`,
`gradcli.autograd`), plus the constants `pi e inf nan` and the few Python
builtins of SPEC 2.3, each wrapped so that it cannot hang or exhaust memory
(`list(range(10**12))` is an error, not a wait). `torch.X` resolves X among the
engine's functions; `abs min max sum round` are Python's on plain numbers and
the engine's on a tensor.
"""
from __future__ import annotations

import math
from itertools import islice

from gradcli.errors import CLASS_NAME, LimitError, ProgramTypeError
from gradcli.lang.limits import MAX_INT_BITS, MAX_SEQUENCE_LENGTH
from gradcli.limits import measure
from gradcli import dtypes
from gradcli.lang.sequences import (  # noqa: F401  (builtins.X for the interpreter and access)
    SEQUENCE_TYPES, check_length, iterate, materialize,
)
from gradcli.lang.values import Builtin, Namespace, type_name
from gradcli.lang import classnames

CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}
# The standard modules a program may import, as facades (`lang/stdlib.py`, imported on a
# program's first read of one of them: a plain program does not load it)
STANDARD_MODULES = ("time", "random", "collections", "itertools", "functools", "typing",
                    "__future__", "dataclasses", "argparse", "sys", "warnings")


def check_printed(value) -> None:
    """Refuse to print or format a nested value whose text would pass the string limit
    (each item prints at least 3 characters, `0, `), before any of it is made."""
    if isinstance(value, (list, tuple, dict)):   # (OrderedDict, defaultdict too)
        depth, size, distinct = measure(value)
        if 3 * size > MAX_SEQUENCE_LENGTH:
            raise LimitError(f"printing a value of {size} items would make a string longer than "
                             f"the limit of {MAX_SEQUENCE_LENGTH} characters",
                             hint="print a part of it, or a tensor (printed in summary)")


def _engine():
    import gradcli
    import gradcli.autograd as autograd
    from gradcli import ops, _tensor as tensor

    return gradcli, autograd, ops, tensor


def _wrap(members: dict) -> dict:
    """Callables become Builtins (named); constants, dtypes, namespaces stay as they are."""
    out = {}
    for name, value in members.items():
        if value is None:
            continue
        if callable(value) and not isinstance(value, (Namespace, Builtin, dtypes.dtype, dtypes.Unsupported)) \
                and not _is_class_value(value) and not getattr(value, "program_value", False):
            if getattr(value, "__module__", None) == __name__:
                value.__name__ = value.__qualname__ = name  # so Python's messages say `len()`
            value = Builtin(name, value)
        out[name] = value
    return out


def _is_class_value(value) -> bool:
    """A class a program holds as itself (to subclass, catch, or test with isinstance), not
    wrapped as a function: Function, Node, the exception types, torch.Tensor, numpy's."""
    if not isinstance(value, type):
        return False
    from gradcli._tensor import Tensor
    from gradcli.autograd import Function
    from gradcli.graph.nodes import Node
    from gradcli.lang.exceptions import EXCEPTION_CLASSES
    from gradcli.lang.pymodules import NUMPY_CLASSES

    return (issubclass(value, Function) or value is Tensor or value is Node
            or value in EXCEPTION_CLASSES or value in NUMPY_CLASSES)


_MODULES: dict = {}
_BUILTINS: dict = {}


def make_modules() -> dict:
    """The importable namespaces, by dotted name (`gradcli.lang.parser.IMPORTABLE_MODULES`).

    Made once per process: they hold only the engine's functions, and a program
    cannot change them (no attribute of a namespace can be assigned), so every
    run (one per `--points` line) shares them.
    """
    if not _MODULES:
        _MODULES.update(_make_modules())
    return _MODULES


def _make_modules() -> dict:
    """The namespaces; those of the layers a plain program does not use (torch.nn, torch.optim,
    torch.func, torch.utils.data...) are lazy: their modules are imported and their members
    made on the first read of one (`Namespace.members`)."""
    gradcli, autograd, ops, tensor = _engine()

    def lazy(name: str, make) -> Namespace:
        return Namespace(name, make=lambda: _wrap(make()))

    functional = lazy("torch.nn.functional", lambda: dict(ops.NN_FUNCTIONS))
    autograd_functional = lazy("torch.autograd.functional", lambda: {
        "jacobian": autograd.functional.jacobian,
        "hessian": autograd.functional.hessian,
        **_api().functional_members(),
    })
    autograd_graph = lazy("torch.autograd.graph", lambda: _api().graph_members())
    autograd_function = lazy("torch.autograd.function", lambda: _api().FUNCTION)
    func_ns = lazy("torch.func", lambda: _api().func_members())
    forward_ad_ns = lazy("torch.autograd.forward_ad", lambda: _api().FORWARD_AD)
    autograd_ns = lazy("torch.autograd", lambda: {
        "grad": autograd.grad,
        "backward": autograd.backward,
        "Function": autograd.Function,
        "gradcheck": autograd.gradcheck,
        "gradgradcheck": autograd.gradgradcheck,
        "functional": autograd_functional,
        "graph": autograd_graph,
        "function": autograd_function,
        "forward_ad": forward_ad_ns,
        **_api().AUTOGRAD,
    })
    init_ns = Namespace("torch.nn.init", make=lambda: _wrap(dict(_nn().init.FUNCTIONS)))
    nn_tree: dict = {}  # dotted path under torch.nn ("" for torch.nn) -> its members

    def nn_members(path: str) -> dict:
        if not nn_tree:
            nn_tree.update(_nn_tree(functional, init_ns, ops.factories.Parameter, named))
        return nn_tree[path]

    named = {path: Namespace(f"torch.nn.{path}", make=lambda path=path: nn_members(path))
             for path in ("utils", "utils.rnn")}
    nn_ns = Namespace("torch.nn", make=lambda: nn_members(""))
    lr_scheduler_ns = lazy("torch.optim.lr_scheduler", _schedulers)
    optim_ns = lazy("torch.optim", lambda: dict(_optimizers(), lr_scheduler=lr_scheduler_ns))
    linalg_ns = lazy("torch.linalg", lambda: dict(ops.linalg.LINALG_FUNCTIONS))
    from gradcli.lang import pymodules

    cuda_ns = pymodules.cuda_namespace()
    data_ns = Namespace("torch.utils.data", make=_utils_data)
    utils_ns = Namespace("torch.utils", {"data": data_ns})

    def torch_members() -> dict:
        members = dict(ops.FUNCTIONS)
        members.update(CONSTANTS)
        members.update(dtypes.NAMES)
        members.update({name: dtypes.Unsupported(name) for name in dtypes.UNSUPPORTED})
        members.update({
            "no_grad": tensor.no_grad,
            "enable_grad": tensor.enable_grad,
            "set_grad_enabled": tensor.set_grad_enabled,
            "inference_mode": gradcli.inference_mode,
            "is_grad_enabled": tensor.is_grad_enabled,
            "manual_seed": gradcli.manual_seed,
            "autograd": autograd_ns,
            "func": func_ns,
            **_api().TORCH,
            "nn": nn_ns,
            "optim": optim_ns,
            "linalg": linalg_ns,
        })
        members.update(pymodules.torch_members())
        members.update(cuda=cuda_ns, utils=utils_ns)
        return members

    torch_ns = lazy("torch", torch_members)
    return {
        **{name: Namespace(name, make=lambda name=name: _stdlib().members(name))
           for name in STANDARD_MODULES},
        "torch.utils": utils_ns,
        "torch.utils.data": data_ns,
        "torch.cuda": cuda_ns,
        "math": Namespace("math", make=lambda: pymodules.math_namespace().members),
        "numpy": Namespace("numpy", make=lambda: pymodules.numpy_namespace().members),
        "torch": torch_ns,
        "torch.nn": nn_ns,
        "torch.nn.functional": functional,
        "torch.nn.init": init_ns,
        "torch.nn.utils": named["utils"],
        "torch.nn.utils.rnn": named["utils.rnn"],
        "torch.autograd": autograd_ns,
        "torch.autograd.functional": autograd_functional,
        "torch.autograd.graph": autograd_graph,
        "torch.autograd.function": autograd_function,
        "torch.func": func_ns,
        "torch.autograd.forward_ad": forward_ad_ns,
        "torch.optim": optim_ns,
        "torch.optim.lr_scheduler": lr_scheduler_ns,
        "torch.linalg": linalg_ns,
    }


def _stdlib():
    from gradcli.lang import stdlib

    return stdlib


def _api():
    from gradcli.autograd import api

    return api


def _nn():
    import gradcli.nn as nn

    return nn


def _nn_tree(functional: Namespace, init_ns: Namespace, parameter, named: dict) -> dict:
    """torch.nn's members and those of its dotted namespaces (nn.utils, nn.modules.rnn...), by
    dotted path ("" for torch.nn itself); `named` holds the namespaces made before (the ones
    a program imports by name), which are given their members here rather than made anew."""
    nn = _nn()
    members = {"functional": functional, "Parameter": parameter, "init": init_ns}
    for name in nn.__all__:
        members.setdefault(name, getattr(nn, name))
    tree = {"": _wrap(members)}
    for path, dotted in nn.namespaces.dotted(tree[""]).items():
        parent, _, leaf = path.rpartition(".")
        tree[path] = _wrap(dotted)
        tree[parent][leaf] = named.get(path) or Namespace(f"torch.nn.{path}", tree[path])
    return tree


def _optimizers() -> dict:
    import gradcli.optim as optim

    return {name: getattr(optim, name) for name in optim.__all__}


def _schedulers() -> dict:
    from gradcli.optim import lr_scheduler

    return {name: getattr(lr_scheduler, name) for name in lr_scheduler.__all__}


def _utils_data() -> dict:
    from gradcli.lang import utils_data

    return utils_data.namespace().members


def make_builtins(modules: dict, print_fn) -> dict:
    """The names a program can use without defining or importing them.

    All but `print` (which writes where this run writes) are made once per process.
    """
    if modules is not _MODULES or not _BUILTINS:
        base = _make_builtins(modules, print_fn)
        if modules is not _MODULES:
            return base
        _BUILTINS.update(base)
    table = dict(_BUILTINS)
    table.update(_wrap({"print": print_fn}))
    return table


def _make_builtins(modules: dict, print_fn) -> dict:
    from gradcli.lang.classes import (OBJECT, ClassMethod, ProgramClass, ProgramModule,
                                      ProgramObject, Property, make_super, program_class)
    from gradcli.lang.exceptions import EXCEPTION_TYPES

    _, autograd, ops, tensor = _engine()
    Tensor = tensor.Tensor
    as_int = tensor.as_int
    functions = ops.FUNCTIONS

    def _hybrid(name, python_fn):
        engine_fn = functions.get(name)
        if python_fn.__module__ == __name__:  # so Python's messages say `sum()`
            python_fn.__name__ = python_fn.__qualname__ = name

        def fn(*args, **kwargs):
            if engine_fn is not None and args and isinstance(args[0], Tensor):
                return engine_fn(*args, **kwargs)
            return python_fn(*args, **kwargs)

        return fn

    def _minmax(python_fn):
        def fn(*args, **kwargs):
            if len(args) == 1:
                return python_fn(materialize(args[0]), **kwargs)
            return python_fn(*args, **kwargs)

        return fn

    def _sum(iterable, start=0):
        return sum(materialize(iterable), start)

    def _range(*args):
        return range(*(as_int(a, "range() argument") for a in args))

    def _enumerate(iterable, start=0):
        items = materialize(iterable)
        return list(zip(range(as_int(start, "start"), as_int(start, "start") + len(items)), items))

    def _zip(*iterables):
        items = list(islice(zip(*(iterate(it) for it in iterables)), MAX_SEQUENCE_LENGTH + 1))
        check_length(len(items))
        return items

    def _list(iterable=()):
        return materialize(iterable)

    def _tuple(iterable=()):
        return tuple(materialize(iterable, "a tuple"))

    def _len(value):
        if isinstance(value, SEQUENCE_TYPES) or isinstance(value, Tensor) \
                or getattr(value.__class__, "program_iterable", False):
            return len(value)
        raise ProgramTypeError(f"object of type '{type_name(value)}' has no len()")

    def _int(value=0, base=None):
        result = int(value) if base is None else int(value, as_int(base, "base"))
        if value.__class__ is str and result.bit_length() > MAX_INT_BITS:
            # as for a literal (SPEC 2.1): a number past 63 bits is a float, so that
            # `int("1" * 10**7, 2)` cannot make every later `%` scan ten million bits
            return float(result)
        return result

    def _str(value=""):
        check_printed(value)
        return str(value)

    def _repr(value):
        return repr(value)

    def _dict(iterable=(), **kwargs):
        if isinstance(iterable, dict):
            result = dict(iterable)
        else:
            result = dict(materialize(iterable, "a dict"))
        result.update(kwargs)
        return result

    def _set(iterable=()):
        return set(materialize(iterable, "a set"))

    def _callable_or_none(value):
        """A key= function: a program's own or a builtin, never a class or engine object."""
        from gradcli.lang.values import Closure

        if value is not None and value.__class__ not in (Builtin, Closure):
            raise ProgramTypeError(f"'{type_name(value)}' object is not callable")
        return value

    def _sorted(iterable, *, key=None, reverse=False):
        return sorted(materialize(iterable), key=_callable_or_none(key),
                      reverse=bool(reverse))

    def _reversed(sequence):
        if isinstance(sequence, Tensor):
            return functions["flip"](sequence, [0])
        if sequence.__class__ is dict or not isinstance(sequence, SEQUENCE_TYPES):
            raise ProgramTypeError(f"'{type_name(sequence)}' object is not reversible")
        return materialize(sequence)[::-1]

    def _any(iterable):
        return any(materialize(iterable))

    def _all(iterable):
        return all(materialize(iterable))

    classes = {float: float, bool: bool, _int: int, _str: str, _list: list, _tuple: tuple,
               _dict: dict, _set: set}
    for fn, cls in classes.items():   # print(int) is <class 'int'>, print(nn.Linear) PyTorch's path
        classnames.register(fn, cls.__name__)
    for fn, name in ((_range, "range"), (_enumerate, "enumerate"), (_zip, "zip")):
        classnames.register(fn, name)
    CLASS_NAME[0] = classnames.class_name

    def _class(info):
        if info.__class__ is Builtin and info.fn in classes:
            return classes[info.fn]
        if info.__class__ is Builtin and isinstance(info.fn, type):  # nn.Linear, optim.Optimizer
            return info.fn
        if info.__class__ is ProgramClass:
            return ProgramModule if info.is_module else ProgramObject
        if isinstance(info, type):  # the classes a program holds (Node has a metaclass)
            return info
        if info.__class__ is tuple:
            return tuple(_class(item) for item in info)
        raise ProgramTypeError("isinstance() arg 2 must be a type, a tuple of types, or a union")

    def _isinstance(obj, classinfo):
        infos = classinfo if classinfo.__class__ is tuple else (classinfo,)
        for info in infos:
            if info.__class__ is ProgramClass:  # a program's class: its instances and subclasses'
                if info is OBJECT:
                    return True
                if obj.__class__ in (ProgramModule, ProgramObject) \
                        and program_class(obj).is_subclass_of(info):
                    return True
            elif isinstance(obj, _class(info)):
                return True
        return False

    table = dict(functions)
    table.update(CONSTANTS)
    table.update({
        "print": print_fn,
        "range": _range,
        "len": _len,
        "float": float,
        "int": _int,
        "bool": bool,
        "str": _str,
        "abs": _hybrid("abs", abs),
        "min": _hybrid("min", _minmax(min)),
        "max": _hybrid("max", _minmax(max)),
        "sum": _hybrid("sum", _sum),
        "round": _hybrid("round", round),
        "enumerate": _enumerate,
        "zip": _zip,
        "list": _list,
        "tuple": _tuple,
        "dict": _dict,
        "set": _set,
        "repr": _repr,
        "sorted": _sorted,
        "reversed": _reversed,
        "any": _hybrid("any", _any),
        "all": _hybrid("all", _all),
        "isinstance": _isinstance,
        "super": make_super,
        "staticmethod": lambda fn: fn,
        "classmethod": ClassMethod,
        "property": Property,
        "object": OBJECT,
        "__name__": "__main__",  # a script's `if __name__ == "__main__":` runs its main
        "no_grad": tensor.no_grad,
        "enable_grad": tensor.enable_grad,
        "set_grad_enabled": tensor.set_grad_enabled,
        "Function": autograd.Function,
        "torch": modules["torch"],
        "nn": modules["torch.nn"],
        "F": modules["torch.nn.functional"],
        "autograd": modules["torch.autograd"],
        "optim": modules["torch.optim"],
    })
    table.update(EXCEPTION_TYPES)
    if "torch" in modules:  # torch.manual_seed (the one that returns its generator), unread
        from gradcli.lang.pymodules import manual_seed

        table["manual_seed"] = manual_seed
    return _wrap(table)  # the interpreter adds reflect.builtins (type, getattr...) to it
