"""Python's builtins that look at values: type, getattr/setattr/hasattr, callable, iter/next,
map/filter, slice and a few number builtins, each through the sandbox's own doors.

`getattr(obj, "name")` is `obj.name` read through the access policy (`access.py`),
with the same refusal of dunder names the lexer makes; `setattr` is `obj.name = v`
through the same policy. `type(v)` gives back a value the program already knows
(`int`, `torch.Tensor`, `nn.Linear`, a program's class), never a Python class: a
type the language has no name for is an opaque name that compares only with itself.
`iter(v)` wraps the language's own iteration (`sequences.iterate`) in a `ProgramIterator`,
which has no attributes; `next` reads it. The names Python has and gradcli refuses
(open, eval, exec, input, globals...) are in `unsupported.BUILTINS`, each with the reason.
"""
from __future__ import annotations


from gradcli.errors import CLASS_NAME, ProgramError, ProgramTypeError
from gradcli.lang.sequences import iterate
from gradcli.lang.values import Builtin, Closure, type_name

_MISSING = object()
_MISSING_ATTR = object()

class ProgramIterator:
    """What `iter(v)` gives: the language's iteration over v, read by `next` and `for`."""

    __slots__ = ("iterator",)
    program_iterable = True

    def __init__(self, iterator):
        self.iterator = iterator

    def __iter__(self):
        return self.iterator

    def __next__(self):
        return next(self.iterator)


ProgramIterator.__name__ = "iterator"


class OpaqueType:
    """`type(v)` for a value whose type the language does not name: compares with itself."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<class '{self.name}'>"


OpaqueType.__name__ = "type"
_TYPE = OpaqueType("type")


_MADE: dict = {}


def builtins(table: dict, modules: dict, access) -> dict:
    """The builtins below as Builtins, made once per process (for these namespaces)."""
    made = _MADE.get("table")
    if made is None or _MADE.get("modules") is not modules:
        made = {}
        for name, fn in make(table, modules, access).items():
            fn.__name__ = fn.__qualname__ = name  # so Python's messages say `getattr()`
            made[name] = Builtin(name, fn)
        _MADE.update(table=made, modules=modules)
    return made


def make(table: dict, modules: dict, access) -> dict:
    """The builtins, given the builtin table (for `type(1) is int`), the namespaces and the
    access policy (for getattr/setattr/hasattr)."""
    from gradcli._tensor import Tensor
    from gradcli.lang.classes import ProgramModule, ProgramObject, program_class
    from gradcli.lang.exceptions import EXCEPTION_CLASSES, RaisedError

    opaque: dict = {}
    by_type: dict = {}
    named_spaces: set = set()

    def named_types():
        if not by_type:
            python = {"int": int, "float": float, "bool": bool, "str": str, "list": list,
                      "tuple": tuple, "dict": dict, "set": set, "range": range,
                      "slice": slice}
            for name, cls in python.items():
                if name in table:
                    by_type[cls] = table[name]
            by_type[Tensor] = modules["torch"].members["Tensor"]
        # type(m), type(opt), type(sd): the class as the program names it (nn.Linear, ...), from
        # each namespace once a program has read it (none of its classes exists before)
        for space in ("torch.nn", "torch", "torch.optim", "torch.optim.lr_scheduler",
                      "torch.utils.data", "collections"):
            if space not in named_spaces and modules[space].loaded:
                named_spaces.add(space)
                for value in modules[space].members.values():
                    fn = getattr(value, "fn", None)
                    if isinstance(fn, type):
                        by_type.setdefault(fn, value)
        return by_type

    def _type(value):
        if value.__class__ in (ProgramModule, ProgramObject):
            return program_class(value)
        if value.__class__ is Builtin and CLASS_NAME[0](value.fn) is not None:
            return _TYPE   # type(nn.Linear): a class's type
        known = named_types().get(value.__class__)
        if known is not None:
            return known
        if value.__class__ in EXCEPTION_CLASSES:  # a class the program holds as itself
            return value.__class__
        name = type_name(value)
        if name not in opaque and len(opaque) < 256:
            opaque[name] = OpaqueType(name)
        return opaque.get(name) or OpaqueType(name)

    def _name(name):
        if name.__class__ is not str:
            raise ProgramTypeError(f"attribute name must be string, not '{type_name(name)}'")
        if name[:2] == "__" and name != "__name__":
            raise ProgramError(f"names that start and end with '__' are not allowed: '{name}'")
        return name

    def _getattr(obj, name, default=_MISSING):
        try:
            return access.getattr(obj, _name(name), None)
        except ProgramError as error:
            if default is _MISSING or not isinstance(error.__cause__, AttributeError):
                raise
            return default

    def _hasattr(obj, name):
        return _getattr(obj, name, _MISSING_ATTR) is not _MISSING_ATTR

    def _setattr(obj, name, value):
        access.setattr(obj, _name(name), value)

    def _callable(value):
        if value.__class__ is ProgramObject:
            return value._dunder("__call__") is not None
        return value.__class__ in (Builtin, Closure) or isinstance(value, access.callable_types)

    def _iter(value):
        if value.__class__ is ProgramIterator:
            return value
        return ProgramIterator(iterate(value))

    def _next(iterator, default=_MISSING):
        if iterator.__class__ is not ProgramIterator:
            raise ProgramTypeError(f"'{type_name(iterator)}' object is not an iterator")
        try:
            return next(iterator.iterator)
        except StopIteration:
            if default is _MISSING:
                raise RaisedError(StopIteration()) from None
            return default

    def _call(fn):
        if not _callable(fn):
            raise ProgramTypeError(f"'{type_name(fn)}' object is not callable")
        return fn

    def _map(fn, *iterables):
        fn = _call(fn)
        return ProgramIterator(fn(*items) for items in zip(*(iterate(it) for it in iterables)))

    def _filter(fn, iterable):
        test = bool if fn is None else _call(fn)
        return ProgramIterator(item for item in iterate(iterable) if test(item))

    def _slice(*args):
        return slice(*args)

    def _exit(code=None):
        raise ProgramError(f"the program called exit({'' if code is None else code!r})",
                           hint="gradcli runs a program to its end: exit() and sys.exit() "
                                "stop it with this error")

    def _divmod(a, b):
        return divmod(a, b)

    def _chr(i):
        return chr(i)

    def _ord(c):
        return ord(c)

    return {
        "type": _type, "getattr": _getattr, "hasattr": _hasattr, "setattr": _setattr,
        "callable": _callable, "iter": _iter, "next": _next, "map": _map, "filter": _filter,
        "slice": _slice, "exit": _exit, "quit": _exit, "divmod": _divmod, "chr": _chr,
        "ord": _ord,
    }




