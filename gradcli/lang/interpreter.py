"""The interpreter: runs a parsed program on gradcli's engine.

A tree walker that dispatches on node type through two tables (expressions,
statements) and refuses everything else. Names resolve only through the
program's own scopes and the builtin table (`gradcli.lang.builtins`);
attributes, item assignment and calls of engine objects only through the
access policy (`gradcli.lang.access`), so no Python object other than the
language's values ever reaches a program.

Before applying each operator or call it tells the engine where in the file
the op is (`set_current_source`), so each graph node knows its line:col; an
engine error passing by gets the span of the innermost expression being
evaluated. Loop iterations and user calls are counted against `max_steps`,
user call depth against MAX_CALL_DEPTH.

Calls and definitions (functions, lambdas, classes, argument binding) are in
`calls.py`, the base class `Calls`; the binary operators' hot path in `binops.py` (`BinOps`);
the arithmetic of plain values in `arithmetic.py`.
"""
from __future__ import annotations

import operator
import re

from gradcli.ops import dual as _dual
from gradcli.errors import (GradcliError, LimitError, NameNotFound, ProgramError, close_matches,
                            ProgramTypeError, ProgramValueError)
from gradcli.lang import access as _access, foreign as _foreign, nodes as n
from gradcli.lang.exceptions import RaisedError, python_exception
from gradcli.lang.pymodules import check_array_index, numpy_operands
from gradcli.lang.arithmetic import (_BINARY, _check_sequence_arithmetic, _int_arithmetic,
                                     _number_power, _numeric_shape, _to_float)
from gradcli.lang.binops import BinOps, tensor_operators
from gradcli.lang.calls import (BREAK, CONTINUE, RETURN, _MISSING, _PYTHON_ERRORS, _SIZED, Calls,
                                _length)
from gradcli.lang.builtins import (SEQUENCE_TYPES, check_length, check_printed, iterate,
                                   make_builtins, make_modules)
from gradcli.lang.limits import CAUGHT_ERROR_WORK, MAX_FORMAT_WIDTH, MAX_SEQUENCE_LENGTH, Limits
from gradcli.limits import budget as _budget, check_built, check_walk
from gradcli.lang.values import Printer, Scope, type_name
from gradcli.lang import reflect as _reflect
from gradcli.lang.strings import percent_format
from gradcli.lang.unsupported import builtin_refusal

import numpy as np

from gradcli import ops as _ops
from gradcli import _tensor as _tensor
from gradcli.graph import nodes as _graph

Tensor = _tensor.Tensor
as_int = _tensor.as_int

_INPLACE = {
    "+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
    "//": operator.ifloordiv, "%": operator.imod, "@": operator.imatmul, "**": operator.ipow,
    "&": operator.iand, "|": operator.ior, "^": operator.ixor,
}
_COMPARE = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
    "is": operator.is_, "is not": operator.is_not,
    "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
}
def _xor_hint(error, op: str, left):
    """`x ^ 2` on a float is most often a power written as in maths: say so."""
    if op == "^" and error.hint is None and (left.__class__ is float or isinstance(left, Tensor)):
        error.hint = "write ** for a power (x ** 2); ^ is Python's bitwise xor"
    return error


_UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert}
_ORDERING = frozenset({"<", "<=", ">", ">=", "==", "!="})
_NUMBERS = (int, float, bool)
# Operands for which `+ - * /` need none of `binary`'s checks (int with int does: a
# result past MAX_INT_BITS becomes a float).
_set_current_source = _graph.set_current_source


def _charge_scan(item, container) -> None:
    """Charge `item in container` before it runs: a hash of `item` for a dict or set, a
    scan comparing it with every item otherwise (a range scans unless `item` is an int)."""
    cls = container.__class__
    if cls is range:
        if item.__class__ is not int and item.__class__ is not bool:
            _budget.charge_items(_length(container))
    elif cls is dict or cls is set:
        check_walk(item)
    elif cls in _SIZED:
        check_walk(container)
_ndarray = np.ndarray


_FORMAT_NUMBER = re.compile(r"\d+")


MAX_NOTED_LEAVES = 10_000      # leaves noted by the name they were first bound to (`x (2:1)`)
MAX_NOTED_ELEMENTS = 10 ** 7   # ... and their elements, which the notes keep alive


