"""The syntax tree of a gradcli program: one small class per construct.

Every node carries a `span` (`gradcli.errors.Span`, 1-based line and column):
for an operator, the operator token; for a call, the name of the function or
method called; for a subscript, its `[`; for a statement, its first token.
The interpreter reports errors and records graph-node sources at these spans.
Left-associative chains (`a + b + c`) are left-deep `BinOp` trees; walk their
left spine with a loop, never with recursion (a chain may have 10^5 terms).
"""
from __future__ import annotations

from gradcli.errors import Span


class Node:
    """Base of every syntax-tree node.

    The nodes are plain classes with `__slots__` and a hand-written `__init__`, not
    dataclasses: making ~50 dataclasses cost every start-up ~16 ms. They have no
    `__eq__` or `__repr__`: nodes compare by identity (`costs` is keyed by id).
    """

    __slots__ = ()
    span: Span


# --- expressions -----------------------------------------------------------


class Num(Node):
    """A number literal: a Python int or float."""

    __slots__ = ("value", "span")

    def __init__(self, value: int | float, span: Span):
        self.value = value
        self.span = span


class Str(Node):
    """A string literal (adjacent literals already joined)."""

    __slots__ = ("value", "span")

    def __init__(self, value: str, span: Span):
        self.value = value
        self.span = span


class Constant(Node):
    """`True`, `False`, `None` or `...`."""

    __slots__ = ("value", "span")

    def __init__(self, value: object, span: Span):
        self.value = value
        self.span = span


class FormattedValue(Node):
    """One `{value!conversion:spec}` field of an f-string."""

    __slots__ = ("value", "conversion", "spec", "span")

    def __init__(self, value: Node, conversion: str | None, spec: FString | None, span: Span):
        self.value = value
        self.conversion = conversion
        self.spec = spec
        self.span = span


class FString(Node):
    """An f-string: literal text and `FormattedValue` fields, in order."""

    __slots__ = ("parts", "span")

    def __init__(self, parts: list, span: Span):
        self.parts = parts  # of str | FormattedValue
        self.span = span


class Name(Node):
    """A name read (or, as a target, bound)."""

    __slots__ = ("id", "span")

    def __init__(self, id: str, span: Span):
        self.id = id
        self.span = span


class Attribute(Node):
    """`value.attr`; the span is the attribute name's."""

    __slots__ = ("value", "attr", "span")

    def __init__(self, value: Node, attr: str, span: Span):
        self.value = value
        self.attr = attr
        self.span = span


class Subscript(Node):
    """`value[index]`; `index` is an expression, a `Slice` or a `TupleExpr` of them."""

    __slots__ = ("value", "index", "span")

    def __init__(self, value: Node, index: Node, span: Span):
        self.value = value
        self.index = index
        self.span = span


class Slice(Node):
    """`lower:upper:step` inside a subscript; absent parts are None."""

    __slots__ = ("lower", "upper", "step", "span")

    def __init__(self, lower: Node | None, upper: Node | None, step: Node | None, span: Span):
        self.lower = lower
        self.upper = upper
        self.step = step
        self.span = span


class Starred(Node):
    """`*value` as a call argument."""

    __slots__ = ("value", "span")

    def __init__(self, value: Node, span: Span):
        self.value = value
        self.span = span


class Keyword(Node):
    """`name=value` as a call argument."""

    __slots__ = ("name", "value", "span")

    def __init__(self, name: str, value: Node, span: Span):
        self.name = name
        self.value = value
        self.span = span


class Call(Node):
    """`func(args, keywords)`; the span is the called name's (or the `(` if unnamed)."""

    __slots__ = ("func", "args", "keywords", "span")

    def __init__(self, func: Node, args: list, keywords: list, span: Span):
        self.func = func
        self.args = args  # of Node | Starred
        self.keywords = keywords  # of Keyword
        self.span = span


class BinOp(Node):
    """`left op right` for `+ - * / // % @ **`."""

    __slots__ = ("left", "op", "right", "span")

    def __init__(self, left: Node, op: str, right: Node, span: Span):
        self.left = left
        self.op = op
        self.right = right
        self.span = span


class UnaryOp(Node):
    """`-x`, `+x`, `not x`."""

    __slots__ = ("op", "operand", "span")

    def __init__(self, op: str, operand: Node, span: Span):
        self.op = op
        self.operand = operand
        self.span = span


class BoolOp(Node):
    """`a and b and c` / `a or b or c`, flat as in Python's ast."""

    __slots__ = ("op", "values", "span")

    def __init__(self, op: str, values: list, span: Span):
        self.op = op
        self.values = values
        self.span = span


