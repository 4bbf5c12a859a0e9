"""The parser: tokens to a syntax tree (`gradcli.lang.nodes`), by recursive
descent for statements and precedence climbing for binary operators.

Python's grammar and precedence for the subset of SPEC 2. A left-associative
chain (`a + b + c ...`, `a and b and c`, `a < b < c`) is read by a loop, so
10^5 terms cost no stack; everything that does recurse (brackets, blocks,
unary operators, `**`, trailers) counts against `MAX_NESTING` and fails with
a ParseError at the token that went too deep. Besides syntax, it checks what
Python's compiler checks (`break` outside a loop, `return` outside a def,
assignment targets) and which modules may be imported.
"""
from __future__ import annotations


from gradcli.errors import ParseError, Span, close_matches
from gradcli.lang import nodes as n
from gradcli.lang.lexer import Field, Lexer, Token, line_starts
from gradcli.lang.limits import MAX_NESTING, MAX_TOKENS
from gradcli.lang.tokencount import refuse_too_many_tokens
from gradcli.lang.unsupported import known_module, module_refusal

# The modules a program may import (SPEC 2.1); the interpreter's namespaces mirror them.
IMPORTABLE_MODULES = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.autograd",
                      "torch.autograd.functional", "torch.optim", "torch.optim.lr_scheduler",
                      "torch.linalg", "torch.cuda",
                      "torch.autograd.graph", "torch.autograd.function", "torch.func",
                      "math", "numpy")

# The standard modules' facades (`gradcli.lang.stdlib`) and torch.utils.data.
IMPORTABLE_MODULES += ("torch.utils", "torch.utils.data", "time", "random", "collections",
                       "itertools", "functools", "typing", "dataclasses", "__future__",
                       "argparse", "sys")

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
_AUGMENTED = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "@=": "@", "**=": "**",
              "//=": "//", "%=": "%", "&=": "&", "|=": "|", "^=": "^"}
_UNSUPPORTED_STATEMENTS = frozenset({"global", "nonlocal", "del", "yield", "async", "await"})
_COMPOUND = frozenset({"if", "while", "for", "def", "class", "with", "try", "@"})


