"""A program's `class Net(nn.Module):`, without making a Python class the program controls.

`class Net(nn.Module)` binds a `ProgramClass`: a name, its base (nn.Module or
another ProgramClass), its methods (Closures) and plain class attributes.
Calling it makes a `ProgramModule`, one fixed library class (a Module) that
carries the program's methods: `forward`, `extra_repr` and any other method
run as Closures bound to the instance (`BoundMethod`). No Python type is ever
made from a program, so no dunder a program writes is ever a Python one; the
program reads and writes attributes only through the access policy
(`access.py`: `read_module`, `Access.setattr`).

`super()` inside a method is a `SuperProxy` over the instance and the class
whose method is running (the top of `METHOD_STACK`).
"""
from __future__ import annotations

from gradcli.errors import ProgramError, ProgramTypeError
from gradcli.lang.values import Builtin, Closure
from gradcli.nn.modules import Module

# (instance, class) of the program methods running, innermost last: what super() means.
METHOD_STACK: list = []


class ProgramClass:
    """A program's Module subclass: `Net(...)` makes an instance and runs its `__init__`."""

    __slots__ = ("name", "base", "methods", "attributes")

    def __init__(self, name: str, base, methods: dict, attributes: dict):
        self.name = name
        self.base = base  # a ProgramClass, or None for nn.Module
        self.methods = methods
        self.attributes = attributes

    def find(self, name: str):
        """(the class defining `name`, the method or class attribute), or (None, None)."""
        cls = self
        while cls is not None:
            if name in cls.methods:
                return cls, cls.methods[name]
            if name in cls.attributes:
                return cls, cls.attributes[name]
            cls = cls.base
        return None, None

    def is_subclass_of(self, other) -> bool:
        cls = self
        while cls is not None:
            if cls is other:
                return True
            cls = cls.base
        return False

    def __call__(self, *args, **kwargs):
        instance = ProgramModule.__new__(ProgramModule)
        instance.__dict__["_program_class"] = self
        instance.__dict__["_attrs"] = {}
        owner, init = self.find("__init__")
        if init is None:
            Module.__init__(instance, *args, **kwargs)
        else:
            BoundMethod(instance, owner, init)(*args, **kwargs)
        return instance

    def __repr__(self) -> str:
        return f"<class '{self.name}'>"


ProgramClass.__name__ = "type"


class BoundMethod:
    """A program method bound to an instance: calling it runs the Closure with self first."""

    __slots__ = ("instance", "owner", "closure")

    def __init__(self, instance, owner: ProgramClass, closure):
        self.instance = instance
        self.owner = owner
        self.closure = closure

    def __call__(self, *args, **kwargs):
        METHOD_STACK.append((self.instance, self.owner))
        try:
            return self.closure(self.instance, *args, **kwargs)
        finally:
            METHOD_STACK.pop()

    def __repr__(self) -> str:
        return f"<bound method {self.closure.name} of {self.instance._get_name()}>"


BoundMethod.__name__ = "method"


class ProgramModule(Module):
    """An instance of a program's Module subclass: a Module whose methods are the program's."""

    def _program_method(self, name: str):
        owner, member = self.__dict__["_program_class"].find(name)
        if owner is None or not _is_closure(member):
            return None
        return BoundMethod(self, owner, member)

    def forward(self, *args, **kwargs):
        method = self._program_method("forward")
        if method is None:
            return Module.forward(self, *args, **kwargs)
        return method(*args, **kwargs)

    def extra_repr(self) -> str:
        method = self._program_method("extra_repr")
        return "" if method is None else str(method())

    def _get_name(self) -> str:
        return self.__dict__["_program_class"].name

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__ and not isinstance(value, Module) \
                and not _is_parameter(value):
            self.__dict__["_attrs"][name] = value
            return
        Module.__setattr__(self, name, value)


ProgramModule.__name__ = "Module"  # Python's messages name it ('+' of 'Module' and 'int')


class SuperProxy:
    """`super()` in a method: the base's methods (the program's, then nn.Module's)."""

    __slots__ = ("instance", "owner")

    def __init__(self, instance, owner: ProgramClass):
        self.instance = instance
        self.owner = owner

    def read(self, attr: str, allowed: frozenset):
        base = self.owner.base
        if base is not None:
            owner, member = base.find(attr)
            if owner is not None:
                return BoundMethod(self.instance, owner, member) if _is_closure(member) else member
        if attr == "__init__":
            return lambda *args, **kwargs: Module.__init__(self.instance, *args, **kwargs)
        if attr in allowed:
            method = getattr(Module, attr)
            return lambda *args, **kwargs: method(self.instance, *args, **kwargs)
        return None

    def __repr__(self) -> str:
        return f"<super: <class '{self.owner.name}'>, <{self.owner.name} object>>"


SuperProxy.__name__ = "super"


def make_super(*args):
    """`super()` (the running method's class and instance) or `super(Class, self)`."""
    if args:
        if len(args) != 2 or not isinstance(args[0], ProgramClass) \
                or not isinstance(args[1], ProgramModule) \
                or not args[1].__dict__["_program_class"].is_subclass_of(args[0]):
            raise ProgramTypeError("super(type, obj): obj must be an instance or subtype of type")
        return SuperProxy(args[1], args[0])
    if not METHOD_STACK:
        raise ProgramError("super(): no arguments", hint="super() works inside a method of a "
                                                          "class derived from nn.Module")
    instance, owner = METHOD_STACK[-1]
    return SuperProxy(instance, owner)


def module_base(value):
    """What a class statement's base means: a ProgramClass, None for nn.Module itself, a
    library Module subclass (refused by the interpreter), or False (not a module base)."""
    if isinstance(value, ProgramClass):
        return value
    fn = value.fn if value.__class__ is Builtin else None
    if isinstance(fn, type) and issubclass(fn, Module):
        return None if fn is Module else fn
    return False


def _is_closure(value) -> bool:
    return value.__class__ is Closure


def _is_parameter(value) -> bool:
    from gradcli.ops.factories import Parameter

    return isinstance(value, Parameter)