class Compare(Node):
    """A comparison chain `a < b <= c`: one span per operator."""

    __slots__ = ("left", "ops", "comparators", "spans", "span")

    def __init__(self, left: Node, ops: list, comparators: list, spans: list, span: Span):
        self.left = left
        self.ops = ops  # of str: < <= > >= == != in "not in" is "is not"
        self.comparators = comparators
        self.spans = spans
        self.span = span


class IfExp(Node):
    """`body if test else orelse`; the span is the `if`."""

    __slots__ = ("test", "body", "orelse", "span")

    def __init__(self, test: Node, body: Node, orelse: Node, span: Span):
        self.test = test
        self.body = body
        self.orelse = orelse
        self.span = span


class Param(Node):
    """One parameter of a def or lambda, with its default expression if any."""

    __slots__ = ("name", "default", "span")

    def __init__(self, name: str, default: Node | None, span: Span):
        self.name = name
        self.default = default
        self.span = span


class Params:
    """A parameter list: positional-or-keyword, `*vararg`, keyword-only."""

    __slots__ = ("args", "vararg", "kwonly")

    def __init__(self, args: list | None = None, vararg: str | None = None, kwonly: list | None = None):
        self.args = [] if args is None else args
        self.vararg = vararg
        self.kwonly = [] if kwonly is None else kwonly

    def names(self) -> list:
        names = [p.name for p in self.args]
        if self.vararg:
            names.append(self.vararg)
        names.extend(p.name for p in self.kwonly)
        return names


class Lambda(Node):
    """`lambda params: body`."""

    __slots__ = ("params", "body", "span")

    def __init__(self, params: Params, body: Node, span: Span):
        self.params = params
        self.body = body
        self.span = span


class ListExpr(Node):
    """`[a, b, ...]`; the span is the `[`."""

    __slots__ = ("elts", "span")

    def __init__(self, elts: list, span: Span):
        self.elts = elts
        self.span = span


class TupleExpr(Node):
    """`(a, b)` or `a, b`; the span is its first token."""

    __slots__ = ("elts", "span")

    def __init__(self, elts: list, span: Span):
        self.elts = elts
        self.span = span


class DictExpr(Node):
    """`{k: v, ...}`; the span is the `{`."""

    __slots__ = ("keys", "values", "span")

    def __init__(self, keys: list, values: list, span: Span):
        self.keys = keys
        self.values = values
        self.span = span


class SetExpr(Node):
    """`{a, b, ...}`; the span is the `{`."""

    __slots__ = ("elts", "span")

    def __init__(self, elts: list, span: Span):
        self.elts = elts
        self.span = span


class Generator(Node):
    """One `for target in iter if cond ...` clause of a comprehension."""

    __slots__ = ("target", "iter", "ifs", "span")

    def __init__(self, target: Node, iter: Node, ifs: list, span: Span):
        self.target = target
        self.iter = iter
        self.ifs = ifs
        self.span = span


class Comprehension(Node):
    """`[elt for ...]`, `{elt for ...}`, `{key: elt for ...}` or `(elt for ...)` (`kind`:
    list, set, dict, generator); `locals` are the names its clauses bind (its own scope)."""

    __slots__ = ("kind", "key", "elt", "generators", "locals", "span")

    def __init__(self, kind: str, key: Node | None, elt: Node, generators: list, locals: frozenset,
                 span: Span):
        self.kind = kind
        self.key = key
        self.elt = elt
        self.generators = generators
        self.locals = locals
        self.span = span


# --- statements ------------------------------------------------------------


class ExprStmt(Node):
    """An expression statement; `text` is its source, stripped (SPEC 2.4)."""

    __slots__ = ("value", "text", "span")

    def __init__(self, value: Node, text: str, span: Span):
        self.value = value
        self.text = text
        self.span = span


class Assign(Node):
    """`t1 = t2 = value`; targets are Name, Attribute, Subscript or tuples/lists of them."""

    __slots__ = ("targets", "value", "span")

    def __init__(self, targets: list, value: Node, span: Span):
        self.targets = targets
        self.value = value
        self.span = span


class AugAssign(Node):
    """`target op= value` (op without the `=`); the span is the operator's."""

    __slots__ = ("target", "op", "value", "span")

    def __init__(self, target: Node, op: str, value: Node, span: Span):
        self.target = target
        self.op = op
        self.value = value
        self.span = span


class Alias(Node):
    """`name [as asname]` in an import."""

    __slots__ = ("name", "asname", "span")

    def __init__(self, name: str, asname: str | None, span: Span):
        self.name = name
        self.asname = asname
        self.span = span


