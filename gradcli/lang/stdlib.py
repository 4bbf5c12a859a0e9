"""The standard modules scripts import, as small safe facades (like `math` in pymodules):
time, random, collections, itertools, functools, typing, dataclasses, __future__,
argparse, sys and warnings (whose filters are the running program's, gradcli.warn).

Each is a Namespace of functions that take and give the language's values only.
What gradcli chooses where Python's module touches the world: `time.time()` reads the
clock and `time.sleep` returns at once (a program does not wait); `random` is Python's
generator seeded with 0 at start-up (`random.seed(n)` reseeds it); `sys.argv` is
`['program.py']` and `parser.parse_args()` gives the defaults (a program has no command
line of its own); `sys.exit(code)` ends the program as Python's SystemExit does
(`lang.exceptions.ProgramExit`). Lazy results
(`itertools.product`, `map`) are ProgramIterators, taken at most MAX_SEQUENCE_LENGTH
at a time by `list()`; `itertools.count()` ends where the step budget does.
"""
from __future__ import annotations

import functools as _functools
import itertools as _itertools
import random as _random
import time as _time

from gradcli.errors import Builtin, ProgramTypeError, ProgramValueError
from gradcli.lang.classnames import register as register_class
from gradcli.ordered import OrderedDict
from gradcli.limits import register_container
from gradcli.lang.classes import LibraryMethod, ProgramClass, ProgramObject
from gradcli.lang.limits import MAX_SEQUENCE_LENGTH
from gradcli.lang.sequences import check_length, iterate, materialize
from gradcli.lang.values import Closure, Namespace, type_name

# The standard modules a program may import are `builtins.STANDARD_MODULES` (named there, so
# that the language starts without this module; the parser's IMPORTABLE_MODULES adds them).

_RANDOM = _random.Random(0)


def _ns(name: str, members: dict) -> Namespace:
    out = {}
    for key, value in members.items():
        if callable(value) and not isinstance(value, (Namespace, Builtin, ProgramClass)):
            value = Builtin(key, value)
        out[key] = value
    return Namespace(name, out)


def _iterator(gen):
    from gradcli.lang.reflect import ProgramIterator

    return ProgramIterator(gen)


def _callable(fn):
    """A function argument (a key, a factory, a reducer): any value the program holds that
    can be called (the sandbox hands a program nothing that is unsafe to call)."""
    if fn.__class__ in (Builtin, Closure) or (callable(fn) and not isinstance(fn, type)
                                               or fn in (int, float, str, list, dict)):
        return fn
    raise ProgramTypeError(f"'{type_name(fn)}' object is not callable")


# --- time -----------------------------------------------------------------------------

def _time_namespace():
    return _ns("time", {
        "time": _time.time, "perf_counter": _time.perf_counter, "monotonic": _time.monotonic,
        "process_time": _time.process_time, "sleep": lambda seconds: None,
        "time_ns": _time.time_ns, "perf_counter_ns": _time.perf_counter_ns,
    })


# --- random ---------------------------------------------------------------------------

def _shuffle(items):
    if items.__class__ is not list:
        raise ProgramTypeError("random.shuffle() takes a list")
    _RANDOM.shuffle(items)


def _sample(population, k):
    items = materialize(population)
    return _RANDOM.sample(items, k)


def _choices(population, weights=None, k=1):
    check_length(k)
    return _RANDOM.choices(materialize(population),
                           None if weights is None else materialize(weights), k=k)


def _random_namespace():
    return _ns("random", {
        "seed": lambda a=None: _RANDOM.seed(0 if a is None else a),
        "random": _RANDOM.random, "uniform": _RANDOM.uniform, "randint": _RANDOM.randint,
        "randrange": _RANDOM.randrange, "gauss": _RANDOM.gauss,
        "normalvariate": _RANDOM.normalvariate,
        "choice": lambda seq: _RANDOM.choice(materialize(seq)), "shuffle": _shuffle,
        "sample": _sample, "choices": _choices,
    })


# --- collections ----------------------------------------------------------------------

class DefaultDict(dict):
    """collections.defaultdict: a missing key gets the program's factory's value."""

    __slots__ = ("factory",)

    def __init__(self, factory=None, *args):
        super().__init__(*args)
        self.factory = None if factory is None else _callable(factory)

    def __missing__(self, key):
        if self.factory is None:
            raise KeyError(key)
        check_length(len(self) + 1, "a dict")
        value = self[key] = self.factory()
        return value


DefaultDict.__name__ = "defaultdict"


