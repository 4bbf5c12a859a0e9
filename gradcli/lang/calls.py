"""The interpreter's call machinery: calling functions, lambdas, classes and builtins,
binding arguments to parameters, and defining the functions and classes that are called.

`Calls` is a part of `Interpreter` (its base class), kept in its own file; it uses the
interpreter's `eval`, `exec_block`, `step`, `scope` and budget. The control signals
(BREAK, CONTINUE, RETURN) are here because a call is where RETURN ends.
"""
from __future__ import annotations

import types

from gradcli import _tensor
import gradcli.autograd as _autograd
from gradcli.errors import GradcliError, ProgramError, ProgramTypeError
# the span every node made from now on records (`set_current_source`, without its call)
from gradcli.graph.nodes import _current_source
from gradcli.lang import access as _access, nodes as n
from gradcli.lang.builtins import materialize
from gradcli.lang.classes import (DUNDER_METHODS, ClassMethod, ProgramClass, Property,
                                  StaticMethod, module_base)
from gradcli.lang.limits import MAX_CALL_DEPTH, MAX_SEQUENCE_LENGTH
from gradcli.lang.pymodules import check_device
from gradcli.lang.values import Builtin, Closure, Scope, type_name
from gradcli.limits import budget as _budget, check_walk

Tensor = _tensor.Tensor
_GradMode = _tensor._GradMode
Function = _autograd.Function

_SIZED = frozenset({list, tuple, str, dict, range, set})
# Builtins that look at a sequence without walking it: their arguments are not charged.
_NO_WALK = frozenset({"len", "isinstance", "type", "bool", "id", "iter", "enumerate", "zip",
                      "reversed", "range"})
# Python errors that mean "bad arguments" when a builtin or an operator raises them.
_PYTHON_ERRORS = (TypeError, ValueError, LookupError, ArithmeticError, RecursionError)
_MISSING = object()