class Interpreter(Calls, BinOps):
    """Runs one program once: its module scope, step counter and printed lines.

    It stays usable after the run: the engine may call the program's closures
    later (a hook or a custom Function's backward, during the CLI's backward).
    """

    def __init__(self, program, overrides: dict, requires_grad, emit, limits: Limits,
                 script: bool):
        self.program = program
        self.overrides = overrides
        self.limits = limits   # a re-run (jacobian --mode forward) runs under the same limits
        self.requires_grad = frozenset(requires_grad)
        self.script = script  # Python's literals (a PyTorch program, or `gradcli run`)
        self.run_command = False  # `gradcli run` (Program.run sets it)
        # every leaf that requires grad first bound to a top-level name: [(name, span, tensor)], each
        # tensor once, so that a leaf whose name is reassigned is still reported by it
        self.first_bindings: list = []
        self._bound_leaves: set = set()
        self.noted_elements = 0
        self.max_steps = limits.max_steps
        self.steps = 0
        # the work budget (gradcli.limits): tokens run here, tensor ops and scans charged
        # by the engine and the value walks, all in one counter
        self.budget = _budget
        self.costs = program.module.costs
        self.call_depth = 0
        self.printer = Printer(emit)
        self.modules = make_modules()
        self.builtins = make_builtins(self.modules, self._make_print())
        self.builtins.update(_reflect.builtins(self.builtins, self.modules,
                                               _access.policy(self.modules)))
        self.module_scope = Scope({}, None, None)
        self.scope = self.module_scope
        self.span = None  # the span last given to the engine
        self.return_value = None
        self.last_assigned: str | None = None
        self.access = _access.policy(self.modules)
        self.getattr = self.access.getattr
        self.readers = self.access.readers
        self._eval = {
            n.Num: self._num, n.Str: self._str, n.Constant: self._constant,
            n.FString: self._fstring, n.Name: self._name, n.Attribute: self._attribute,
            n.Subscript: self._subscript, n.Call: self._call, n.BinOp: self._binop,
            n.UnaryOp: self._unaryop, n.BoolOp: self._boolop, n.Compare: self._compare,
            n.IfExp: self._ifexp, n.Lambda: self._lambda, n.ListExpr: self._list,
            n.TupleExpr: self._tuple, n.DictExpr: self._dict, n.SetExpr: self._set,
            n.Comprehension: self._comprehension,
        }
        self._exec = {
            n.ExprStmt: self._expr_stmt, n.Assign: self._assign, n.AugAssign: self._augassign,
            n.Import: self._import, n.ImportFrom: self._import_from, n.If: self._if,
            n.While: self._while, n.For: self._for, n.With: self._with,
            n.FunctionDef: self._def, n.ClassDef: self._class, n.Return: self._return,
            n.Pass: self._pass, n.Break: self._break, n.Continue: self._continue,
            n.Assert: self._assert, n.Try: self._try, n.Raise: self._raise,
        }
        self.handling: list = []  # the errors the `except` blocks being run caught (bare `raise`)
        tensor_operators()

    # --- running -----------------------------------------------------------

    def run_module(self, module: n.Module):
        """Execute the program; returns (final expression statement or None, its value)."""
        body = module.body
        last = body[-1] if body else None
        for stmt in body:
            if stmt is last and stmt.__class__ is n.ExprStmt:
                return stmt, self.eval(stmt.value)
            self._exec[stmt.__class__](stmt)
        return None, None

    def exec_block(self, body: list):
        costs = self.costs
        budget = self.budget
        for stmt in body:
            budget.work += costs.get(id(stmt), 1)
            signal = self._exec[stmt.__class__](stmt)
            if signal is not None:
                return signal
        return None

    def eval(self, node: n.Node):
        return self._eval[node.__class__](node)

    def eval_plain(self, node: n.Node):
        """Evaluate, keeping a list literal a Python list (call arguments, for-iterables,
        subscripts: `reshape(x, [2, 3])`, `for v in [0.1, 0.2]`)."""
        if node.__class__ is n.ListExpr:
            return self._plain_list(node)
        return self._eval[node.__class__](node)

    def step(self, span) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise LimitError(f"the program ran more than {self.max_steps} steps "
                             "(loop iterations plus function calls)", span,
                             hint="raise the limit with --max-steps")
        if self.budget.work > self.budget.max_work:
            raise self.budget.exhausted().at(span)

    def charge(self, value) -> None:
        """Count a Python sequence a program made, by what it costs against running a
        token: 1 per 32 items (the engine charged a tensor before making it)."""
        if value.__class__ in _SIZED and value.__class__ is not range:  # (a range is lazy)
            length = len(value)
            check_length(length, f"a {type(value).__name__}")
            self.budget.work += length >> 5

    def set_source(self, span) -> None:
        self.span = span
        _graph.set_current_source(span)

    def fail(self, exc: Exception, span, what: str | None = None) -> ProgramError:
        """A ProgramError for a Python error a builtin or an operator raised on bad arguments."""
        if isinstance(exc, RecursionError):
            error = ProgramError("maximum recursion depth exceeded", span,
                                 hint="the value is nested too deeply")
        else:
            cls = ProgramTypeError if isinstance(exc, TypeError) else \
                ProgramValueError if isinstance(exc, ValueError) else ProgramError
            message = str(exc) or type(exc).__name__
            if isinstance(exc, KeyError):
                message = f"key {message} not found"
            elif isinstance(exc, ZeroDivisionError) and what is None:
                message = "division by zero"
            elif what and what not in message:
                message = f"{what}(): {message}"
            error = cls(message, span)
        error.__cause__ = exc
        return error

    # --- expressions ----------------------------------------------------------

    def _num(self, node):
        """A number literal: in the expression commands, of the default floating dtype (SPEC 2.1)."""
        value = node.value
        return value if self.script or value.__class__ is not int else float(value)

    def _str(self, node):
        return node.value

    def _constant(self, node):
        return node.value

    def _name(self, node):
        name = node.id
        scope = self.scope
        while scope is not None:
            value = scope.vars.get(name, _MISSING)
            if value is not _MISSING:
                return value
            if scope.locals is not None and name in scope.locals:
                raise ProgramError(f"local variable '{name}' referenced before assignment", node.span)
            scope = scope.parent
        value = self.builtins.get(name, _MISSING)
        if value is _MISSING:
            raise self.unknown_name(name, node.span)
        return value

    def unknown_name(self, name: str, span) -> NameNotFound:
        known = set(self.builtins)
        scope = self.scope
        while scope is not None:
            known.update(scope.vars)
            scope = scope.parent
        refused = builtin_refusal(name)
        if refused is not None:
            return NameNotFound(refused, span, hint=_foreign.name_hint(name))

        def hint():  # made only if the error is shown (a caught one is not)
            given = _foreign.name_hint(name)
            close = close_matches(name, sorted(known), n=1) if given is None else None
            return given or (f"did you mean '{close[0]}'?" if close else None)

        return NameNotFound(f"unknown name '{name}'", span, hint=hint)

    def _attribute(self, node):
        try:
            obj = self.eval(node.value)
        except NameNotFound as error:  # `np.sin`: the hint names torch.sin
            if node.value.__class__ is n.Name:
                error.hint = _foreign.name_hint(node.value.id, node.attr) or error.hint
            raise
        if obj.__class__ is Tensor:
            self.set_source(node.span)  # an attribute that runs an op (`x.T`) makes its node here
        reader = self.readers.get(obj.__class__)  # the access policy's table (exact types)
        if reader is not None:
            return reader(obj, node.attr, node.span)
        return self.getattr(obj, node.attr, node.span)

    def _subscript(self, node):
        obj = self.eval(node.value)
        index = self._index(node.index)
        self.set_source(node.span)
        return self.getitem(obj, index, node.span)

    def getitem(self, obj, index, span):
        if getattr(obj.__class__, "program_iterable", False):  # Sequential, ModuleList, ModuleDict
            return self._module_item(obj, index, span)
        if not (isinstance(obj, Tensor) or isinstance(obj, SEQUENCE_TYPES)
                or obj.__class__ is _ndarray):
            raise ProgramTypeError(f"'{type_name(obj)}' object is not subscriptable", span)
        if not isinstance(obj, (Tensor, dict, _ndarray)):
            index = _access.sequence_index(index, span)
        try:
            if obj.__class__ is _ndarray:
                check_array_index(obj, index)
            elif obj.__class__ is dict:
                check_walk(index)  # hashed
            return obj[index]
        except GradcliError as error:
            raise error.at(span)
        except _PYTHON_ERRORS as exc:
            raise self.fail(exc, span) from None

    def _module_item(self, obj, index, span):
        if not isinstance(index, (str, slice)) and not getattr(obj.__class__, "program_items", False):
            index = _access.sequence_index(index, span)
        try:
            return obj[index]
        except GradcliError as error:
            raise error.at(span)
        except _PYTHON_ERRORS as exc:
            raise self.fail(exc, span) from None

    def _index(self, node):
        if node.__class__ is n.TupleExpr:
            return tuple(self._index_item(item) for item in node.elts)
        return self._index_item(node)

    def _index_item(self, node):
        if node.__class__ is n.Slice:
            return slice(*(None if part is None else self._slice_bound(part)
                           for part in (node.lower, node.upper, node.step)))
        value = self.eval_plain(node)
        if value.__class__ is float and value.is_integer():
            return int(value)
        return value

    def _slice_bound(self, node):
        value = self.eval(node)
        if value is None:
            return None
        try:
            return as_int(value, "a slice index")
        except GradcliError as error:
            raise error.at(node.span)

    def binary(self, op: str, left, right, span, inplace: bool = False):
        self.set_source(span)
        try:
            if left.__class__ is int and right.__class__ is int:
                return _int_arithmetic(op, left, right)
            if op == "**" and left.__class__ in _NUMBERS and right.__class__ in _NUMBERS:
                return _number_power(left, right)
            if left.__class__ is _ndarray or right.__class__ is _ndarray:
                left, right = numpy_operands(op, left, right)
            elif op in ("*", "+") and (isinstance(left, (list, tuple, str))
                                       or isinstance(right, (list, tuple, str))):
                left, right = _check_sequence_arithmetic(op, left, right)
            elif op == "%" and left.__class__ is str:
                return percent_format(left, right)  # widths checked, as f-strings' are
            result = (_INPLACE if inplace else _BINARY)[op](left, right)
            self.charge(result)
            return result
        except GradcliError as error:
            raise _xor_hint(error.at(span), op, left)
        except _PYTHON_ERRORS as exc:
            raise _xor_hint(self.fail(exc, span), op, left) from None

    def _unaryop(self, node):
        value = self.eval(node.operand)
        if node.op == "not":
            return not self.truth(value, node.span)
        self.set_source(node.span)
        try:
            return _UNARY[node.op](value)
        except GradcliError as error:
            raise error.at(node.span)
        except _PYTHON_ERRORS as exc:
            raise self.fail(exc, node.span) from None

    def truth(self, value, span) -> bool:
        if value.__class__ is bool:
            return value
        try:
            return bool(value)
        except GradcliError as error:
            raise error.at(span)
        except _PYTHON_ERRORS as exc:
            raise self.fail(exc, span) from None

    def _boolop(self, node):
        # as Python: the last operand is the result as it is, never tested for truth
        # (`None or x` with a tensor x of several elements is x, not an error)
        *first, last = node.values
        stop_when = node.op == "or"
        for value_node in first:
            value = self.eval(value_node)
            if self.truth(value, value_node.span) is stop_when:
                return value
        return self.eval(last)

    def _compare(self, node):
        left = self.eval(node.left)
        last = len(node.ops) - 1
        for i, (op, comparator, span) in enumerate(zip(node.ops, node.comparators, node.spans)):
            right = self.eval(comparator)
            self.set_source(span)
            try:
                if op == "in" or op == "not in":
                    _charge_scan(left, right)
                elif (left.__class__ in _SIZED or right.__class__ in _SIZED) \
                        and op != "is" and op != "is not":
                    check_walk(left)
                    check_walk(right)
                if left.__class__ is _ndarray or right.__class__ is _ndarray:
                    if op in _ORDERING:
                        left, right = numpy_operands(op, left, right)
                    elif op == "in" or op == "not in":
                        numpy_operands("==", left, right)  # `x in a` compares x with all of a
                result = _COMPARE[op](left, right)
            except GradcliError as error:
                raise error.at(span)
            except _PYTHON_ERRORS as exc:
                raise self.fail(exc, span) from None
            if i == last or not self.truth(result, span):
                return result
            left = right
        return result

    def _ifexp(self, node):
        if self.truth(self.eval(node.test), node.span):
            return self.eval(node.body)
        return self.eval(node.orelse)

    def _plain_list(self, node) -> list:
        items = []
        for element in node.elts:
            items.append(self._plain_list(element) if element.__class__ is n.ListExpr
                         else self.eval(element))
        return items

    def _list(self, node):
        items = self._plain_list(node)
        if self.script or not items:
            return self._built(items, node.span)
        shape = _numeric_shape(items)
        if shape is None:
            # holds tensors or other values: a Python list (`[w]`, `stack([a, b])`)
            return self._built(items, node.span)
        if shape is False:
            raise ProgramValueError("a list literal of numbers must be rectangular (this one is "
                                    "ragged)", node.span)
        return self._make_tensor(items, node.span)

    def _make_tensor(self, value, span, requires_grad: bool = False):
        make = _ops.FUNCTIONS["tensor"]
        self.set_source(span)
        try:
            return make(_to_float(value), requires_grad=requires_grad)
        except GradcliError as error:
            raise error.at(span)
        except _PYTHON_ERRORS as exc:
            raise self.fail(exc, span, "tensor") from None

    def _tuple(self, node):
        return self._built(tuple([self.eval(element) for element in node.elts]), node.span)

    @staticmethod
    def _built(value, span):
        """A container a literal built, refused if it nests too deeply."""
        try:
            check_built(value)
        except GradcliError as error:
            raise error.at(span)
        return value

    def _dict(self, node):
        result = {}
        for key_node, value_node in zip(node.keys, node.values):
            key = self.eval(key_node)
            try:
                check_walk(key)  # hashed
                result[key] = self.eval(value_node)
            except TypeError as exc:
                raise self.fail(exc, key_node.span) from None
            except GradcliError as error:
                raise error.at(key_node.span)
        return self._built(result, node.span)

    def _set(self, node):
        result = set()
        for element in node.elts:
            value = self.eval(element)
            try:
                check_walk(value)  # hashed
                result.add(value)
            except TypeError as exc:
                raise self.fail(exc, element.span) from None
            except GradcliError as error:
                raise error.at(element.span)
        return self._built(result, node.span)

    def _comprehension(self, node):
        """A comprehension, in its own scope; a generator expression is made a list at once."""
        first = self.eval_plain(node.generators[0].iter)
        result = {} if node.kind == "dict" else set() if node.kind == "set" else []
        saved = self.scope
        self.scope = Scope({}, saved, node.locals)
        try:
            self._clauses(node, 0, first, result)
        finally:
            self.scope = saved
        self.charge(result)
        return self._built(result, node.span)

    def _clauses(self, node, level: int, iterable, result):
        clause = node.generators[level]
        span = clause.iter.span
        self.set_source(span)
        try:
            iterator = iterate(iterable)
        except GradcliError as error:
            raise error.at(span)
        cost = self.costs.get(id(node), 1)
        innermost = level == len(node.generators) - 1
        kind = node.kind
        while True:
            self.set_source(span)
            try:
                item = next(iterator, _MISSING)
            except GradcliError as error:
                raise error.at(span)
            except RuntimeError as exc:  # a dict changed size during iteration
                raise self.fail(exc, span) from None
            if item is _MISSING:
                return
            self.step(clause.span)
            self.budget.work += cost
            self.store(clause.target, item)
            if not all(self.truth(self.eval(test), test.span) for test in clause.ifs):
                continue
            if not innermost:
                self._clauses(node, level + 1, self.eval_plain(node.generators[level + 1].iter),
                              result)
                continue
            if len(result) >= MAX_SEQUENCE_LENGTH:
                try:
                    check_length(len(result) + 1, f"a {'list' if kind == 'generator' else kind}")
                except GradcliError as error:
                    raise error.at(node.span)
            try:
                if kind == "dict":
                    key = self.eval(node.key)
                    result[key] = self.eval(node.elt)
                elif kind == "set":
                    result.add(self.eval(node.elt))
                else:
                    result.append(self.eval(node.elt))
            except TypeError as exc:  # an unhashable key
                if isinstance(exc, GradcliError):
                    raise
                raise self.fail(exc, node.elt.span) from None

    def _fstring(self, node) -> str:
        out = []
        for part in node.parts:
            if part.__class__ is str:
                out.append(part)
                continue
            value = self.eval(part.value)
            spec = self._fstring(part.spec) if part.spec is not None else ""
            for number in _FORMAT_NUMBER.findall(spec):
                if len(number) > 6 or int(number) > MAX_FORMAT_WIDTH:
                    raise LimitError(f"format width or precision {number} is too large "
                                     f"(at most {MAX_FORMAT_WIDTH})", part.span,
                                     hint="a limit of the language (not catchable); it is fixed")
            try:
                check_walk(value)
                check_printed(value)
                if part.conversion == "r":
                    value = repr(value)
                elif part.conversion == "s":
                    value = str(value)
                elif part.conversion == "a":
                    value = ascii(value)
                out.append(format(value, spec))
            except GradcliError as error:
                raise error.at(part.span)
            except _PYTHON_ERRORS as exc:
                raise self.fail(exc, part.span) from None
        text = "".join(out)
        check_length(len(text), "a string")
        self.budget.work += len(text) >> 5
        return text

    def _make_print(self):
        printer = self.printer

        def print(*args, sep=" ", end="\n"):
            if sep is None:
                sep = " "
            if end is None:
                end = "\n"
            if not isinstance(sep, str) or not isinstance(end, str):
                raise ProgramTypeError("print(): sep and end must be strings")
            for arg in args:
                check_printed(arg)
            printer.write(sep.join(str(arg) for arg in args) + end)

        print.__qualname__ = "print"
        return print

    # --- statements ---------------------------------------------------------

    def _expr_stmt(self, node):
        self.eval(node.value)

    def _assign(self, node):
        site = self.program.input_sites.get(id(node)) if self.scope is self.module_scope else None
        if site is not None:
            value = self._input_value(node, *site)
        else:
            value = self.eval(node.value)
        for target in node.targets:
            self.store(target, value)

    def _input_value(self, node, kind: str, name: str):
        """The value of an input assignment (SPEC 2.1): a literal is a leaf that
        requires grad (a Python value in script mode); --set replaces the literal."""
        override = self.overrides.get(name, _MISSING)
        if kind == "literal":
            value = self.eval_plain(node.value) if override is _MISSING else override
            if self.script:
                return value
            return self._make_tensor(value, node.value.span, requires_grad=True)
        call = node.value
        if override is _MISSING:
            return self.eval(call)
        func = self.eval(call.func)
        args = [override] + [self.eval_plain(arg) for arg in call.args[1:]]
        kwargs = {keyword.name: self.eval_plain(keyword.value) for keyword in call.keywords}
        return self.call(func, args, kwargs, call.span)

    def store(self, target, value):
        cls = target.__class__
        if cls is n.Name:
            self._store_name(target.id, value, target.span)
        elif cls is n.Attribute:
            self.setattr(self.eval(target.value), target.attr, value, target.span)
        elif cls is n.Subscript:
            obj = self.eval(target.value)
            index = self._index(target.index)
            self.set_source(target.span)
            self.setitem(obj, index, value, target.span)
        else:
            items = self._unpack(value, len(target.elts), target.span)
            for element, item in zip(target.elts, items):
                self.store(element, item)

    def _store_name(self, name: str, value, span):
        scope = self.scope
        scope.vars[name] = value
        if scope is self.module_scope:
            self.last_assigned = name
            if value.__class__ is Tensor and value.grad_fn is None and value.requires_grad \
                    and not self.run_command:
                self._note_leaf(name, value, span)
            if name in self.requires_grad and isinstance(value, Tensor) and value.is_leaf \
                    and not value.requires_grad:
                try:
                    value.requires_grad_(True)
                except GradcliError as error:
                    raise error.at(span)
            if _dual.NAMED_TANGENTS and name in _dual.NAMED_TANGENTS and isinstance(value, Tensor):
                dual_value = _dual.give_named_tangent(name, value)   # `jacobian --mode forward`, `hessian`
                if dual_value is not None:
                    scope.vars[name] = dual_value   # an input made dual

    def _note_leaf(self, name: str, value: Tensor, span) -> None:
        """Remember the first name a leaf that requires grad was bound to (at most
        MAX_NOTED_LEAVES of them and MAX_NOTED_ELEMENTS elements: a loop that makes a leaf
        per step keeps only its first ones alive)."""
        key = id(value)
        if key in self._bound_leaves or len(self._bound_leaves) >= MAX_NOTED_LEAVES:
            return
        self.noted_elements += value._data.size
        if self.noted_elements > MAX_NOTED_ELEMENTS:
            return
        self._bound_leaves.add(key)
        self.first_bindings.append((name, span, value))

    def _unpack(self, value, count: int, span) -> list:
        if isinstance(value, (tuple, list)):
            items = value
        elif isinstance(value, Tensor) or isinstance(value, SEQUENCE_TYPES):
            try:
                length = len(value)
                if length != count:
                    items = [None] * length
                else:
                    self.set_source(span)
                    items = list(iterate(value))
            except GradcliError as error:
                raise error.at(span)
        else:
            raise ProgramTypeError(f"cannot unpack non-iterable {type_name(value)} object", span)
        if len(items) > count:
            raise ProgramValueError(f"too many values to unpack (expected {count})", span)
        if len(items) < count:
            raise ProgramValueError(f"not enough values to unpack (expected {count}, got "
                                    f"{len(items)})", span)
        return items

    def setattr(self, obj, attr: str, value, span):
        try:
            self.access.setattr(obj, attr, value)
        except GradcliError as error:
            raise error.at(span)
        except _PYTHON_ERRORS as exc:
            raise self.fail(exc, span) from None

    def setitem(self, obj, index, value, span):
        try:
            if obj.__class__ is dict:
                check_walk(index)  # hashed
            self.access.setitem(obj, index, value, span)
            if obj.__class__ is list or obj.__class__ is dict:
                check_built(obj)
        except GradcliError as error:
            raise error.at(span)
        except _PYTHON_ERRORS as exc:
            raise self.fail(exc, span) from None

    def _augassign(self, node):
        target = node.target
        value = self.eval(node.value)
        cls = target.__class__
        if cls is n.Name:
            current = self._name(target)
            self._store_name(target.id, self.binary(node.op, current, value, node.span, True),
                             target.span)
        elif cls is n.Attribute:
            obj = self.eval(target.value)
            current = self.getattr(obj, target.attr, target.span)
            self.setattr(obj, target.attr, self.binary(node.op, current, value, node.span, True),
                         target.span)
        else:
            obj = self.eval(target.value)
            index = self._index(target.index)
            self.set_source(target.span)
            current = self.getitem(obj, index, target.span)
            result = self.binary(node.op, current, value, node.span, True)
            self.set_source(target.span)
            self.setitem(obj, index, result, target.span)

    def _import(self, node):
        for alias in node.names:
            if alias.asname:
                self._bind(alias.asname, self.modules[alias.name])
            else:
                root = alias.name.split(".")[0]
                self._bind(root, self.modules[root])

    def _import_from(self, node):
        module = self.modules[node.module]
        for alias in node.names:
            value = module.members.get(alias.name, _MISSING)
            if value is _MISSING:
                close = close_matches(alias.name, sorted(module.members), n=1)
                raise ProgramError(f"cannot import name '{alias.name}' from '{node.module}'",
                                   alias.span, hint=f"did you mean '{close[0]}'?" if close else None)
            self._bind(alias.asname or alias.name, value)

    def _bind(self, name: str, value):
        """Bind a def, class or import (not an assignment: not an output candidate)."""
        self.scope.vars[name] = value

    def _if(self, node):
        for test, body in node.branches:
            if self.truth(self.eval(test), test.span):
                return self.exec_block(body)
        if node.orelse:
            return self.exec_block(node.orelse)
        return None

    def _while(self, node):
        return self._loop(node, self._while_iterations(node))

    def _while_iterations(self, node):
        """One yield per iteration of a `while`: the test true, the step and the test's cost
        charged."""
        test = node.test
        cost = self.costs.get(id(node), 1)  # the test, evaluated again each iteration
        while self.truth(self.eval(test), test.span):
            self.step(node.span)
            self.budget.work += cost
            yield

    def _for(self, node):
        iterable = self.eval_plain(node.iter)
        self.set_source(node.iter.span)
        try:
            iterator = iterate(iterable)
        except GradcliError as error:
            raise error.at(node.iter.span)
        return self._loop(node, self._for_iterations(node, iterator))

    def _for_iterations(self, node, iterator):
        """One yield per item of a `for`: the step charged, the item stored in the target."""
        target = node.target
        while True:
            self.set_source(node.iter.span)
            try:
                item = next(iterator, _MISSING)
            except GradcliError as error:
                raise error.at(node.iter.span)
            except RuntimeError as exc:  # a dict changed size during iteration
                raise self.fail(exc, node.iter.span) from None
            if item is _MISSING:
                return
            self.step(node.span)
            self.store(target, item)
            yield

    def _loop(self, node, iterations):
        """The tail `for` and `while` share: the body once per iteration (`iterations` charged
        the step), `break` ends the loop, `continue` goes on, `return` leaves it, and `else`
        runs when the iterations ran out."""
        body = node.body
        for _ in iterations:
            signal = self.exec_block(body)
            if signal is not None:
                if signal is BREAK:
                    return None
                if signal is RETURN:
                    return signal
        if node.orelse:
            return self.exec_block(node.orelse)
        return None

    def _with(self, node):
        entered = []
        try:
            for item in node.items:
                manager = self.eval(item.context)
                if not _access.is_context_manager(manager):
                    raise ProgramTypeError(f"'{type_name(manager)}' object does not support the "
                                           "context manager protocol", item.span,
                                           hint="with works with no_grad(), enable_grad() and "
                                                "set_grad_enabled(flag)")
                manager.__enter__()
                entered.append(manager)
                if item.target is not None:
                    self.store(item.target, None)
            return self.exec_block(node.body)
        finally:
            for manager in reversed(entered):
                manager.__exit__(None, None, None)

    def _return(self, node):
        self.return_value = None if node.value is None else self.eval(node.value)
        return RETURN

    def _pass(self, node):
        return None

    def _break(self, node):
        return BREAK

    def _continue(self, node):
        return CONTINUE

    def _assert(self, node):
        if not self.truth(self.eval(node.test), node.test.span):
            message = "assertion failed"
            cause = AssertionError()
            if node.msg is not None:
                msg = self.eval(node.msg)
                message += f": {msg}"
                cause = AssertionError(msg)
            error = ProgramError(message, node.span)
            error.__cause__ = cause  # caught as AssertionError
            raise error

    def _try(self, node):
        try:
            signal = self._try_except(node)
        except GradcliError as error:
            if node.finalbody and python_exception(error) is not None:
                final = self.exec_block(node.finalbody)
                if final is not None:
                    return final  # `return` or `break` in `finally` drops the error, as in Python
            raise
        if node.finalbody:
            final = self.exec_block(node.finalbody)
            if final is not None:
                return final
        return signal

    def _try_except(self, node):
        try:
            signal = self.exec_block(node.body)
        except GradcliError as error:
            value = python_exception(error)
            if value is None or not node.handlers:
                raise
            for handler in node.handlers:
                if handler.type is None or isinstance(value, self._caught(handler.type)):
                    break
            else:
                raise
            # the error was made (its message, span, Python value) before it was caught: a
            # loop that raises and catches is charged for each, by its message's length too
            self.budget.charge(CAUGHT_ERROR_WORK + (len(error.message) >> 3))
            if handler.name is not None:
                self.scope.vars[handler.name] = value
            self.handling.append(error)
            try:
                return self.exec_block(handler.body)
            finally:
                self.handling.pop()
        if node.orelse:
            return self.exec_block(node.orelse)
        return signal

    def _caught(self, type_node):
        """The exception class or tuple of classes an `except` clause names."""
        kinds = self.eval(type_node)
        for kind in kinds if kinds.__class__ is tuple else (kinds,):
            if kind.__class__ is not type or not issubclass(kind, BaseException):
                raise ProgramTypeError("catching classes that do not inherit from BaseException "
                                       "is not allowed", type_node.span)
        return kinds

    def _raise(self, node):
        if node.exc is None:
            if not self.handling:
                raise RaisedError(RuntimeError("No active exception to reraise"), node.span)
            raise self.handling[-1]
        value = self._exception(node.exc, "exceptions must derive from BaseException")
        if node.cause is not None:
            cause = self.eval(node.cause)
            if cause is not None:
                value.__cause__ = self._exception(node.cause, "exception causes must derive from "
                                                              "BaseException")
        raise RaisedError(value, node.span)

    def _exception(self, node, message: str) -> BaseException:
        value = self.eval(node)
        if value.__class__ is type and value in _access.CALLABLE_CLASSES \
                and issubclass(value, BaseException):
            value = value()
        if not isinstance(value, BaseException) or isinstance(value, GradcliError):
            raise ProgramTypeError(message, node.span)
        return value


# --- helpers ---------------------------------------------------------------