class Counter(dict):
    """collections.Counter: counts of the items of an iterable."""

    __slots__ = ()

    def __init__(self, iterable=()):
        super().__init__()
        if iterable.__class__ is dict:
            self.update(iterable)
        else:
            for item in materialize(iterable):
                self[item] = self.get(item, 0) + 1

    def __missing__(self, key):
        return 0

    def most_common(self, n=None):
        ranked = sorted(self.items(), key=lambda kv: kv[1], reverse=True)
        return ranked if n is None else ranked[:n]


# (OrderedDict, which state_dict() gives without this module, is registered by lang/access.py)
register_class(DefaultDict, "collections.defaultdict")
register_class(Counter, "collections.Counter")
register_container(DefaultDict)
register_container(Counter)


def _collections_namespace():
    return _ns("collections", {
        "OrderedDict": OrderedDict, "defaultdict": DefaultDict, "Counter": Counter,
    })


# --- itertools ------------------------------------------------------------------------

def _product(*iterables, repeat=1):
    pools = [tuple(materialize(it)) for it in iterables] * repeat
    return _iterator(_itertools.product(*pools))


def _itertools_namespace():
    return _ns("itertools", {
        "product": _product,
        "chain": lambda *its: _iterator(_itertools.chain(*(iterate(it) for it in its))),
        "count": lambda start=0, step=1: _iterator(_itertools.count(start, step)),
        "islice": lambda it, *args: _iterator(_itertools.islice(iterate(it), *args)),
        "permutations": lambda it, r=None: _iterator(_itertools.permutations(materialize(it), r)),
        "combinations": lambda it, r: _iterator(_itertools.combinations(materialize(it), r)),
        "repeat": lambda obj, times=None: _iterator(_itertools.repeat(
            obj, MAX_SEQUENCE_LENGTH + 1 if times is None else times)),
        "zip_longest": lambda *its, fillvalue=None: _iterator(_itertools.zip_longest(
            *(iterate(it) for it in its), fillvalue=fillvalue)),
        "accumulate": lambda it, func=None, initial=None: _iterator(_itertools.accumulate(
            iterate(it), None if func is None else _callable(func), initial=initial)),
        "cycle": lambda it: _iterator(_itertools.cycle(materialize(it))),
    })


# --- functools ------------------------------------------------------------------------

def _partial(fn, *args, **kwargs):
    fn = _callable(fn)
    return Builtin("partial", lambda *more, **kw: fn(*args, *more, **{**kwargs, **kw}))


def _reduce(fn, iterable, *initial):
    return _functools.reduce(_callable(fn), iterate(iterable), *initial)


def _identity_decorator(fn=None, **kwargs):
    """lru_cache / cache / wraps: the function itself (gradcli does not memoize)."""
    if fn is None or not callable(fn) or kwargs:
        return Builtin("decorator", lambda f: f)
    return fn


def _functools_namespace():
    return _ns("functools", {
        "partial": _partial, "reduce": _reduce, "lru_cache": _identity_decorator,
        "cache": _identity_decorator, "wraps": lambda wrapped: Builtin("wraps", lambda f: f),
    })


# --- typing, __future__ ---------------------------------------------------------------