class Import(Node):
    """`import a.b as c, ...`."""

    __slots__ = ("names", "span")

    def __init__(self, names: list, span: Span):
        self.names = names
        self.span = span


class ImportFrom(Node):
    """`from module import a as b, ...`."""

    __slots__ = ("module", "names", "span")

    def __init__(self, module: str, names: list, span: Span):
        self.module = module
        self.names = names
        self.span = span


class If(Node):
    """`if/elif/else`: `branches` is a flat list of (test, body), so long elif chains do not nest."""

    __slots__ = ("branches", "orelse", "span")

    def __init__(self, branches: list, orelse: list, span: Span):
        self.branches = branches
        self.orelse = orelse
        self.span = span


class While(Node):
    """`while test: body [else: orelse]`."""

    __slots__ = ("test", "body", "orelse", "span")

    def __init__(self, test: Node, body: list, orelse: list, span: Span):
        self.test = test
        self.body = body
        self.orelse = orelse
        self.span = span


class For(Node):
    """`for target in iter: body [else: orelse]`."""

    __slots__ = ("target", "iter", "body", "orelse", "span")

    def __init__(self, target: Node, iter: Node, body: list, orelse: list, span: Span):
        self.target = target
        self.iter = iter
        self.body = body
        self.orelse = orelse
        self.span = span


class WithItem(Node):
    """`context [as target]` in a `with`."""

    __slots__ = ("context", "target", "span")

    def __init__(self, context: Node, target: Node | None, span: Span):
        self.context = context
        self.target = target
        self.span = span


class With(Node):
    """`with item, ...: body`."""

    __slots__ = ("items", "body", "span")

    def __init__(self, items: list, body: list, span: Span):
        self.items = items
        self.body = body
        self.span = span


class FunctionDef(Node):
    """`def name(params): body` with its decorators and the names local to its body."""

    __slots__ = ("name", "params", "body", "decorators", "locals", "span")

    def __init__(self, name: str, params: Params, body: list, decorators: list, locals: frozenset,
                 span: Span):
        self.name = name
        self.params = params
        self.body = body
        self.decorators = decorators
        self.locals = locals
        self.span = span


class ClassDef(Node):
    """`class name(bases): body`."""

    __slots__ = ("name", "bases", "body", "decorators", "span")

    def __init__(self, name: str, bases: list, body: list, decorators: list, span: Span):
        self.name = name
        self.bases = bases
        self.body = body
        self.decorators = decorators
        self.span = span


class Return(Node):
    """`return [value]`."""

    __slots__ = ("value", "span")

    def __init__(self, value: Node | None, span: Span):
        self.value = value
        self.span = span


class Pass(Node):
    """`pass`; in a class body, a bare annotation `x: int` is one that declares the field `x`."""

    __slots__ = ("span", "field")

    def __init__(self, span: Span, field: str | None = None):
        self.span = span
        self.field = field


class Break(Node):
    """`break`."""

    __slots__ = ("span",)

    def __init__(self, span: Span):
        self.span = span


class Continue(Node):
    """`continue`."""

    __slots__ = ("span",)

    def __init__(self, span: Span):
        self.span = span


class Assert(Node):
    """`assert test[, msg]`."""

    __slots__ = ("test", "msg", "span")

    def __init__(self, test: Node, msg: Node | None, span: Span):
        self.test = test
        self.msg = msg
        self.span = span


class Raise(Node):
    """`raise [exc [from cause]]`."""

    __slots__ = ("exc", "cause", "span")

    def __init__(self, exc: Node | None, cause: Node | None, span: Span):
        self.exc = exc
        self.cause = cause
        self.span = span


class ExceptHandler(Node):
    """`except [type [as name]]: body`."""

    __slots__ = ("type", "name", "body", "span")

    def __init__(self, type: Node | None, name: str | None, body: list, span: Span):
        self.type = type
        self.name = name
        self.body = body
        self.span = span


class Try(Node):
    """`try: body` with its handlers, `else` and `finally` blocks."""

    __slots__ = ("body", "handlers", "orelse", "finalbody", "span")

    def __init__(self, body: list, handlers: list, orelse: list, finalbody: list, span: Span):
        self.body = body
        self.handlers = handlers
        self.orelse = orelse
        self.finalbody = finalbody
        self.span = span


class Module(Node):
    """A whole program. `costs` maps id(statement) to the tokens one execution of it
    evaluates (a compound statement: its header only), and id(lambda) to its body's: the
    interpreter charges these against its work budget (`limits.WORK_PER_STEP`)."""

    __slots__ = ("body", "span", "costs")

    def __init__(self, body: list, span: Span, costs: dict | None = None):
        self.body = body
        self.span = span
        self.costs = {} if costs is None else costs
