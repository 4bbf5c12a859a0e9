"""The parser's reading of the lexer's token arrays, and its expressions: precedence
climbing for `or` down to comparisons, one loop for the arithmetic operators, and the
descent below them (unary operators, `**`, trailers, atoms, displays, comprehensions,
lambdas, f-string fields). `gradcli.lang.parser.Parser` adds the statements.

A token is an index into the lexer's parallel arrays (`kinds`, `values`, `offsets`,
`ends`, `lines`); a Span is made only for a token that becomes a node, or an error.
The hot paths (a name, a number, an operator of an arithmetic chain, a call of one
plain argument) read the arrays inline rather than through the helpers.
"""
from __future__ import annotations

from gradcli.errors import ParseError, Span
from gradcli.lang import nodes as n
from gradcli.lang.lexer import Field, Lexer
from gradcli.lang.limits import MAX_NESTING, MAX_TOKENS

# Precedence of the operators `binary` reads; the arithmetic ones, below comparisons, are
# `arith`'s: `+ -` (terms), then `* / // % @` (factors), then unary `- +` and `**`.
PREC_OR, PREC_AND, PREC_NOT, PREC_COMPARE = 1, 2, 3, 4
_BINARY_PREC = {
    "or": PREC_OR, "and": PREC_AND,
    "<": PREC_COMPARE, ">": PREC_COMPARE, "==": PREC_COMPARE, "!=": PREC_COMPARE,
    "<=": PREC_COMPARE, ">=": PREC_COMPARE, "in": PREC_COMPARE, "is": PREC_COMPARE,
    "not": PREC_COMPARE,
}
_TRAILERS = frozenset({".", "(", "[", "**"})
_TERM_OPERATORS = frozenset({"*", "/", "//", "%", "@"})
# The bitwise operators, between comparisons and arithmetic, by Python's precedence.
_BITWISE_PREC = {"|": 1, "^": 2, "&": 3, "<<": 4, ">>": 4}
# what follows a call's one plain argument when the call's own parse is the short one
_PLAIN = frozenset({"NAME", "NUMBER"})
AUGMENTED = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "@=": "@", "**=": "**",
             "//=": "//", "%=": "%", "&=": "&", "|=": "|", "^=": "^"}
UNSUPPORTED_STATEMENTS = frozenset({"global", "nonlocal", "del", "yield", "async", "await"})
_CONSTANTS = {"True": True, "False": False, "None": None, "...": Ellipsis}

_new = tuple.__new__  # a Span without Span.__new__'s Python frame (made for most nodes)
_node = object.__new__  # a node without its __init__'s frame; the hot paths then set every slot