class TypingName:
    """`typing.List`, `Optional[int]`...: annotations a program writes and gradcli ignores."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __getitem__(self, item):
        return self

    def __repr__(self) -> str:
        return f"typing.{self.name}"


TypingName.__name__ = "typing"
TypingName.program_iterable = False
TypingName.program_items = True

_TYPING = ("Any", "List", "Tuple", "Dict", "Set", "Optional", "Union", "Callable", "Iterable",
           "Iterator", "Sequence", "Mapping", "Type", "TypeVar", "Generic", "Literal",
           "NamedTuple", "Final", "ClassVar", "Protocol", "FrozenSet")


def _typing_namespace():
    members = {name: TypingName(name) for name in _TYPING}
    members["TYPE_CHECKING"] = False
    members["cast"] = lambda typ, value: value
    return _ns("typing", members)


def _future_namespace():
    return Namespace("__future__", {name: True for name in (
        "annotations", "division", "print_function", "absolute_import", "unicode_literals",
        "generator_stop", "nested_scopes", "with_statement")})


# --- dataclasses ----------------------------------------------------------------------

class Field:
    """`dataclasses.field(default=..., default_factory=...)`: what a field starts as."""

    __slots__ = ("default", "factory")

    def __init__(self, default, factory):
        self.default, self.factory = default, factory

    def __repr__(self) -> str:
        return "Field(default={!r}, default_factory={!r})".format(self.default, self.factory)


_MISSING = object()


def _field(*, default=_MISSING, default_factory=_MISSING, init=True, repr=True, hash=None,
           compare=True, metadata=None, kw_only=_MISSING):
    if default is not _MISSING and default_factory is not _MISSING:
        raise ProgramValueError("cannot specify both default and default_factory")
    return Field(default, _MISSING if default_factory is _MISSING else _callable(default_factory))


def dataclass(cls=None, **options):
    """@dataclass on a program's plain class: an __init__ taking its fields (the body's
    `x: int` and `x: int = 3` names, in order; those with a value default to it, a
    `field(default_factory=f)` to a new f() each time) and a repr."""
    if cls is None:
        return Builtin("dataclass", lambda c: dataclass(c))
    if cls.__class__ is not ProgramClass or cls.is_module:
        raise ProgramTypeError("@dataclass applies to a program's plain class")
    fields = list(cls.fields)
    defaults, factories = {}, {}
    for name in fields:
        if name not in cls.attributes:
            if defaults or factories:
                raise ProgramTypeError(f"non-default argument '{name}' follows default argument")
            continue
        value = cls.attributes[name]
        if value.__class__ is Field:
            if value.factory is not _MISSING:
                factories[name] = value.factory
                del cls.attributes[name]
                continue
            if value.default is _MISSING:
                if defaults or factories:
                    raise ProgramTypeError(f"non-default argument '{name}' follows default argument")
                del cls.attributes[name]
                continue
            value = cls.attributes[name] = value.default
        defaults[name] = value
    required = [name for name in fields if name not in defaults and name not in factories]

    def init(self, *args, **kwargs):
        if len(args) > len(fields):
            takes = len(fields) + 1 if len(required) == len(fields) else \
                f"from {len(required) + 1} to {len(fields) + 1}"
            raise ProgramTypeError(f"{cls.name}.__init__() takes {takes} positional "
                                   f"arguments but {len(args) + 1} were given")
        values = dict(zip(fields, args))
        for key, value in kwargs.items():
            if key not in fields:
                raise ProgramTypeError(f"{cls.name}.__init__() got an unexpected keyword "
                                       f"argument '{key}'")
            if key in values:
                raise ProgramTypeError(f"{cls.name}.__init__() got multiple values for argument "
                                       f"'{key}'")
            values[key] = value
        missing = [name for name in required if name not in values]
        if missing:
            names = " and ".join(", ".join(repr(m) for m in missing).rsplit(", ", 1))
            raise ProgramTypeError(f"{cls.name}.__init__() missing {len(missing)} required positional "
                                   f"argument{'s' if len(missing) > 1 else ''}: {names}")
        for name in fields:
            if name in values:
                self.attrs[name] = values[name]
            elif name in defaults:
                self.attrs[name] = defaults[name]
            else:
                self.attrs[name] = factories[name]()

    def text(self):
        inner = ", ".join(f"{name}={self.attrs.get(name)!r}" for name in fields)
        return f"{cls.name}({inner})"

    cls.methods.setdefault("__init__", LibraryMethod(init))
    cls.methods.setdefault("__repr__", LibraryMethod(text))
    return cls


def _dataclasses_namespace():
    return _ns("dataclasses", {
        "dataclass": dataclass,
        "field": _field,
        "asdict": lambda obj: dict(obj.attrs) if obj.__class__ is ProgramObject else
        _not_dataclass(obj),
    })


def _not_dataclass(obj):
    raise ProgramTypeError("asdict() should be called on dataclass instances")


# --- argparse -------------------------------------------------------------------------

def _parser_init(self, *args, **kwargs):
    self.attrs["_defaults"] = {}


def _dest(names, dest):
    if dest is not None:
        return dest
    longs = [name for name in names if name.startswith("--")]
    name = (longs or list(names))[0]
    return name.lstrip("-").replace("-", "_")


def _add_argument(self, *names, **kwargs):
    """Records the argument's default: parse_args() gives every argument its default."""
    if not names or any(name.__class__ is not str for name in names):
        raise ProgramTypeError("add_argument() takes the argument's names as strings")
    dest = _dest(names, kwargs.get("dest"))
    action = kwargs.get("action")
    if "default" in kwargs:
        default = kwargs["default"]
    elif action == "store_true":
        default = False
    elif action == "store_false":
        default = True
    elif not names[0].startswith("-") and kwargs.get("nargs") not in ("?", "*"):
        raise ProgramValueError(f"the positional argument '{names[0]}' has no default: a gradcli "
                                f"program has no command line", hint="give it default=...")
    else:
        default = None
    kind = kwargs.get("type")
    if kind is not None and default.__class__ is str:
        default = _callable(kind)(default)
    self.attrs["_defaults"][dest] = default


def _parse_args(self, args=None, namespace=None):
    result = ProgramObject(NAMESPACE)
    result.attrs.update(self.attrs["_defaults"])
    return result