class Parser:
    """Parses the tokens of one program (or of one f-string field)."""

    def __init__(self, tokens: list[Token], source: str, starts: list, depth: int = 0,
                 budget: list | None = None):
        self.tokens = tokens
        self.budget = budget if budget is not None else [MAX_TOKENS]  # shared with f-string fields
        self.source = source
        self.starts = starts
        self.i = 0
        self.tok = tokens[0]  # the current token
        self.depth = depth
        self.loop_depth = 0
        self.in_function = False
        self.in_class_body = False
        self.scopes: list[set] = []  # names bound in each enclosing def body
        self.costs: dict = {}  # id(statement or lambda) -> tokens one execution evaluates
        self.nested: list = []  # tokens taken by the blocks of each statement being parsed

    # --- token helpers ---------------------------------------------------

    def peek_kind(self, ahead: int = 1) -> str:
        index = min(self.i + ahead, len(self.tokens) - 1)
        return self.tokens[index].kind

    def advance(self) -> Token:
        token = self.tok
        if token.kind != "EOF":
            self.i += 1
            self.tok = self.tokens[self.i]
        return token

    def accept(self, kind: str) -> Token | None:
        if self.tok.kind == kind:
            return self.advance()
        return None

    def expect(self, kind: str, message: str | None = None) -> Token:
        token = self.tok
        if token.kind != kind:
            raise self.unexpected(token, message or f"expected '{kind}'")
        return self.advance()

    def unexpected(self, token: Token, message: str = "invalid syntax") -> ParseError:
        if token.kind == "INDENT":
            return ParseError("unexpected indent", token.span)
        if token.kind == "DEDENT":
            return ParseError("unindent does not match any outer indentation level", token.span)
        if token.kind == "EOF" and message == "invalid syntax":
            message = "unexpected end of input"
        if token.kind in _UNSUPPORTED_STATEMENTS:
            message = f"'{token.kind}' is not supported in gradcli programs"
        if token.kind == ":=":
            return ParseError("the walrus operator ':=' is not supported", token.span,
                              hint="assign with '=' in a statement of its own")
        return ParseError(message, token.span, self._juxtaposed(token) if message == "invalid syntax" else None)

    def _juxtaposed(self, token: Token) -> str | None:
        """A hint for `sin x`: a name followed by an operand, as in maths notation."""
        previous = self.tokens[self.i - 1] if self.i > 0 and self.tokens[self.i - 1] is not token \
            else self.tokens[self.i - 2] if self.i > 1 else None
        if previous is None or previous.kind != "NAME" or token.kind not in ("NAME", "NUMBER"):
            return None
        operand = token.value if token.kind == "NAME" else self.source_text(token)
        return f"to call {previous.value}, write {previous.value}({operand})"

    def source_text(self, token: Token) -> str:
        line = self.source.splitlines()[token.span.line - 1] if token.span.line > 0 else ""
        end = token.span.end_col or token.span.col + 1
        return line[token.span.col - 1:end - 1] or str(token.value)

    def enter(self, token: Token):
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.too_deep(token)

    def too_deep(self, token: Token) -> ParseError:
        return ParseError(f"too deeply nested: more than {MAX_NESTING} levels of brackets, "
                          "blocks, operators or trailers", token.span,
                          hint="split it into several statements")

    def leave(self):
        self.depth -= 1

    def bind(self, name: str):
        if self.scopes:
            self.scopes[-1].add(name)

    # --- module and statements --------------------------------------------

    def parse_module(self) -> n.Module:
        body: list = []
        while self.tok.kind != "EOF":
            if self.accept("NEWLINE"):
                continue
            body.extend(self.statement())
        return n.Module(body, Span(1, 1), self.costs)

    def statement(self) -> list:
        kind = self.tok.kind
        if kind in _COMPOUND:
            return [self.costed(getattr(self, "_" + ("decorated" if kind == "@" else kind)))]
        if kind == "INDENT":
            raise ParseError("unexpected indent", self.tok.span)
        return self.simple_line()

    def costed(self, parse):
        """Parse one statement with `parse` and record its cost: the tokens it spans
        (f-string fields included), less those of its nested blocks."""
        start, budget = self.i, self.budget[0]
        self.nested.append(0)
        try:
            node = parse()
        finally:
            inner = self.nested.pop()
        total = self.i - start + budget - self.budget[0]
        self.costs[id(node)] = max(1, total - inner)
        if self.nested:
            self.nested[-1] += total
        return node

    def simple_line(self) -> list:
        statements = [self.costed(self.small_statement)]
        while self.accept(";"):
            if self.tok.kind == "NEWLINE":
                break
            statements.append(self.costed(self.small_statement))
        if self.tok.kind != "NEWLINE":
            raise self.unexpected(self.tok)
        self.advance()
        return statements

    def block(self, owner: Token, what: str) -> list:
        self.expect(":", "expected ':'")
        if self.tok.kind != "NEWLINE":
            return self.simple_line()
        self.advance()
        if self.tok.kind != "INDENT":
            raise ParseError(f"expected an indented block after {what} on line {owner.line}",
                             self.tok.span)
        indent = self.advance()
        self.enter(indent)
        body: list = []
        while self.tok.kind not in ("DEDENT", "EOF"):
            if self.accept("NEWLINE"):
                continue
            body.extend(self.statement())
        self.expect("DEDENT")
        self.leave()
        return body

    def small_statement(self) -> n.Node:
        token = self.tok
        kind = token.kind
        if kind == "pass":
            return n.Pass(self.advance().span)
        if kind == "break":
            if not self.loop_depth:
                raise ParseError("'break' outside loop", token.span)
            return n.Break(self.advance().span)
        if kind == "continue":
            if not self.loop_depth:
                raise ParseError("'continue' not properly in loop", token.span)
            return n.Continue(self.advance().span)
        if kind == "return":
            if not self.in_function:
                raise ParseError("'return' outside function", token.span)
            self.advance()
            value = None
            if self.tok.kind not in ("NEWLINE", ";"):
                value = self.testlist()
            return n.Return(value, token.span)
        if kind == "import":
            return self._import()
        if kind == "from":
            return self._from_import()
        if kind == "assert":
            self.advance()
            test = self.test()
            msg = self.test() if self.accept(",") else None
            return n.Assert(test, msg, token.span)
        if kind == "raise":
            self.advance()
            exc = cause = None
            if self.tok.kind not in ("NEWLINE", ";", "EOF"):
                exc = self.test()
                if self.accept("from"):
                    cause = self.test()
            return n.Raise(exc, cause, token.span)
        if kind in _UNSUPPORTED_STATEMENTS:
            raise ParseError(f"'{kind}' is not supported in gradcli programs", token.span)
        return self.expression_statement()

    def expression_statement(self) -> n.Node:
        first = self.tok
        expr = self.testlist()
        kind = self.tok.kind
        if kind == "=":
            items = [expr]
            while self.accept("="):
                items.append(self.testlist())
            value = items.pop()
            targets = [self.target(item) for item in items]
            return n.Assign(targets, value, first.span)
        if kind in _AUGMENTED:
            op = self.advance()
            if not isinstance(expr, (n.Name, n.Attribute, n.Subscript)):
                raise ParseError(f"'{describe(expr)}' is an illegal expression for augmented assignment",
                                 expr.span)
            self.target(expr)
            value = self.testlist()
            return n.AugAssign(expr, _AUGMENTED[kind], value, op.span)
        if kind == ":":
            # `x: int = 3` assigns (the annotation is read and ignored, as for parameters);
            # a bare `x: int` declares nothing
            if not isinstance(expr, (n.Name, n.Attribute, n.Subscript)):
                raise ParseError("illegal target for annotation", expr.span)
            self.advance()
            self.test()
            if not self.accept("="):
                return n.Pass(first.span)
            target = self.target(expr)
            return n.Assign([target], self.testlist(), first.span)
        text = self.source[first.start:self.tokens[self.i - 1].end].strip()
        return n.ExprStmt(expr, text, first.span)

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

    def _if(self) -> n.If:
        token = self.advance()
        branches = [(self.test(), self.block(token, "'if' statement"))]
        orelse: list = []
        while self.tok.kind == "elif":
            elif_token = self.advance()
            branches.append((self.test(), self.block(elif_token, "'elif' statement")))
        if self.tok.kind == "else":
            else_token = self.advance()
            orelse = self.block(else_token, "'else' statement")
        return n.If(branches, orelse, token.span)

    def _loop_body(self, token: Token, what: str) -> list:
        self.loop_depth += 1
        body = self.block(token, what)
        self.loop_depth -= 1
        return body

    def _loop_else(self) -> list:
        if self.tok.kind == "else":
            token = self.advance()
            return self.block(token, "'else' statement")
        return []

    def _while(self) -> n.While:
        token = self.advance()
        test = self.test()
        body = self._loop_body(token, "'while' statement")
        return n.While(test, body, self._loop_else(), token.span)

    def _for(self) -> n.For:
        token = self.advance()
        target = self._loop_target()
        iterable = self.testlist()
        body = self._loop_body(token, "'for' statement")
        return n.For(target, iterable, body, self._loop_else(), token.span)

    def _loop_target(self) -> n.Node:
        """`a` or `a, b` up to `in` (of a for loop or a comprehension clause), and the `in`."""
        first = self.tok
        targets = [self.binary(PREC_COMPARE + 1)]
        trailing_comma = False
        while self.accept(","):
            trailing_comma = True
            if self.tok.kind == "in":
                break
            targets.append(self.binary(PREC_COMPARE + 1))
        target = targets[0] if len(targets) == 1 and not trailing_comma else n.TupleExpr(targets, first.span)
        self.target(target)
        self.expect("in", "expected 'in'")
        return target

    def _with(self) -> n.With:
        token = self.advance()
        items = []
        while True:
            start = self.tok
            context = self.test()
            target = None
            if self.accept("as"):
                target = self.target(self.binary(PREC_COMPARE + 1))
            items.append(n.WithItem(context, target, start.span))
            if not self.accept(","):
                break
        body = self.block(token, "'with' statement")
        return n.With(items, body, token.span)

    def _try(self) -> n.Try:
        token = self.advance()
        body = self.block(token, "'try' statement")
        handlers = []
        while self.tok.kind == "except":
            except_token = self.advance()
            if handlers and handlers[-1].type is None:
                raise ParseError("default 'except:' must be last", handlers[-1].span)
            kind = name = None
            if self.tok.kind != ":":
                kind = self.test()
                if self.accept("as"):
                    name = self.expect("NAME", "expected a name after 'as'").value
                    self.bind(name)
            handler_body = self.block(except_token, "'except' statement")
            handlers.append(n.ExceptHandler(kind, name, handler_body, except_token.span))
        orelse: list = []
        if handlers and self.tok.kind == "else":
            else_token = self.advance()
            orelse = self.block(else_token, "'else' statement")
        finalbody: list = []
        if self.tok.kind == "finally":
            finally_token = self.advance()
            finalbody = self.block(finally_token, "'finally' statement")
        if not handlers and not finalbody:
            raise ParseError("expected 'except' or 'finally' block", self.tok.span)
        return n.Try(body, handlers, orelse, finalbody, token.span)

    def _decorated(self) -> n.Node:
        decorators = []
        while self.tok.kind == "@":
            self.advance()
            decorators.append(self.test())
            self.expect("NEWLINE", "invalid syntax")
        if self.tok.kind == "def":
            node = self._def()
        elif self.tok.kind == "class":
            node = self._class()
        else:
            raise self.unexpected(self.tok, "expected 'def' or 'class' after a decorator")
        node.decorators = decorators
        return node

    def _def(self) -> n.FunctionDef:
        token = self.advance()
        name = self.expect("NAME", "expected a function name")
        if name.value == "__init__" and not self.in_class_body:
            raise ParseError("only a class defines __init__", name.span)
        self.bind(name.value)
        self.expect("(", "expected '('")
        params = self.params(")", annotations=True)
        self.expect(")", "expected ')'")
        if self.accept("->"):
            self.test()  # a return annotation is accepted and ignored
        saved = self.loop_depth, self.in_function, self.in_class_body
        self.loop_depth, self.in_function, self.in_class_body = 0, True, False
        self.scopes.append(set(params.names()))
        body = self.block(token, "function definition")
        local_names = frozenset(self.scopes.pop())
        self.loop_depth, self.in_function, self.in_class_body = saved
        return n.FunctionDef(name.value, params, body, [], local_names, name.span)

    def _class(self) -> n.ClassDef:
        token = self.advance()
        name = self.expect("NAME", "expected a class name")
        self.bind(name.value)
        bases: list = []
        if self.accept("("):
            while self.tok.kind != ")":
                if self.peek_kind() == "=" and self.tok.kind == "NAME":
                    raise ParseError("keyword arguments in a class definition are not supported",
                                     self.tok.span)
                bases.append(self.test())
                if not self.accept(","):
                    break
            self.expect(")", "expected ')'")
        saved = self.loop_depth, self.in_function, self.in_class_body
        self.loop_depth, self.in_function, self.in_class_body = 0, False, True
        self.scopes.append(set())  # names bound in a class body are not the enclosing def's
        body = self.block(token, "class definition")
        self.scopes.pop()
        self.loop_depth, self.in_function, self.in_class_body = saved
        return n.ClassDef(name.value, bases, body, [], name.span)

    def params(self, closer: str, annotations: bool) -> n.Params:
        params = n.Params()
        seen: set = set()
        star = False
        while self.tok.kind != closer:
            token = self.tok
            if self.accept("*"):
                if star:
                    raise ParseError("* argument may appear only once", token.span)
                star = True
                if self.tok.kind == "NAME":
                    params.vararg = self._param_name(seen)
                    if annotations and self.accept(":"):
                        self.test()
                elif self.tok.kind != ",":
                    raise ParseError("named arguments must follow bare *", self.tok.span)
            elif token.kind in ("**", "/"):
                raise ParseError(f"'{token.kind}' parameters are not supported", token.span)
            else:
                name = self._param_name(seen)
                if annotations and self.accept(":"):
                    self.test()  # annotations are accepted and ignored
                default = self.test() if self.accept("=") else None
                param = n.Param(name, default, token.span)
                if star:
                    params.kwonly.append(param)
                else:
                    if default is None and params.args and params.args[-1].default is not None:
                        raise ParseError("non-default argument follows default argument", token.span)
                    params.args.append(param)
            if not self.accept(","):
                break
        if star and params.vararg is None and not params.kwonly:
            raise ParseError("named arguments must follow bare *", self.tok.span)
        return params

    def _param_name(self, seen: set) -> str:
        token = self.expect("NAME", "expected a parameter name")
        if token.value in seen:
            raise ParseError(f"duplicate argument '{token.value}' in function definition", token.span)
        seen.add(token.value)
        return token.value

    def _dotted_name(self) -> tuple:
        first = self.expect("NAME", "expected a module name")
        parts = [first.value]
        while self.accept("."):
            parts.append(self.expect("NAME", "expected a module name").value)
        name = ".".join(parts)
        span = Span(first.line, first.col, first.col + len(name))
        if name not in IMPORTABLE_MODULES:
            close = close_matches(name, IMPORTABLE_MODULES, n=1)
            if known_module(name) or not (close and close[0].count(".") == name.count(".")):
                raise ParseError(module_refusal(name), span,
                                 hint="gradcli programs can import " + ", ".join(IMPORTABLE_MODULES))
            raise ParseError(f"no module named '{name}'", span,
                             hint=f"did you mean '{close[0]}'?" if close else None)
        return name, span

    def _import(self) -> n.Import:
        token = self.advance()
        names = []
        while True:
            name, span = self._dotted_name()
            asname = self.expect("NAME").value if self.accept("as") else None
            self.bind(asname or name.split(".")[0])
            names.append(n.Alias(name, asname, span))
            if not self.accept(","):
                break
        return n.Import(names, token.span)

    def _from_import(self) -> n.ImportFrom:
        token = self.advance()
        if self.tok.kind in (".", "..."):
            raise ParseError("relative imports are not supported", self.tok.span)
        module, _ = self._dotted_name()
        self.expect("import", "expected 'import'")
        if self.tok.kind == "*":
            raise ParseError("'from ... import *' is not supported", self.tok.span,
                             hint="import the names you use")
        parenthesized = self.accept("(")
        names = []
        while True:
            name = self.expect("NAME", "expected a name to import")
            asname = self.expect("NAME").value if self.accept("as") else None
            self.bind(asname or name.value)
            names.append(n.Alias(name.value, asname, name.span))
            if not self.accept(","):
                break
            if parenthesized and self.tok.kind == ")":
                break
        if parenthesized:
            self.expect(")", "expected ')'")
        return n.ImportFrom(module, names, token.span)

    # --- expressions -------------------------------------------------------

    def testlist(self) -> n.Node:
        """`a` or `a, b, ...` (a tuple without parentheses)."""
        first = self.tok
        expr = self.test()
        if self.tok.kind != ",":
            return expr
        elements = [expr]
        while self.accept(","):
            if self.tok.kind in ("=", "NEWLINE", ";", ")", "EOF", ":") or self.tok.kind in _AUGMENTED:
                break
            elements.append(self.test())
        return n.TupleExpr(elements, first.span)

    def test(self) -> n.Node:
        """A full expression: lambda, conditional expression, or an or-test."""
        token = self.tok
        if token.kind == "lambda":
            return self.lambda_()
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.too_deep(token)
        expr = self.binary(PREC_OR)
        if self.tok.kind == "if":
            if_token = self.advance()
            test = self.binary(PREC_OR)
            self.expect("else", "expected 'else' after 'if' expression")
            orelse = self.test()
            expr = n.IfExp(test, expr, orelse, if_token.span)
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
        node = n.Lambda(params, body, token.span)
        self.costs[id(node)] = max(1, self.i - start + budget - self.budget[0])
        return node

    def binary(self, min_prec: int) -> n.Node:
        """Operators from `or` down to comparisons, by precedence climbing (the arithmetic
        ones are `arith`'s); a run of operators of one level is read by the loop below,
        not by recursion."""
        token = self.tok
        if token.kind == "not" and min_prec <= PREC_NOT:
            self.advance()
            self.enter(token)
            operand = self.binary(PREC_NOT)
            self.leave()
            left: n.Node = n.UnaryOp("not", operand, token.span)
        else:
            left = self.bitwise(1)
        while True:
            token = self.tok
            kind = token.kind
            prec = _BINARY_PREC.get(kind)
            if prec is None or prec < min_prec:
                return left
            if kind == "or" or kind == "and":
                values = [left]
                while self.tok.kind == kind:
                    self.advance()
                    values.append(self.binary(prec + 1))
                left = n.BoolOp(kind, values, token.span)
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
            token = self.tok
            prec = _BITWISE_PREC.get(token.kind)
            if prec is None or prec < min_prec:
                return left
            self.advance()
            left = n.BinOp(left, token.kind, self.bitwise(prec + 1), token.span)

    def arith(self) -> n.Node:
        """`+ - * / // % @`: terms joined by `+ -`, each term factors joined by the others.
        One loop reads both levels (the sum so far and the term being read), so a chain of
        10^5 terms costs neither stack nor a call per term; both are left-deep BinOps."""
        total = None  # the terms read so far, and the `+`/`-` token that adds the next
        total_op = None
        term = self.operand()
        # An operator token is never EOF, so the loop steps over it without advance().
        while True:
            token = self.tok
            kind = token.kind
            if kind in _TERM_OPERATORS:
                self.i += 1
                self.tok = self.tokens[self.i]
                term = n.BinOp(term, kind, self.operand(), token.span)
                continue
            if total_op is not None:
                total = n.BinOp(total, total_op.kind, term, total_op.span)
            else:
                total = term
            if kind != "+" and kind != "-":
                return total
            self.i += 1
            self.tok = self.tokens[self.i]
            total_op = token
            term = self.operand()

    def operand(self) -> n.Node:
        """An operand of `arith`: a plain name or number (the common case, read here without
        the descent), or a factor."""
        token = self.tok
        kind = token.kind
        if kind == "NAME" or kind == "NUMBER":
            following = self.tokens[self.i + 1]
            if following.kind not in _TRAILERS:
                self.i += 1
                self.tok = following
                if kind == "NAME":
                    return n.Name(token.value, token.span)
                return n.Num(token.value, token.span)
            return self.power()
        return self.factor()

    def _comparison_operator(self) -> tuple | None:
        token = self.tok
        kind = token.kind
        if kind in ("<", ">", "==", "!=", "<=", ">=", "in"):
            self.advance()
            return kind, token.span
        if kind == "not" and self.peek_kind() == "in":
            self.advance()
            end = self.advance()
            return "not in", Span(token.line, token.col, end.end_col)
        if kind == "is":
            self.advance()
            if self.tok.kind == "not":
                end = self.advance()
                return "is not", Span(token.line, token.col, end.end_col)
            return "is", token.span
        return None

    def factor(self) -> n.Node:
        token = self.tok
        if token.kind == "-" or token.kind == "+":
            self.advance()
            self.enter(token)
            operand = self.factor()
            self.leave()
            return n.UnaryOp(token.kind, operand, token.span)
        if token.kind == "~":
            self.advance()
            self.enter(token)
            operand = self.factor()
            self.leave()
            return n.UnaryOp("~", operand, token.span)
        return self.power()

    def power(self) -> n.Node:
        base = self.primary()
        if self.tok.kind == "**":
            token = self.advance()
            self.enter(token)
            exponent = self.factor()  # right-associative, and `2 ** -x` is allowed
            self.leave()
            return n.BinOp(base, "**", exponent, token.span)
        return base

    def primary(self) -> n.Node:
        node = self.atom()
        trailers = 0
        while True:
            token = self.tok
            kind = token.kind
            if kind not in (".", "(", "["):
                return node
            trailers += 1
            if self.depth + trailers > MAX_NESTING:
                raise self.too_deep(token)
            self.advance()
            if kind == ".":
                name = self.expect("NAME", "expected an attribute name")
                if name.value == "__init__" and not _is_super_call(node):
                    raise ParseError("names that start and end with '__' are not allowed: "
                                     "'__init__'", name.span, "only super().__init__() reads it")
                node = n.Attribute(node, name.value, name.span)
            elif kind == "(":
                args, keywords = self.call_arguments()
                self.expect(")", "expected ')'")
                if isinstance(node, n.Name) or isinstance(node, n.Attribute):
                    span = node.span
                else:
                    span = token.span
                node = n.Call(node, args, keywords, span)
            else:
                index = self.subscript()
                self.expect("]", "expected ']'")
                node = n.Subscript(node, index, token.span)

    def call_arguments(self) -> tuple:
        args: list = []
        keywords: list = []
        names: set = set()
        while self.tok.kind != ")":
            token = self.tok
            if token.kind == "*":
                self.advance()
                args.append(n.Starred(self.test(), token.span))
            elif token.kind == "**":
                raise ParseError("'**' argument unpacking is not supported", token.span)
            elif token.kind == "NAME" and self.tokens[self.i + 1].kind == "=":
                self.advance()
                self.advance()
                if token.value in names:
                    raise ParseError(f"keyword argument repeated: {token.value}", token.span)
                names.add(token.value)
                keywords.append(n.Keyword(token.value, self.test(), token.span))
            else:
                if keywords:
                    raise ParseError("positional argument follows keyword argument", token.span)
                arg = self.test()
                if self.tok.kind == "for":
                    arg = self._comprehension("generator", None, arg, token)
                    if args or keywords or self.tok.kind != ")":
                        raise ParseError("Generator expression must be parenthesized", arg.span)
                args.append(arg)
            if not self.accept(","):
                break
        return args, keywords

    def subscript(self) -> n.Node:
        first = self.tok
        items = [self._slice_item()]
        if self.tok.kind != ",":
            return items[0]
        while self.accept(","):
            if self.tok.kind == "]":
                break
            items.append(self._slice_item())
        return n.TupleExpr(items, first.span)

    def _slice_item(self) -> n.Node:
        lower = None
        if self.tok.kind != ":":
            lower = self.test()
            if self.tok.kind != ":":
                return lower
        colon = self.advance()
        upper = step = None
        if self.tok.kind not in (":", ",", "]"):
            upper = self.test()
        if self.accept(":") and self.tok.kind not in (",", "]"):
            step = self.test()
        return n.Slice(lower, upper, step, colon.span)

    def _comprehension(self, kind: str, key, elt, opener: Token) -> n.Comprehension:
        """The `for ... in ... if ...` clauses after `elt`; their targets are its own scope."""
        start, budget = self.i, self.budget[0]
        self.enter(opener)
        self.scopes.append(set())
        generators = []
        while self.tok.kind == "for":
            token = self.advance()
            target = self._loop_target()
            iterable = self.binary(PREC_OR)
            ifs = []
            while self.accept("if"):
                ifs.append(self.binary(PREC_OR))
            generators.append(n.Generator(target, iterable, ifs, token.span))
        local_names = frozenset(self.scopes.pop())
        self.leave()
        node = n.Comprehension(kind, key, elt, generators, local_names, opener.span)
        # what one iteration evaluates, at most: charged per item (limits.WORK_PER_STEP)
        self.costs[id(node)] = max(1, self.i - start + budget - self.budget[0])
        return node

    def atom(self) -> n.Node:
        token = self.tok
        kind = token.kind
        if kind == "NAME":
            self.advance()
            return n.Name(token.value, token.span)
        if kind == "NUMBER":
            self.advance()
            return n.Num(token.value, token.span)
        if kind == "STRING" or kind == "FSTRING":
            return self._strings()
        if kind == "True" or kind == "False" or kind == "None" or kind == "...":
            self.advance()
            value = {"True": True, "False": False, "None": None, "...": Ellipsis}[kind]
            return n.Constant(value, token.span)
        if kind == "(":
            self.advance()
            if self.accept(")"):
                return n.TupleExpr([], token.span)
            first = self.test()
            if self.tok.kind == "for":
                first = self._comprehension("generator", None, first, token)
                self.expect(")", "expected ')'")
                return first
            if self.tok.kind == ",":
                elements = [first]
                while self.accept(","):
                    if self.tok.kind == ")":
                        break
                    elements.append(self.test())
                first = n.TupleExpr(elements, token.span)
            self.expect(")", "expected ')'")
            return first
        if kind == "[":
            self.advance()
            elements = []
            while self.tok.kind != "]":
                elements.append(self.test())
                if self.tok.kind == "for" and len(elements) == 1:
                    comprehension = self._comprehension("list", None, elements[0], token)
                    self.expect("]", "expected ']'")
                    return comprehension
                if not self.accept(","):
                    break
            self.expect("]", "expected ']'")
            return n.ListExpr(elements, token.span)
        if kind == "{":
            return self._dict()
        if kind in ("NEWLINE", "EOF"):
            raise ParseError("expected an expression", token.span)
        if kind == "*":
            raise ParseError("starred expressions are only supported as call arguments", token.span)
        raise self.unexpected(token)

    def _dict(self) -> n.Node:
        """A dict or set display, or a dict or set comprehension."""
        token = self.advance()
        keys, values = [], []
        is_set = None
        while self.tok.kind != "}":
            key = self.test()
            if is_set is None:
                is_set = self.tok.kind != ":"
            if is_set:
                keys.append(key)
                if self.tok.kind == "for" and len(keys) == 1:
                    return self._closed(self._comprehension("set", None, key, token))
            else:
                self.expect(":", "expected ':'")
                value = self.test()
                if self.tok.kind == "for" and not keys:
                    return self._closed(self._comprehension("dict", key, value, token))
                keys.append(key)
                values.append(value)
            if not self.accept(","):
                break
        self.expect("}", "expected '}'")
        if is_set:
            return n.SetExpr(keys, token.span)
        return n.DictExpr(keys, values, token.span)

    def _closed(self, comprehension: n.Comprehension) -> n.Comprehension:
        self.expect("}", "expected '}'")
        return comprehension

    def _strings(self) -> n.Node:
        """Adjacent string literals, joined as Python joins them."""
        first = self.tok
        parts: list = []
        formatted = False
        while self.tok.kind in ("STRING", "FSTRING"):
            token = self.advance()
            if token.kind == "STRING":
                parts.append(token.value)
            else:
                formatted = True
                parts.extend(self._fstring_parts(token.value))
        if not formatted:
            return n.Str("".join(parts), first.span)
        merged: list = []
        for part in parts:
            if isinstance(part, str) and merged and isinstance(merged[-1], str):
                merged[-1] += part
            elif not (isinstance(part, str) and not part):
                merged.append(part)
        return n.FString(merged, first.span)

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
                      budget=self.budget[0])
        tokens = lexer.tokenize()
        self.budget[0] = lexer.budget
        sub = Parser(tokens, self.source, self.starts, depth=self.depth + 1, budget=self.budget)
        sub.costs = self.costs  # a lambda inside a field
        value = sub.testlist()
        if sub.tok.kind != "EOF":
            raise sub.unexpected(sub.tok, "f-string: invalid syntax")
        spec = None
        if field.spec is not None:
            spec = n.FString(self._fstring_parts(field.spec), field.span)
        return n.FormattedValue(value, field.conversion, spec, field.span)


