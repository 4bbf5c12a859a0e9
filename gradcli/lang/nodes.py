"""The syntax tree of a gradcli program: one small class per construct.

Every node carries a `span` (`gradcli.errors.Span`, 1-based line and column):
for an operator, the operator token; for a call, the name of the function or
method called; for a subscript, its `[`; for a statement, its first token.
The interpreter reports errors and records graph-node sources at these spans.
Left-associative chains (`a + b + c`) are left-deep `BinOp` trees; walk their
left spine with a loop, never with recursion (a chain may have 10^5 terms).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gradcli.errors import Span


class Node:
    """Base of every syntax-tree node."""

    __slots__ = ()
    span: Span


# --- expressions -----------------------------------------------------------


@dataclass(slots=True, eq=False, repr=False)
class Num(Node):
    """A number literal: a Python int or float."""

    value: int | float
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Str(Node):
    """A string literal (adjacent literals already joined)."""

    value: str
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Constant(Node):
    """`True`, `False`, `None` or `...`."""

    value: object
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class FormattedValue(Node):
    """One `{value!conversion:spec}` field of an f-string."""

    value: Node
    conversion: str | None
    spec: "FString | None"
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class FString(Node):
    """An f-string: literal text and `FormattedValue` fields, in order."""

    parts: list  # of str | FormattedValue
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Name(Node):
    """A name read (or, as a target, bound)."""

    id: str
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Attribute(Node):
    """`value.attr`; the span is the attribute name's."""

    value: Node
    attr: str
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Subscript(Node):
    """`value[index]`; `index` is an expression, a `Slice` or a `TupleExpr` of them."""

    value: Node
    index: Node
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Slice(Node):
    """`lower:upper:step` inside a subscript; absent parts are None."""

    lower: Node | None
    upper: Node | None
    step: Node | None
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Starred(Node):
    """`*value` as a call argument."""

    value: Node
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Keyword(Node):
    """`name=value` as a call argument."""

    name: str
    value: Node
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Call(Node):
    """`func(args, keywords)`; the span is the called name's (or the `(` if unnamed)."""

    func: Node
    args: list  # of Node | Starred
    keywords: list  # of Keyword
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class BinOp(Node):
    """`left op right` for `+ - * / // % @ **`."""

    left: Node
    op: str
    right: Node
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class UnaryOp(Node):
    """`-x`, `+x`, `not x`."""

    op: str
    operand: Node
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class BoolOp(Node):
    """`a and b and c` / `a or b or c`, flat as in Python's ast."""

    op: str
    values: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Compare(Node):
    """A comparison chain `a < b <= c`: one span per operator."""

    left: Node
    ops: list  # of str: < <= > >= == != in "not in" is "is not"
    comparators: list
    spans: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class IfExp(Node):
    """`body if test else orelse`; the span is the `if`."""

    test: Node
    body: Node
    orelse: Node
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Param(Node):
    """One parameter of a def or lambda, with its default expression if any."""

    name: str
    default: Node | None
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Params:
    """A parameter list: positional-or-keyword, `*vararg`, keyword-only."""

    args: list = field(default_factory=list)
    vararg: str | None = None
    kwonly: list = field(default_factory=list)

    def names(self) -> list:
        names = [p.name for p in self.args]
        if self.vararg:
            names.append(self.vararg)
        names.extend(p.name for p in self.kwonly)
        return names


@dataclass(slots=True, eq=False, repr=False)
class Lambda(Node):
    """`lambda params: body`."""

    params: Params
    body: Node
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class ListExpr(Node):
    """`[a, b, ...]`; the span is the `[`."""

    elts: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class TupleExpr(Node):
    """`(a, b)` or `a, b`; the span is its first token."""

    elts: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class DictExpr(Node):
    """`{k: v, ...}`; the span is the `{`."""

    keys: list
    values: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class SetExpr(Node):
    """`{a, b, ...}`; the span is the `{`."""

    elts: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Generator(Node):
    """One `for target in iter if cond ...` clause of a comprehension."""

    target: Node
    iter: Node
    ifs: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Comprehension(Node):
    """`[elt for ...]`, `{elt for ...}`, `{key: elt for ...}` or `(elt for ...)` (`kind`:
    list, set, dict, generator); `locals` are the names its clauses bind (its own scope)."""

    kind: str
    key: Node | None
    elt: Node
    generators: list
    locals: frozenset
    span: Span


# --- statements ------------------------------------------------------------


@dataclass(slots=True, eq=False, repr=False)
class ExprStmt(Node):
    """An expression statement; `text` is its source, stripped (SPEC 2.4)."""

    value: Node
    text: str
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Assign(Node):
    """`t1 = t2 = value`; targets are Name, Attribute, Subscript or tuples/lists of them."""

    targets: list
    value: Node
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class AugAssign(Node):
    """`target op= value` (op without the `=`); the span is the operator's."""

    target: Node
    op: str
    value: Node
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Alias(Node):
    """`name [as asname]` in an import."""

    name: str
    asname: str | None
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Import(Node):
    """`import a.b as c, ...`."""

    names: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class ImportFrom(Node):
    """`from module import a as b, ...`."""

    module: str
    names: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class If(Node):
    """`if/elif/else`: `branches` is a flat list of (test, body), so long elif chains do not nest."""

    branches: list
    orelse: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class While(Node):
    """`while test: body [else: orelse]`."""

    test: Node
    body: list
    orelse: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class For(Node):
    """`for target in iter: body [else: orelse]`."""

    target: Node
    iter: Node
    body: list
    orelse: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class WithItem(Node):
    """`context [as target]` in a `with`."""

    context: Node
    target: Node | None
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class With(Node):
    """`with item, ...: body`."""

    items: list
    body: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class FunctionDef(Node):
    """`def name(params): body` with its decorators and the names local to its body."""

    name: str
    params: Params
    body: list
    decorators: list
    locals: frozenset
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class ClassDef(Node):
    """`class name(bases): body`."""

    name: str
    bases: list
    body: list
    decorators: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Return(Node):
    """`return [value]`."""

    value: Node | None
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Pass(Node):
    """`pass`."""

    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Break(Node):
    """`break`."""

    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Continue(Node):
    """`continue`."""

    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Assert(Node):
    """`assert test[, msg]`."""

    test: Node
    msg: Node | None
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Raise(Node):
    """`raise [exc [from cause]]`."""

    exc: Node | None
    cause: Node | None
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class ExceptHandler(Node):
    """`except [type [as name]]: body`."""

    type: Node | None
    name: str | None
    body: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Try(Node):
    """`try: body` with its handlers, `else` and `finally` blocks."""

    body: list
    handlers: list
    orelse: list
    finalbody: list
    span: Span


@dataclass(slots=True, eq=False, repr=False)
class Module(Node):
    """A whole program. `costs` maps id(statement) to the tokens one execution of it
    evaluates (a compound statement: its header only), and id(lambda) to its body's: the
    interpreter charges these against its work budget (`limits.WORK_PER_STEP`)."""

    body: list
    span: Span
    costs: dict = field(default_factory=dict)