class _Signal:
    """What a statement returns to stop the enclosing block: break, continue, return."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


BREAK, CONTINUE, RETURN = _Signal("break"), _Signal("continue"), _Signal("return")


def _length(value) -> int:
    try:
        return len(value)
    except OverflowError:  # range(10**20)
        return MAX_SEQUENCE_LENGTH


class Calls:
    """The interpreter's calls and definitions (see the module's docstring)."""

    def _call(self, node):
        func = node.func
        if func.__class__ is n.Name:  # `sin(x)`: read inline as `_name` reads it (a call less)
            scope = self.scope
            func = scope.vars.get(func.id, _MISSING)
            if func is _MISSING:
                if scope.parent is None and scope.locals is None:  # the module: then the builtins
                    func = self.builtins.get(node.func.id, _MISSING)
                if func is _MISSING:
                    func = self._name(node.func)
        else:
            func = self.eval(func)
        if func.__class__ is Builtin and len(node.args) == 1 and not node.keywords:
            arg = node.args[0]
            if arg.__class__ is n.Name:
                value = self.scope.vars.get(arg.id, _MISSING)
                if value is _MISSING:
                    value = self._name(arg)
            elif arg.__class__ is not n.Starred:
                value = self.eval_plain(arg)
            else:
                value = _MISSING
            if value.__class__ is Tensor:
                return self._tensor_call(func, value, node.span)
            if value is not _MISSING:
                return self.call(func, [value], {}, node.span)
        args = []
        for arg in node.args:
            if arg.__class__ is n.Name:
                value = self.scope.vars.get(arg.id, _MISSING)
                args.append(self._name(arg) if value is _MISSING else value)
            elif arg.__class__ is n.Starred:
                value = self.eval(arg.value)
                try:
                    args.extend(materialize(value, "an argument list"))
                except GradcliError as error:
                    raise error.at(arg.span)
            else:
                args.append(self.eval_plain(arg))
        kwargs = {}
        for keyword in node.keywords:
            kwargs[keyword.name] = self.eval_plain(keyword.value)
        return self.call(func, args, kwargs, node.span)

    def call(self, func, args, kwargs, span):
        """Call a value the language lets a program call."""
        cls = func.__class__
        if cls is Closure:
            return self.call_closure(func, args, kwargs, span)
        if cls is Builtin:
            fn, name = func.fn, func.name
        elif isinstance(func, self.access.callable_types):
            fn, name = func, type(func).__name__
        elif isinstance(func, type) and func in _access.CALLABLE_CLASSES:   # (Tensor: a metaclass)
            fn, name = _access.CONSTRUCTORS.get(func, func), func.__name__
        elif isinstance(func, type) and issubclass(func, Function):
            raise ProgramTypeError(f"'{func.__name__}' is a Function class: call it as "
                                   f"{func.__name__}.apply(...)", span)
        else:
            raise ProgramTypeError(f"'{type_name(func)}' object is not callable", span)
        self.set_source(span)
        try:
            if kwargs and "device" in kwargs:
                check_device(kwargs["device"])
            for arg in args if name not in _NO_WALK else ():
                if arg.__class__ in _SIZED:
                    # a builtin may walk it all (print, str, sum, sorted, tensor): charged
                    # first, shared parts in full, and refused if nested too deeply
                    if arg.__class__ is range:
                        _budget.charge_items(_length(arg))
                    else:
                        check_walk(arg)
            result = fn(*args, **kwargs)
            if result.__class__ in _SIZED:  # (a Tensor, the common result, is charged by its op)
                self.charge(result)
        except GradcliError as error:
            raise error.at(span)
        except _PYTHON_ERRORS as exc:
            raise self.fail(exc, span, name) from None
        except AttributeError as exc:
            error = _not_a_tensor(exc, name, args, kwargs, span)
            if error is None:
                raise  # a bug in gradcli
            raise error from None
        if isinstance(result, types.FunctionType) and isinstance(func, _GradMode):
            return Builtin(getattr(args[0], "name", "function"), result)  # a decorated def
        return result

    def _tensor_call(self, func, arg, span):
        """`call` of a builtin on one Tensor (`sin(x)`), without what only other arguments
        need: no keywords, nothing to charge before the call, no decorator to wrap."""
        self.span = span
        _current_source[0] = span
        try:
            result = func.fn(arg)
        except GradcliError as error:
            raise error.at(span)
        except _PYTHON_ERRORS as exc:
            raise self.fail(exc, span, func.name) from None
        except AttributeError as exc:
            error = _not_a_tensor(exc, func.name, [arg], {}, span)
            if error is None:
                raise  # a bug in gradcli
            raise error from None
        if result.__class__ in _SIZED:  # (a Tensor, the common result, is charged by its op)
            self.charge(result)
        return result

    def call_closure(self, closure: Closure, args, kwargs, span):
        self.step(span)
        if self.call_depth >= MAX_CALL_DEPTH:
            raise ProgramError("maximum recursion depth exceeded", span,
                               hint=f"calls may nest at most {MAX_CALL_DEPTH} deep")
        scope = Scope(self._bind_arguments(closure, args, kwargs, span), closure.scope,
                      closure.locals)
        saved = self.scope
        self.scope = scope
        self.call_depth += 1
        try:
            if closure.is_lambda:
                self.budget.work += self.costs.get(id(closure.node), 1)
                return self.eval(closure.body)
            signal = self.exec_block(closure.body)
            if signal is RETURN:
                value, self.return_value = self.return_value, None
                return value
            return None
        except RecursionError:
            raise ProgramError("maximum recursion depth exceeded", span or self.span,
                               hint="the program nests calls or expressions too deeply") from None
        finally:
            self.call_depth -= 1
            self.scope = saved

    def _bind_arguments(self, closure: Closure, args, kwargs, span) -> dict:
        """Python's rules for matching arguments to parameters, with Python's messages."""
        params = closure.params
        name = closure.name
        positional = params.args
        values = {}
        if len(args) > len(positional) and params.vararg is None:
            given = len(args)
            expected = len(positional)
            plural = "" if expected == 1 else "s"
            raise ProgramTypeError(f"{name}() takes {expected} positional argument{plural} but "
                                   f"{given} {'was' if given == 1 else 'were'} given", span)
        for param, value in zip(positional, args):
            values[param.name] = value
        if params.vararg is not None:
            values[params.vararg] = tuple(args[len(positional):])
        if kwargs:
            names = {p.name for p in positional} | {p.name for p in params.kwonly}
            for key, value in kwargs.items():
                if key not in names:
                    raise ProgramTypeError(f"{name}() got an unexpected keyword argument '{key}'", span)
                if key in values:
                    raise ProgramTypeError(f"{name}() got multiple values for argument '{key}'", span)
                values[key] = value
        missing = []
        for param in positional:
            if param.name not in values:
                default = closure.defaults.get(param.name, _MISSING)
                if default is _MISSING:
                    missing.append(param.name)
                else:
                    values[param.name] = default
        if missing:
            listed = " and ".join(f"'{m}'" for m in missing) if len(missing) <= 2 else \
                ", ".join(f"'{m}'" for m in missing[:-1]) + f", and '{missing[-1]}'"
            plural = "" if len(missing) == 1 else "s"
            raise ProgramTypeError(f"{name}() missing {len(missing)} required positional "
                                   f"argument{plural}: {listed}", span)
        for param in params.kwonly:
            if param.name not in values:
                default = closure.defaults.get(param.name, _MISSING)
                if default is _MISSING:
                    raise ProgramTypeError(f"{name}() missing 1 required keyword-only argument: "
                                           f"'{param.name}'", span)
                values[param.name] = default
        return values

    def _lambda(self, node):
        defaults = self._defaults(node.params)
        return Closure(self, node, "<lambda>", node.params, node.body, defaults, self.scope,
                       frozenset(node.params.names()), True)

    def _defaults(self, params: n.Params) -> dict:
        defaults = {}
        for param in params.args + params.kwonly:
            if param.default is not None:
                defaults[param.name] = self.eval(param.default)
        return defaults

    def _def(self, node):
        closure = Closure(self, node, node.name, node.params, node.body,
                          self._defaults(node.params), self.scope, node.locals, False)
        self._bind(node.name, self._decorate(closure, node.decorators))

    def _decorate(self, value, decorators: list):
        for decorator in reversed(decorators):
            function = self.eval(decorator)
            if function.__class__ is Builtin and function.name == "staticmethod":
                continue
            if function.__class__ is Builtin and isinstance(function.fn, type) \
                    and issubclass(function.fn, _GradMode):
                function = function.fn()  # `@torch.no_grad` without parentheses
            value = self.call(function, [value], {}, decorator.span)
        return value

    def _class(self, node):
        bases = [self.eval(base) for base in node.bases]
        if not bases:
            return self._module_class(node, None, is_module=False)  # a plain class
        base = module_base(bases[0]) if len(bases) == 1 else False
        if base is not False:
            return self._module_class(node, base)
        if len(bases) != 1 or bases[0] is not Function:
            raise ProgramError("only subclasses of autograd.Function may be defined", node.span,
                               hint=f"class {node.name}(torch.autograd.Function): with "
                                    "@staticmethod forward(ctx, ...) and backward(ctx, grad)")
        _check_no_decorators(node)
        members = {}
        for stmt in node.body:
            if stmt.__class__ is n.FunctionDef:
                if stmt.name not in _access.FUNCTION_METHODS:
                    raise ProgramError(f"a Function class defines only forward and backward, "
                                       f"not '{stmt.name}'", stmt.span)
                members[stmt.name] = staticmethod(self._method(node, stmt))
            elif _is_filler(stmt):
                continue
            else:
                raise ProgramError("a Function class body may only define forward and backward",
                                   stmt.span)
        members["__module__"] = "gradcli.program"
        members["__qualname__"] = node.name
        self._bind(node.name, type(node.name, (Function,), members))

    def _module_class(self, node, base, is_module=True):
        """`class Net(nn.Module):`, a plain `class SGD:` or a subclass of a program's class: a
        ProgramClass of Closures and plain class attributes, never a Python class
        (`gradcli.lang.classes`)."""
        plain = not (base.is_module if isinstance(base, ProgramClass) else is_module)
        if base is not None and not isinstance(base, ProgramClass):
            raise ProgramError(f"a program class may derive from nn.Module or from another "
                               f"program class, not from nn.{base.__name__}", node.span,
                               hint=f"hold the layer instead: self.layer = nn.{base.__name__}(...)")
        if not plain:
            _check_no_decorators(node)
        methods, attributes, fields = {}, {}, []
        for stmt in node.body:
            if stmt.__class__ is n.FunctionDef:
                if stmt.name.startswith("__") and stmt.name != "__init__" \
                        and not (plain and stmt.name in DUNDER_METHODS):
                    if plain:
                        raise ProgramError(f"a class may define methods without leading '__' "
                                           f"and {', '.join(sorted(DUNDER_METHODS))}, not "
                                           f"'{stmt.name}'", stmt.span)
                    raise ProgramError(f"a Module class may define __init__ and methods without "
                                       f"leading '__', not '{stmt.name}'", stmt.span,
                                       hint="forward(self, ...) is what calling the module runs")
                methods[stmt.name] = self._class_method(node, stmt)
            elif stmt.__class__ is n.Assign and len(stmt.targets) == 1 \
                    and stmt.targets[0].__class__ is n.Name \
                    and not stmt.targets[0].id.startswith("__"):
                name = stmt.targets[0].id
                attributes[name] = self.eval(stmt.value)
                if name not in fields:
                    fields.append(name)
            elif stmt.__class__ is n.Pass and stmt.field is not None and not stmt.field.startswith("__"):
                if stmt.field not in fields:
                    fields.append(stmt.field)
            elif _is_filler(stmt):
                continue
            else:
                raise ProgramError(f"a {'' if plain else 'Module '}class body may only define "
                                   "methods and name = value class attributes", stmt.span)
        cls = ProgramClass(node.name, base, methods, attributes, not plain, fields)
        for decorator in reversed(node.decorators):  # a plain class's (@dataclass)
            cls = self.call(self.eval(decorator), [cls], {}, decorator.span)
        self._bind(node.name, cls)

    def _class_method(self, class_node, stmt):
        """A method of a program's class: @staticmethod, @classmethod and @property (the
        innermost decorators) mark it; any other decorator is called on it as in Python."""
        closure = Closure(self, stmt, f"{class_node.name}.{stmt.name}", stmt.params, stmt.body,
                          self._defaults(stmt.params), self.scope, stmt.locals, False)
        decorators = list(stmt.decorators)
        if not decorators:
            return closure
        marker = self.eval(decorators[-1])
        kind = _MARKERS.get(marker.name) if marker.__class__ is Builtin else None
        if kind is None:
            return self._decorate(closure, decorators)
        if len(decorators) > 1:
            raise ProgramError(f"@{marker.name} is supported as a method's only decorator",
                               decorators[0].span)
        return kind(closure)

    def _method(self, class_node, stmt):
        """A method of a program's class (a Function's or a Module's): its Closure, decorated."""
        closure = Closure(self, stmt, f"{class_node.name}.{stmt.name}", stmt.params, stmt.body,
                          self._defaults(stmt.params), self.scope, stmt.locals, False)
        return self._decorate(closure, stmt.decorators)


_MARKERS = {"staticmethod": StaticMethod, "classmethod": ClassMethod, "property": Property}


def _is_filler(stmt) -> bool:
    """`pass` or a docstring in a class body: nothing to define."""
    return stmt.__class__ is n.Pass or (stmt.__class__ is n.ExprStmt
                                        and stmt.value.__class__ is n.Str)


def _check_no_decorators(node) -> None:
    if node.decorators:
        raise ProgramError("class decorators are not supported", node.decorators[0].span)


def _not_a_tensor(exc: AttributeError, name: str, args, kwargs, span):
    """PyTorch's TypeError for a function that read a tensor attribute of a Python value the
    program passed it (`unbind([[1., 2.]])`); None if the attribute belonged to anything else."""
    obj = getattr(exc, "obj", _MISSING)
    if isinstance(obj, Tensor) or obj is _MISSING:
        return None
    for position, arg in enumerate(args, 1):
        if arg is obj:
            return ProgramTypeError(f"{name}(): argument {position} must be Tensor, not "
                                    f"{type_name(obj)}", span)
    for key, arg in kwargs.items():
        if arg is obj:
            return ProgramTypeError(f"{name}(): argument '{key}' must be Tensor, not "
                                    f"{type_name(obj)}", span)
    return None