def describe(node: n.Node) -> str:
    """What a node is, in the words of Python's error messages."""
    if isinstance(node, n.Call):
        return "function call"
    if isinstance(node, (n.Num, n.Str, n.Constant, n.FString)):
        return "literal"
    if isinstance(node, n.Compare):
        return "comparison"
    if isinstance(node, n.Lambda):
        return "lambda"
    if isinstance(node, n.IfExp):
        return "conditional expression"
    if isinstance(node, n.DictExpr):
        return "dict literal"
    if isinstance(node, n.SetExpr):
        return "set display"
    if isinstance(node, n.Comprehension):
        return "generator expression" if node.kind == "generator" else f"{node.kind} comprehension"
    if isinstance(node, n.TupleExpr):
        return "tuple"
    if isinstance(node, n.BoolOp):
        return "expression"
    return "expression"


def parse(source: str) -> n.Module:
    """Parse a whole program."""
    refuse_too_many_tokens(source)
    starts = line_starts(source)
    lexer = Lexer(source, starts=starts)
    tokens = lexer.tokenize()
    return Parser(tokens, source, starts, budget=[lexer.budget]).parse_module()


def parse_expression(source: str) -> n.Node:
    """Parse a single expression (no statements), as inside brackets."""
    starts = line_starts(source)
    tokens = Lexer(source, bracket_mode=True, starts=starts).tokenize()
    parser = Parser(tokens, source, starts)
    node = parser.testlist()
    if parser.tok.kind != "EOF":
        raise parser.unexpected(parser.tok)
    return node


def _is_super_call(node) -> bool:
    return node.__class__ is n.Call and node.func.__class__ is n.Name and node.func.id == "super"