class ExpressionParser:
    """Parses the expressions of one program's (or one f-string field's) token arrays."""

    def __init__(self, lexer: Lexer, source: str, depth: int = 0, budget: list | None = None):
        self.lexer = lexer
        self.kinds = lexer.kinds
        self.values = lexer.values
        self.offsets = lexer.offsets
        self.ends = lexer.ends
        self.lines = lexer.lines
        self.starts = lexer.starts  # where each line begins
        self.last = len(self.kinds) - 1  # the EOF
        self.budget = budget if budget is not None else [MAX_TOKENS]  # shared with f-string fields
        self.source = source
        self.i = 0  # the current token
        self.kind = self.kinds[0]  # its kind
        self.depth = depth
        self.loop_depth = 0
        self.in_function = False
        self.in_class_body = False
        self.scopes: list[set] = []  # names bound in each enclosing def body
        self.costs: dict = {}  # id(statement or lambda) -> tokens one execution evaluates
        self.nested: list = []  # tokens taken by the blocks of each statement being parsed

    # --- token helpers ---------------------------------------------------

    def span(self, i: int) -> Span:
        """The span of token `i`."""
        line = self.lines[i]
        start = self.offsets[i]
        col = start - self.starts[line - 1] + 1
        if i in self.lexer.multiline:
            return _new(Span, (line, col, None))
        return _new(Span, (line, col, col + self.ends[i] - start))

    def peek_kind(self, ahead: int = 1) -> str:
        return self.kinds[min(self.i + ahead, self.last)]

    def advance(self) -> int:
        """Step over the current token; returns its index."""
        i = self.i
        if i < self.last:
            self.i = i + 1
            self.kind = self.kinds[i + 1]
        return i

    def accept(self, kind: str) -> bool:
        if self.kind == kind:
            self.advance()
            return True
        return False

    def expect(self, kind: str, message: str | None = None) -> int:
        if self.kind != kind:
            raise self.unexpected(self.i, message or f"expected '{kind}'")
        return self.advance()

    def unexpected(self, token: int, message: str = "invalid syntax") -> ParseError:
        kind = self.kinds[token]
        span = self.span(token)
        if kind == "INDENT":
            return ParseError("unexpected indent", span)
        if kind == "DEDENT":
            return ParseError("unindent does not match any outer indentation level", span)
        if kind == "EOF" and message == "invalid syntax":
            message = "unexpected end of input"
        if kind in UNSUPPORTED_STATEMENTS:
            message = f"'{kind}' is not supported in gradcli programs"
        if kind == ":=":
            return ParseError("the walrus operator ':=' is not supported", span,
                              hint="assign with '=' in a statement of its own")
        return ParseError(message, span, self._juxtaposed(token) if message == "invalid syntax" else None)

    def _juxtaposed(self, token: int) -> str | None:
        """A hint for `sin x`: a name followed by an operand, as in maths notation."""
        previous = self.i - 1 if self.i > 0 and self.i - 1 != token \
            else self.i - 2 if self.i > 1 else None
        if previous is None or self.kinds[previous] != "NAME" or self.kinds[token] not in _PLAIN:
            return None
        name = self.values[previous]
        operand = self.values[token] if self.kinds[token] == "NAME" else self.source_text(token)
        return f"to call {name}, write {name}({operand})"

    def source_text(self, token: int) -> str:
        span = self.span(token)
        line = self.source.splitlines()[span.line - 1] if span.line > 0 else ""
        end = span.end_col or span.col + 1
        return line[span.col - 1:end - 1] or str(self.values[token])

    def enter(self, token: int):
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.too_deep(token)

    def too_deep(self, token: int) -> ParseError:
        return ParseError(f"too deeply nested: more than {MAX_NESTING} levels of brackets, "
                          "blocks, operators or trailers", self.span(token),
                          hint="split it into several statements")

    def leave(self):
        self.depth -= 1

    def bind(self, name: str):
        if self.scopes:
            self.scopes[-1].add(name)

    def target(self, node: n.Node) -> n.Node:
        """Check that `node` can be assigned to, and note the names it binds."""
        if isinstance(node, n.Name):
            self.bind(node.id)
        elif isinstance(node, (n.TupleExpr, n.ListExpr)):
            for element in node.elts:
                self.target(element)
        elif not isinstance(node, (n.Attribute, n.Subscript)):
            raise ParseError(f"cannot assign to {describe(node)}", node.span,
                             hint="did you mean '=='?" if isinstance(node, n.Compare) else None)
        return node

    def _loop_target(self) -> n.Node:
        """`a` or `a, b` up to `in` (of a for loop or a comprehension clause), and the `in`."""
        first = self.i
        targets = [self.binary(PREC_COMPARE + 1)]
        trailing_comma = False
        while self.accept(","):
            trailing_comma = True
            if self.kind == "in":
                break
            targets.append(self.binary(PREC_COMPARE + 1))
        target = targets[0] if len(targets) == 1 and not trailing_comma \
            else n.TupleExpr(targets, self.span(first))
        self.target(target)
        self.expect("in", "expected 'in'")
        return target

    def params(self, closer: str, annotations: bool) -> n.Params:
        params = n.Params()
        seen: set = set()
        star = False
        while self.kind != closer:
            token = self.i
            if self.accept("*"):
                if star:
                    raise ParseError("* argument may appear only once", self.span(token))
                star = True
                if self.kind == "NAME":
                    params.vararg = self._param_name(seen)
                    if annotations and self.accept(":"):
                        self.test()
                elif self.kind != ",":
                    raise ParseError("named arguments must follow bare *", self.span(self.i))
            elif self.kind in ("**", "/"):
                raise ParseError(f"'{self.kind}' parameters are not supported", self.span(token))
            else:
                name = self._param_name(seen)
                if annotations and self.accept(":"):
                    self.test()  # annotations are accepted and ignored
                default = self.test() if self.accept("=") else None
                param = n.Param(name, default, self.span(token))
                if star:
                    params.kwonly.append(param)
                else:
                    if default is None and params.args and params.args[-1].default is not None:
                        raise ParseError("non-default argument follows default argument",
                                         self.span(token))
                    params.args.append(param)
            if not self.accept(","):
                break
        if star and params.vararg is None and not params.kwonly:
            raise ParseError("named arguments must follow bare *", self.span(self.i))
        return params

    def _param_name(self, seen: set) -> str:
        token = self.expect("NAME", "expected a parameter name")
        name = self.values[token]
        if name in seen:
            raise ParseError(f"duplicate argument '{name}' in function definition", self.span(token))
        seen.add(name)
        return name

    # --- expressions -------------------------------------------------------

    def testlist(self) -> n.Node:
        """`a` or `a, b, ...` (a tuple without parentheses)."""
        first = self.i
        expr = self.test()
        if self.kind != ",":
            return expr
        elements = [expr]
        while self.accept(","):
            if self.kind in ("=", "NEWLINE", ";", ")", "EOF", ":") or self.kind in AUGMENTED:
                break
            elements.append(self.test())
        return n.TupleExpr(elements, self.span(first))

    def test(self) -> n.Node:
        """A full expression: lambda, conditional expression, or an or-test."""
        if self.kind == "lambda":
            return self.lambda_()
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.too_deep(self.i)
        expr = self.binary(PREC_OR)
        if self.kind == "if":
            if_token = self.advance()
            test = self.binary(PREC_OR)
            self.expect("else", "expected 'else' after 'if' expression")
            orelse = self.test()
            expr = n.IfExp(test, expr, orelse, self.span(if_token))
        self.depth -= 1
        return expr

    def lambda_(self) -> n.Lambda:
        token = self.advance()
        self.enter(token)
        params = self.params(":", annotations=False)
        self.expect(":", "expected ':'")
        start, budget = self.i, self.budget[0]
        body = self.test()
        self.leave()
        node = n.Lambda(params, body, self.span(token))
        self.costs[id(node)] = max(1, self.i - start + budget - self.budget[0])
        return node

    def binary(self, min_prec: int) -> n.Node:
        """Operators from `or` down to comparisons, by precedence climbing (the arithmetic
        ones are `arith`'s); a run of operators of one level is read by the loop below,
        not by recursion."""
        if self.kind == "not" and min_prec <= PREC_NOT:
            token = self.advance()
            self.enter(token)
            operand = self.binary(PREC_NOT)
            self.leave()
            left: n.Node = n.UnaryOp("not", operand, self.span(token))
        else:
            left = self.bitwise(1)
        while True:
            token = self.i
            kind = self.kind
            prec = _BINARY_PREC.get(kind)
            if prec is None or prec < min_prec:
                return left
            if kind == "or" or kind == "and":
                values = [left]
                while self.kind == kind:
                    self.advance()
                    values.append(self.binary(prec + 1))
                left = n.BoolOp(kind, values, self.span(token))
            elif kind == "not" and self.peek_kind() != "in":
                return left
            else:
                ops, comparators, spans = [], [], []
                while True:
                    op = self._comparison_operator()
                    if op is None:
                        break
                    ops.append(op[0])
                    spans.append(op[1])
                    comparators.append(self.binary(PREC_COMPARE + 1))
                left = n.Compare(left, ops, comparators, spans, spans[0])

    def bitwise(self, min_prec: int) -> n.Node:
        """`| ^ & << >>` over `arith`, by precedence climbing: a chain of one level is read
        by the loop, each operand at most four levels down."""
        left = self.arith()
        while True:
            prec = _BITWISE_PREC.get(self.kind)
            if prec is None or prec < min_prec:
                return left
            kind = self.kind
            token = self.advance()
            left = n.BinOp(left, kind, self.bitwise(prec + 1), self.span(token))

    def arith(self) -> n.Node:
        """`+ - * / // % @`: terms joined by `+ -`, each term factors joined by the others.
        One loop reads both levels (the sum so far and the term being read), so a chain of
        10^5 terms costs neither stack nor a call per term; both are left-deep BinOps.
        A plain name or number is read here, and its node and the operators' made without
        their `__init__` (the same slots set: a third of making a node)."""
        kinds, values, offsets, ends, lines, starts = \
            self.kinds, self.values, self.offsets, self.ends, self.lines, self.starts
        Name, Num, BinOp, new = n.Name, n.Num, n.BinOp, _node
        total = total_op = total_span = None  # the sum so far, and the `+`/`-` that adds the term
        term = term_op = term_span = None  # the term so far, and the operator that takes the next
        i = self.i
        while True:
            kind = kinds[i]
            if (kind == "NAME" or kind == "NUMBER") and kinds[i + 1] not in _TRAILERS:
                if kind == "NAME":
                    operand = new(Name)
                    operand.id = values[i]
                else:
                    operand = new(Num)
                    operand.value = values[i]
                line = lines[i]
                start = offsets[i]
                col = start - starts[line - 1] + 1
                operand.span = _new(Span, (line, col, col + ends[i] - start))
                i += 1
                kind = kinds[i]
            else:
                self.i = i
                self.kind = kind
                operand = self.operand()
                i = self.i
                kind = self.kind
            # the BinOp made here and the one for `+ -` below repeat each other on purpose
            # (`duplicates` lists them): a helper call per operator costs what `_node` saves
            if term_op is None:
                term = operand
            else:
                node = new(BinOp)
                node.left = term
                node.op = term_op
                node.right = operand
                node.span = term_span
                term = node
            # An operator token is never EOF: the loop steps over it without advance().
            if kind in _TERM_OPERATORS:
                term_op = kind
            elif kind == "+" or kind == "-":
                if total_op is None:
                    total = term
                else:
                    node = new(BinOp)
                    node.left = total
                    node.op = total_op
                    node.right = term
                    node.span = total_span
                    total = node
                total_op = kind
                term_op = None
            else:
                self.i = i
                self.kind = kind
                if total_op is None:
                    return term
                return n.BinOp(total, total_op, term, total_span)
            line = lines[i]
            start = offsets[i]
            col = start - starts[line - 1] + 1
            if term_op is None:
                total_span = _new(Span, (line, col, col + ends[i] - start))
            else:
                term_span = _new(Span, (line, col, col + ends[i] - start))
            i += 1

    def operand(self) -> n.Node:
        """An operand of `arith` that is not a plain name or number: `f(a)` with a plain
        name or number as its one argument (read here without the descent), or a factor."""
        i = self.i
        kinds = self.kinds
        if self.kind == "NAME" and kinds[i + 1] == "(" and kinds[i + 2] in _PLAIN \
                and kinds[i + 3] == ")" and kinds[i + 4] not in _TRAILERS and self.depth + 1 < MAX_NESTING:
            return self._plain_call(i)
        if self.kind == "NAME" or self.kind == "NUMBER":
            return self.power()
        return self.factor()

    def _plain_call(self, i: int) -> n.Call:
        """`f(a)`, `f` a name and `a` a plain name or number, from token `i` (`f`): what
        `power` reads for it, without the descent."""
        lines, offsets, ends, starts, values = self.lines, self.offsets, self.ends, self.starts, self.values
        line = lines[i]
        start = offsets[i]
        col = start - starts[line - 1] + 1
        span = _new(Span, (line, col, col + ends[i] - start))
        a = i + 2
        line = lines[a]
        start = offsets[a]
        col = start - starts[line - 1] + 1
        if self.kinds[a] == "NAME":
            arg = _node(n.Name)
            arg.id = values[a]
        else:
            arg = _node(n.Num)
            arg.value = values[a]
        arg.span = _new(Span, (line, col, col + ends[a] - start))
        func = _node(n.Name)
        func.id = values[i]
        func.span = span
        call = _node(n.Call)
        call.func = func
        call.args = [arg]
        call.keywords = []
        call.span = span
        self.i = i + 4
        self.kind = self.kinds[i + 4]
        return call

    def _comparison_operator(self) -> tuple | None:
        token = self.i
        kind = self.kind
        if kind in ("<", ">", "==", "!=", "<=", ">=", "in"):
            self.advance()
            return kind, self.span(token)
        if kind == "not" and self.peek_kind() == "in":
            self.advance()
            end = self.advance()
            return "not in", Span(self.lines[token], self.span(token).col, self.span(end).end_col)
        if kind == "is":
            self.advance()
            if self.kind == "not":
                end = self.advance()
                return "is not", Span(self.lines[token], self.span(token).col, self.span(end).end_col)
            return "is", self.span(token)
        return None

    def factor(self) -> n.Node:
        kind = self.kind
        if kind == "-" or kind == "+":
            token = self.advance()
            self.enter(token)
            operand = self.factor()
            self.leave()
            return n.UnaryOp(kind, operand, self.span(token))
        if kind == "~":
            token = self.advance()
            self.enter(token)
            operand = self.factor()
            self.leave()
            return n.UnaryOp("~", operand, self.span(token))
        return self.power()

    def power(self) -> n.Node:
        base = self.primary()
        if self.kind == "**":
            token = self.advance()
            self.enter(token)
            exponent = self.factor()  # right-associative, and `2 ** -x` is allowed
            self.leave()
            return n.BinOp(base, "**", exponent, self.span(token))
        return base

    def primary(self) -> n.Node:
        node = self.atom()
        trailers = 0
        while True:
            token = self.i
            kind = self.kind
            if kind != "." and kind != "(" and kind != "[":
                return node
            trailers += 1
            if self.depth + trailers > MAX_NESTING:
                raise self.too_deep(token)
            self.advance()
            if kind == ".":
                name = self.expect("NAME", "expected an attribute name")
                attr = self.values[name]
                if attr == "__init__" and not _is_super_call(node):
                    raise ParseError("names that start and end with '__' are not allowed: "
                                     "'__init__'", self.span(name), "only super().__init__() reads it")
                node = n.Attribute(node, attr, self.span(name))
            elif kind == "(":
                args, keywords = self.call_arguments()
                self.expect(")", "expected ')'")
                if isinstance(node, n.Name) or isinstance(node, n.Attribute):
                    span = node.span
                else:
                    span = self.span(token)
                node = n.Call(node, args, keywords, span)
            else:
                index = self.subscript()
                self.expect("]", "expected ']'")
                node = n.Subscript(node, index, self.span(token))

    def call_arguments(self) -> tuple:
        args: list = []
        keywords: list = []
        names: set = set()
        while self.kind != ")":
            token = self.i
            kind = self.kind
            if kind == "*":
                self.advance()
                args.append(n.Starred(self.test(), self.span(token)))
            elif kind == "**":
                raise ParseError("'**' argument unpacking is not supported", self.span(token))
            elif kind == "NAME" and self.kinds[token + 1] == "=":
                self.advance()
                self.advance()
                name = self.values[token]
                if name in names:
                    raise ParseError(f"keyword argument repeated: {name}", self.span(token))
                names.add(name)
                keywords.append(n.Keyword(name, self.test(), self.span(token)))
            else:
                if keywords:
                    raise ParseError("positional argument follows keyword argument", self.span(token))
                arg = self.test()
                if self.kind == "for":
                    arg = self._comprehension("generator", None, arg, token)
                    if args or keywords or self.kind != ")":
                        raise ParseError("Generator expression must be parenthesized", arg.span)
                args.append(arg)
            if not self.accept(","):
                break
        return args, keywords

    def subscript(self) -> n.Node:
        first = self.i
        items = [self._slice_item()]
        if self.kind != ",":
            return items[0]
        while self.accept(","):
            if self.kind == "]":
                break
            items.append(self._slice_item())
        return n.TupleExpr(items, self.span(first))

    def _slice_item(self) -> n.Node:
        lower = None
        if self.kind != ":":
            lower = self.test()
            if self.kind != ":":
                return lower
        colon = self.advance()
        upper = step = None
        if self.kind not in (":", ",", "]"):
            upper = self.test()
        if self.accept(":") and self.kind not in (",", "]"):
            step = self.test()
        return n.Slice(lower, upper, step, self.span(colon))

    def _comprehension(self, kind: str, key, elt, opener: int) -> n.Comprehension:
        """The `for ... in ... if ...` clauses after `elt`; their targets are its own scope."""
        start, budget = self.i, self.budget[0]
        self.enter(opener)
        self.scopes.append(set())
        generators = []
        while self.kind == "for":
            token = self.advance()
            target = self._loop_target()
            iterable = self.binary(PREC_OR)
            ifs = []
            while self.accept("if"):
                ifs.append(self.binary(PREC_OR))
            generators.append(n.Generator(target, iterable, ifs, self.span(token)))
        local_names = frozenset(self.scopes.pop())
        self.leave()
        node = n.Comprehension(kind, key, elt, generators, local_names, self.span(opener))
        # what one iteration evaluates, at most: charged per item (limits.WORK_PER_STEP)
        self.costs[id(node)] = max(1, self.i - start + budget - self.budget[0])
        return node

    def atom(self) -> n.Node:
        token = self.i
        kind = self.kind
        if kind == "NAME":
            self.advance()
            return n.Name(self.values[token], self.span(token))
        if kind == "NUMBER":
            self.advance()
            return n.Num(self.values[token], self.span(token))
        if kind == "STRING" or kind == "FSTRING":
            return self._strings()
        if kind in _CONSTANTS:
            self.advance()
            return n.Constant(_CONSTANTS[kind], self.span(token))
        if kind == "(":
            self.advance()
            if self.accept(")"):
                return n.TupleExpr([], self.span(token))
            first = self.test()
            if self.kind == "for":
                first = self._comprehension("generator", None, first, token)
                self.expect(")", "expected ')'")
                return first
            if self.kind == ",":
                elements = [first]
                while self.accept(","):
                    if self.kind == ")":
                        break
                    elements.append(self.test())
                first = n.TupleExpr(elements, self.span(token))
            self.expect(")", "expected ')'")
            return first
        if kind == "[":
            self.advance()
            elements = []
            while self.kind != "]":
                elements.append(self.test())
                if self.kind == "for" and len(elements) == 1:
                    comprehension = self._comprehension("list", None, elements[0], token)
                    self.expect("]", "expected ']'")
                    return comprehension
                if not self.accept(","):
                    break
            self.expect("]", "expected ']'")
            return n.ListExpr(elements, self.span(token))
        if kind == "{":
            return self._dict()
        if kind in ("NEWLINE", "EOF"):
            raise ParseError("expected an expression", self.span(token))
        if kind == "*":
            raise ParseError("starred expressions are only supported as call arguments",
                             self.span(token))
        raise self.unexpected(token)

    def _dict(self) -> n.Node:
        """A dict or set display, or a dict or set comprehension."""
        token = self.advance()
        keys, values = [], []
        is_set = None
        while self.kind != "}":
            key = self.test()
            if is_set is None:
                is_set = self.kind != ":"
            if is_set:
                keys.append(key)
                if self.kind == "for" and len(keys) == 1:
                    return self._closed(self._comprehension("set", None, key, token))
            else:
                self.expect(":", "expected ':'")
                value = self.test()
                if self.kind == "for" and not keys:
                    return self._closed(self._comprehension("dict", key, value, token))
                keys.append(key)
                values.append(value)
            if not self.accept(","):
                break
        self.expect("}", "expected '}'")
        if is_set:
            return n.SetExpr(keys, self.span(token))
        return n.DictExpr(keys, values, self.span(token))

    def _closed(self, comprehension: n.Comprehension) -> n.Comprehension:
        self.expect("}", "expected '}'")
        return comprehension

    def _strings(self) -> n.Node:
        """Adjacent string literals, joined as Python joins them."""
        first = self.i
        parts: list = []
        formatted = False
        while self.kind == "STRING" or self.kind == "FSTRING":
            token = self.advance()
            if self.kinds[token] == "STRING":
                parts.append(self.values[token])
            else:
                formatted = True
                parts.extend(self._fstring_parts(self.values[token]))
        if not formatted:
            return n.Str("".join(parts), self.span(first))
        merged: list = []
        for part in parts:
            if isinstance(part, str) and merged and isinstance(merged[-1], str):
                merged[-1] += part
            elif not (isinstance(part, str) and not part):
                merged.append(part)
        return n.FString(merged, self.span(first))

    def _fstring_parts(self, raw_parts: list) -> list:
        parts = []
        for part in raw_parts:
            if isinstance(part, Field):
                parts.append(self._field(part))
            else:
                parts.append(part)
        return parts

    def _field(self, field: Field) -> n.FormattedValue:
        lexer = Lexer(self.source, field.start, field.end, bracket_mode=True, starts=self.starts,
                      budget=self.budget[0]).lex()
        self.budget[0] = lexer.budget
        sub = ExpressionParser(lexer, self.source, depth=self.depth + 1, budget=self.budget)
        sub.costs = self.costs  # a lambda inside a field
        value = sub.testlist()
        if sub.kind != "EOF":
            raise sub.unexpected(sub.i, "f-string: invalid syntax")
        spec = None
        if field.spec is not None:
            spec = n.FString(self._fstring_parts(field.spec), field.span)
        return n.FormattedValue(value, field.conversion, spec, field.span)


_DESCRIPTIONS = ((n.Call, "function call"), ((n.Num, n.Str, n.Constant, n.FString), "literal"),
                 (n.Compare, "comparison"), (n.Lambda, "lambda"), (n.IfExp, "conditional expression"),
                 (n.DictExpr, "dict literal"), (n.SetExpr, "set display"), (n.Comprehension, None),
                 (n.TupleExpr, "tuple"))


def describe(node: n.Node) -> str:
    """What a node is, in the words of Python's error messages."""
    for types, words in _DESCRIPTIONS:
        if isinstance(node, types):
            if words is None:  # a comprehension: its kind says which
                return "generator expression" if node.kind == "generator" else f"{node.kind} comprehension"
            return words
    return "expression"


def _is_super_call(node) -> bool:
    return node.__class__ is n.Call and node.func.__class__ is n.Name and node.func.id == "super"
