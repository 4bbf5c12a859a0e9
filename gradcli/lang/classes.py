"""A program's `class Net(nn.Module):` and plain `class SGD:`, without making a Python class
the program controls.

`class Net(nn.Module)` binds a `ProgramClass`: a name, its base (nn.Module or
another ProgramClass), its methods (Closures) and plain class attributes.
Calling it makes a `ProgramModule`, one fixed library class (a Module) that
carries the program's methods: `forward`, `extra_repr` and any other method
run as Closures bound to the instance (`BoundMethod`). No Python type is ever
made from a program, so no dunder a program writes is ever a Python one; the
program reads and writes attributes only through the access policy
(`access.py`: `read_module`, `Access.setattr`).

A plain class (`class SGD:`, `class Data(Dataset):`) makes a `ProgramObject`:
one fixed library class holding the program's attributes in a dict. Of Python's
data model it answers only `len()`, `obj[i]`, `obj(...)`, iteration, `str()`/`repr()`
(the program's `__len__`, `__getitem__`, `__call__`, `__iter__`/`__next__`,
`__repr__`/`__str__`: DUNDER_METHODS), so a program's dunder is called by the
data model and never read or reached any other way.

`@staticmethod`, `@classmethod` and `@property` in a class body wrap the Closure
in `StaticMethod`, `ClassMethod`, `Property`: `member_of` says what reading the
name on an instance or on the class gives.

`super()` inside a method is a `SuperProxy` over the instance and the class
whose method is running (the top of `METHOD_STACK`).
"""
from __future__ import annotations

from gradcli.errors import CLASS_NAME, GradcliError, ProgramError, ProgramTypeError
from gradcli.lang import classnames
from gradcli.lang.values import Builtin, Closure
from gradcli.nn.modules.module import Module

# The dunder methods a program's plain class may define: what Python's data model calls.
DUNDER_METHODS = frozenset({"__init__", "__len__", "__getitem__", "__call__", "__iter__",
                            "__next__", "__repr__", "__str__"})

# (instance, class) of the program methods running, innermost last: what super() means.
METHOD_STACK: list = []


class StaticMethod:
    """`@staticmethod def f(...)`: the function itself, on the class and on an instance."""

    __slots__ = ("closure",)

    def __init__(self, closure):
        self.closure = closure


class ClassMethod(StaticMethod):
    """`@classmethod def f(cls, ...)`: bound to the class, on the class and on an instance."""

    __slots__ = ()