NAMESPACE = ProgramClass("Namespace", None, {}, {}, is_module=False)
ARGUMENT_PARSER = ProgramClass("ArgumentParser", None, {
    "__init__": LibraryMethod(_parser_init),
    "add_argument": LibraryMethod(_add_argument),
    "parse_args": LibraryMethod(_parse_args),
    "parse_known_args": LibraryMethod(lambda self, args=None: (_parse_args(self), [])),
    "add_argument_group": LibraryMethod(lambda self, *args, **kwargs: self),
    "set_defaults": LibraryMethod(lambda self, **kwargs: self.attrs["_defaults"].update(kwargs)),
}, {}, is_module=False)


register_class(NAMESPACE, "argparse.Namespace")
register_class(ARGUMENT_PARSER, "argparse.ArgumentParser")


def _argparse_namespace():
    return _ns("argparse", {"ArgumentParser": ARGUMENT_PARSER, "Namespace": NAMESPACE,
                            # formatter_class= values, ignored
                            "ArgumentDefaultsHelpFormatter": "ArgumentDefaultsHelpFormatter",
                            "RawTextHelpFormatter": "RawTextHelpFormatter"})


# --- sys ------------------------------------------------------------------------------

def _exit(code=None):
    """sys.exit: ends the program as Python's SystemExit does (`lang.exceptions.ProgramExit`)."""
    from gradcli.lang.exceptions import ProgramExit

    raise ProgramExit(code)


def _sys_namespace():
    import sys

    return _ns("sys", {
        "argv": ["program.py"], "exit": _exit, "maxsize": sys.maxsize,
        "version": sys.version.split()[0], "platform": "gradcli",
    })


# --- warnings -------------------------------------------------------------------------
# The running program's channel (gradcli.warn) holds the filters; a program sees only these
# functions, and the text of what they print is the program's own.


def _channel():
    from gradcli.warn import Channel

    return Channel.running[0]


def _category(category, default=UserWarning):
    if category is None:
        return default
    if not (isinstance(category, type) and issubclass(category, Warning)):
        raise ProgramTypeError(f"category must be a Warning subclass, not '{type_name(category)}'")
    return category


def _warn(message, category=None, stacklevel=1, source=None, *, skip_file_prefixes=()):
    """warnings.warn: shown at the place of the call, as the engine's warnings are."""
    from gradcli.warn import warn

    if isinstance(message, Warning):
        category, message = type(message), str(message)
    warn(str(message), _category(category))


def _filter(add):
    def fn(*args, **kwargs):
        channel = _channel()
        try:
            add(channel, *args, **kwargs)
        except (TypeError, ValueError) as exc:
            raise (ProgramTypeError if isinstance(exc, TypeError) else ProgramValueError)(str(exc)) from None
    return fn


def _filterwarnings(channel, action, message="", category=Warning, module="", lineno=0, append=False):
    channel.add_filter(action, message, _category(category, Warning), lineno, bool(append))


def _simplefilter(channel, action, category=Warning, lineno=0, append=False):
    channel.add_filter(action, "", _category(category, Warning), lineno, bool(append))


class CatchWarnings:
    """warnings.catch_warnings(): the filters a `with` block sets are undone at its end."""

    __slots__ = ("saved", "action", "category")

    def __init__(self, *, record=False, module=None, action=None, category=Warning, lineno=0, append=False):
        if record:
            raise ProgramValueError("catch_warnings(record=True) is not supported in gradcli: a "
                                    "program's warnings go to standard error only")
        self.saved = None
        self.action, self.category = action, _category(category, Warning)

    def __enter__(self):
        channel = _channel()
        self.saved = list(channel.filters)
        if self.action is not None:
            _filter(_simplefilter)(self.action, self.category)
        return None

    def __exit__(self, *exc):
        _channel().filters = self.saved
        return False


CatchWarnings.__name__ = "catch_warnings"


def _warnings_namespace():
    return _ns("warnings", {
        "warn": _warn, "filterwarnings": _filter(_filterwarnings),
        "simplefilter": _filter(_simplefilter),
        "resetwarnings": lambda: _channel().reset(), "catch_warnings": CatchWarnings,
    })


_FACADES = {
    "time": _time_namespace, "random": _random_namespace, "collections": _collections_namespace,
    "itertools": _itertools_namespace, "functools": _functools_namespace,
    "typing": _typing_namespace, "__future__": _future_namespace,
    "dataclasses": _dataclasses_namespace, "argparse": _argparse_namespace, "sys": _sys_namespace,
    "warnings": _warnings_namespace,
}


def members(name: str) -> dict:
    """The members of the standard module `name` (one of `builtins.STANDARD_MODULES`): made when a program
    first reads it (`lang/builtins.py` makes the lazy namespaces without importing this)."""
    return _FACADES[name]().members
