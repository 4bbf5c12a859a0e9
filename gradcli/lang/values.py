"""The values a program handles besides numbers, strings, lists, tuples and tensors.

Each is a small class whose only behaviour is the one the language gives it:
a `Builtin` is a function from the builtin table, a `Closure` a user `def` or
`lambda`, a `Namespace` stands for `torch`, `torch.nn`, `F`... (never a Python
module); `torch.float32` and friends are `gradcli.dtypes.dtype`s. No other Python object is
handed to a program, and these expose no attributes of their own: every
attribute a program reads goes through the interpreter's tables.
"""
from __future__ import annotations

from gradcli.errors import Builtin, type_name  # noqa: F401  (the language imports them from here)
from gradcli.limits import budget as _budget, limited


class Closure:
    """A user function (`def` or `lambda`) with the scope it was defined in.

    Callable from Python, so the engine can call it back (hooks, `jacobian`,
    `gradcheck`, a custom Function's forward and backward).
    """

    __slots__ = ("interpreter", "node", "name", "params", "body", "defaults", "scope", "locals",
                 "is_lambda")

    def __init__(self, interpreter, node, name, params, body, defaults, scope, local_names,
                 is_lambda):
        self.interpreter = interpreter
        self.node = node
        self.name = name
        self.params = params
        self.body = body
        self.defaults = defaults
        self.scope = scope
        self.locals = local_names
        self.is_lambda = is_lambda

    def __call__(self, *args, **kwargs):
        interpreter = self.interpreter
        if _budget.limits is None and interpreter.limits is not None:
            # called back after its run (a library caller's backward through a program's
            # custom Function or hook): under that run's limits, as during it
            with limited(interpreter.limits):
                return interpreter.call_closure(self, args, kwargs, None)
        return interpreter.call_closure(self, args, kwargs, None)

    def __repr__(self) -> str:
        return f"<function {self.name}>"


class Namespace:
    """`torch`, `torch.nn`, `torch.nn.functional`, ...: a name and a table of members.

    A namespace given `make` instead of `members` makes them on the first read: `torch.nn`
    imports every layer, and a program that never reads it should not pay for that at start."""

    __slots__ = ("name", "_members", "_make")

    def __init__(self, name: str, members: dict | None = None, make=None):
        self.name = name
        self._members = members
        self._make = make

    @property
    def members(self) -> dict:
        members = self._members
        if members is None:
            members = self._members = self._make()
            self._make = None
        return members

    @property
    def loaded(self) -> bool:
        """Whether the members are made (a lazy namespace's, once read)."""
        return self._members is not None

    def __repr__(self) -> str:
        return f"<module '{self.name}'>"


class Scope:
    """The variables of the module or of one call: `vars`, the enclosing `parent`
    (lexically), and `locals`, the names a def body binds (None for the module)."""

    __slots__ = ("vars", "parent", "locals")

    def __init__(self, variables: dict, parent: "Scope | None", local_names):
        self.vars = variables
        self.parent = parent
        self.locals = local_names


# Python's own messages name a value's type (`unsupported operand type(s) for +: 'float' and
# 'Builtin'`): give these classes the names a program knows them by.
Builtin.__name__ = "builtin_function_or_method"
Closure.__name__ = "function"
Namespace.__name__ = "module"


class Printer:
    """`print`'s output: complete lines go to `emit` (and `lines`) as they are finished."""

    def __init__(self, emit):
        self.emit = emit
        self.lines: list[str] = []
        self.pending = ""

    def write(self, text: str) -> None:
        text = self.pending + text
        *complete, self.pending = text.split("\n")
        for line in complete:
            self.lines.append(line)
            self.emit(line)

    def flush(self) -> None:
        if self.pending:
            line, self.pending = self.pending, ""
            self.lines.append(line)
            self.emit(line)