class Property(StaticMethod):
    """`@property def f(self)`: reading `obj.f` calls it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<property object>"


StaticMethod.__name__ = "staticmethod"
ClassMethod.__name__ = "classmethod"
Property.__name__ = "property"


class ProgramClass:
    """A program's class: `Net(...)` makes an instance and runs its `__init__`. A Module
    subclass's instances are ProgramModules, a plain class's ProgramObjects."""

    __slots__ = ("name", "base", "methods", "attributes", "is_module", "fields")
    program_value = True  # a value of the language, never wrapped as a Builtin

    def __init__(self, name: str, base, methods: dict, attributes: dict, is_module: bool = True,
                 fields: list | None = None):
        self.name = name
        self.base = base  # a ProgramClass, or None for nn.Module (or object, a plain class)
        self.methods = methods
        self.attributes = attributes
        # the body's `x: int` and `x = ...` names in order (@dataclass's fields)
        self.fields = list(attributes) if fields is None else fields
        self.is_module = base.is_module if base is not None else is_module

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
        owner, init = self.find("__init__")
        if not self.is_module:
            instance = ProgramObject(self)
            if init is None:
                if args or kwargs:
                    raise ProgramTypeError(f"{self.name}() takes no arguments")
            elif init.__class__ is Closure:
                BoundMethod(instance, owner, init)(*args, **kwargs)
            else:
                init(instance, *args, **kwargs)  # a library base's __init__ (TensorDataset)
            return instance
        instance = ProgramModule.__new__(ProgramModule)
        instance.__dict__["_program_class"] = self
        instance.__dict__["_attrs"] = {}
        if init is None:
            Module.__init__(instance, *args, **kwargs)
        else:
            BoundMethod(instance, owner, init)(*args, **kwargs)
        return instance

    def read(self, attr: str):
        """`Cls.attr`: a class attribute, a method (the function), a static method's function,
        a class method bound to the class; MISSING if the class has no such member."""
        owner, member = self.find(attr)
        if owner is None:
            return MISSING
        cls = member.__class__
        if cls is StaticMethod:
            return member.closure
        if cls is ClassMethod:
            return BoundMethod(self, owner, member.closure)
        return member

    def __repr__(self) -> str:
        # a program's class as Python names it; the library's (DataLoader) as PyTorch does
        return f"<class '{CLASS_NAME[0](self) or '__main__.' + self.name}'>"


ProgramClass.__name__ = "type"
MISSING = object()
OBJECT = ProgramClass("object", None, {}, {}, is_module=False)  # `class A(object):`, `object()`
classnames.register(OBJECT, "object")


def member_of(instance, cls: ProgramClass, attr: str):
    """What `instance.attr` gives of its class's members: a method bound to the instance,
    a property's value, a static method's function, a class attribute; MISSING if none."""
    owner, member = cls.find(attr)
    if owner is None:
        return MISSING
    kind = member.__class__
    if kind is Closure:
        return BoundMethod(instance, owner, member)
    if kind is Property:
        return BoundMethod(instance, owner, member.closure)()
    if kind is StaticMethod:
        return member.closure
    if kind is ClassMethod:
        return BoundMethod(cls, owner, member.closure)
    if kind is LibraryMethod:
        return Builtin(attr, lambda *args, **kwargs: member.fn(instance, *args, **kwargs))
    return member


class LibraryMethod:
    """A method of a library-made ProgramClass (torch.utils.data's TensorDataset): Python,
    called with the instance first."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, instance, *args, **kwargs):
        return self.fn(instance, *args, **kwargs)


class ProgramObject:
    """An instance of a program's plain class: its attributes in `attrs`, its methods the
    class's; Python's data model reaches only the DUNDER_METHODS the program defined."""

    __slots__ = ("program_class", "attrs", "__weakref__")
    program_iterable = True  # iterate(), len(), obj[i]: through the program's dunders
    program_items = True  # obj[i] passes any index to the program's __getitem__

    def __init__(self, cls: ProgramClass):
        self.program_class = cls
        self.attrs = {}

    def _dunder(self, name: str):
        owner, member = self.program_class.find(name)
        if owner is None:
            return None
        if member.__class__ is Closure:
            return BoundMethod(self, owner, member)
        if member.__class__ is LibraryMethod:
            return lambda *args, **kwargs: member.fn(self, *args, **kwargs)
        return None

    def _get_name(self) -> str:
        return self.program_class.name

    def __len__(self):
        method = self._dunder("__len__")
        if method is None:
            raise TypeError(f"object of type '{self.program_class.name}' has no len()")
        value = method()
        if value.__class__ is not int and not isinstance(value, int):
            raise ProgramTypeError(f"'{type(value).__name__}' object cannot be interpreted as "
                                   "an integer")
        if value < 0:
            raise ProgramError("__len__() should return >= 0")
        return int(value)

    def __getitem__(self, index):
        method = self._dunder("__getitem__")
        if method is None:
            raise ProgramTypeError(f"'{self.program_class.name}' object is not subscriptable")
        return method(index)

    def __call__(self, *args, **kwargs):
        method = self._dunder("__call__")
        if method is None:
            raise ProgramTypeError(f"'{self.program_class.name}' object is not callable")
        return method(*args, **kwargs)

    def __iter__(self):
        method = self._dunder("__iter__")
        if method is not None:
            from gradcli.lang.sequences import iterate

            value = method()
            if value.__class__ is ProgramObject and value._dunder("__next__") is not None:
                return _next_calls(value._dunder("__next__"))
            return iterate(value)
        if self._dunder("__getitem__") is None:
            raise ProgramTypeError(f"'{self.program_class.name}' object is not iterable")
        return _items(self)

    def __next__(self):
        method = self._dunder("__next__")
        if method is None:
            raise ProgramTypeError(f"'{self.program_class.name}' object is not an iterator")
        try:
            return method()
        except GradcliError as error:
            if _raised(error, StopIteration):
                raise StopIteration from None
            raise

    def __repr__(self) -> str:
        method = self._dunder("__repr__")
        if method is None:
            return f"<__main__.{self.program_class.name} object>"
        return _text(method(), "__repr__")

    def __str__(self) -> str:
        method = self._dunder("__str__")
        return self.__repr__() if method is None else _text(method(), "__str__")


ProgramObject.__name__ = "object"


def _text(value, name: str) -> str:
    if value.__class__ is not str:
        raise ProgramTypeError(f"{name} returned non-string (type {type(value).__name__})")
    return value


def _raised(error, kind) -> bool:
    from gradcli.lang.exceptions import python_exception

    return isinstance(python_exception(error), kind)


def _next_calls(method):
    """Iteration by `__next__` calls, until the program raises StopIteration."""
    while True:
        try:
            item = method()
        except GradcliError as error:
            if _raised(error, StopIteration):
                return
            raise
        yield item


def _items(obj):
    """Python's old iteration protocol: obj[0], obj[1], ... until IndexError."""
    index = 0
    while True:
        try:
            item = obj[index]
        except GradcliError as error:
            if _raised(error, IndexError):
                return
            raise
        yield item
        index += 1


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
            value = member_of(self.instance, base, attr)
            if value is not MISSING:
                return value
        if not self.owner.is_module:
            if attr == "__init__":
                return lambda: None  # object.__init__
            return None
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
                or not isinstance(args[1], (ProgramModule, ProgramObject)) \
                or not program_class(args[1]).is_subclass_of(args[0]):
            raise ProgramTypeError("super(type, obj): obj must be an instance or subtype of type")
        return SuperProxy(args[1], args[0])
    if not METHOD_STACK:
        raise ProgramError("super(): no arguments", hint="super() works inside a method of a class")
    instance, owner = METHOD_STACK[-1]
    return SuperProxy(instance, owner)


def program_class(obj):
    """The ProgramClass of a program's instance (a ProgramModule or a ProgramObject)."""
    if obj.__class__ is ProgramObject:
        return obj.program_class
    return obj.__dict__["_program_class"]


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
