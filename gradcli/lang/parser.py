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
from gradcli.lang.expressions import (AUGMENTED, PREC_COMPARE, UNSUPPORTED_STATEMENTS,
                                      ExpressionParser, describe)
from gradcli.lang.lexer import Lexer
from gradcli.lang.limits import MAX_TOKENS
from gradcli.lang.tokencount import refuse_too_many_tokens
from gradcli.lang.unsupported import known_module, module_refusal

# The modules a program may import (SPEC 2.1); the interpreter's namespaces mirror them.
IMPORTABLE_MODULES = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.autograd",
                      "torch.autograd.functional", "torch.optim", "torch.optim.lr_scheduler",
                      "torch.linalg", "torch.cuda",
                      "torch.autograd.graph", "torch.autograd.function", "torch.func",
                      "torch.nn.utils", "torch.nn.utils.rnn",
                      "torch.autograd.forward_ad", "math", "numpy")
# The standard modules' facades (`gradcli.lang.stdlib`) and torch.utils.data.
IMPORTABLE_MODULES += ("torch.utils", "torch.utils.data", "time", "random", "collections",
                       "itertools", "functools", "typing", "dataclasses", "__future__",
                       "argparse", "sys", "warnings")

_COMPOUND = frozenset({"if", "while", "for", "def", "class", "with", "try", "@"})


class Parser(ExpressionParser):
    """Parses the statements of one program; `ExpressionParser` reads its expressions."""

    # --- module and statements --------------------------------------------

    def parse_module(self) -> n.Module:
        body: list = []
        while self.kind != "EOF":
            if self.accept("NEWLINE"):
                continue
            body.extend(self.statement())
        return n.Module(body, Span(1, 1), self.costs)

    def statement(self) -> list:
        kind = self.kind
        if kind in _COMPOUND:
            return [self.costed(getattr(self, "_" + ("decorated" if kind == "@" else kind)))]
        if kind == "INDENT":
            raise ParseError("unexpected indent", self.span(self.i))
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
            if self.kind == "NEWLINE":
                break
            statements.append(self.costed(self.small_statement))
        if self.kind != "NEWLINE":
            raise self.unexpected(self.i)
        self.advance()
        return statements

    def block(self, owner: int, what: str) -> list:
        self.expect(":", "expected ':'")
        if self.kind != "NEWLINE":
            return self.simple_line()
        self.advance()
        if self.kind != "INDENT":
            raise ParseError(f"expected an indented block after {what} on line {self.lines[owner]}",
                             self.span(self.i))
        indent = self.advance()
        self.enter(indent)
        body: list = []
        while self.kind not in ("DEDENT", "EOF"):
            if self.accept("NEWLINE"):
                continue
            body.extend(self.statement())
        self.expect("DEDENT")
        self.leave()
        return body

    def small_statement(self) -> n.Node:
        token = self.i
        kind = self.kind
        if kind == "pass":
            return n.Pass(self.span(self.advance()))
        if kind == "break":
            if not self.loop_depth:
                raise ParseError("'break' outside loop", self.span(token))
            return n.Break(self.span(self.advance()))
        if kind == "continue":
            if not self.loop_depth:
                raise ParseError("'continue' not properly in loop", self.span(token))
            return n.Continue(self.span(self.advance()))
        if kind == "return":
            if not self.in_function:
                raise ParseError("'return' outside function", self.span(token))
            self.advance()
            value = None
            if self.kind not in ("NEWLINE", ";"):
                value = self.testlist()
            return n.Return(value, self.span(token))
        if kind == "import":
            return self._import()
        if kind == "from":
            return self._from_import()
        if kind == "assert":
            self.advance()
            test = self.test()
            msg = self.test() if self.accept(",") else None
            return n.Assert(test, msg, self.span(token))
        if kind == "raise":
            self.advance()
            exc = cause = None
            if self.kind not in ("NEWLINE", ";", "EOF"):
                exc = self.test()
                if self.accept("from"):
                    cause = self.test()
            return n.Raise(exc, cause, self.span(token))
        if kind in UNSUPPORTED_STATEMENTS:
            raise ParseError(f"'{kind}' is not supported in gradcli programs", self.span(token))
        return self.expression_statement()

    def expression_statement(self) -> n.Node:
        first = self.i
        expr = self.testlist()
        kind = self.kind
        if kind == "=":
            items = [expr]
            while self.accept("="):
                items.append(self.testlist())
            value = items.pop()
            targets = [self.target(item) for item in items]
            return n.Assign(targets, value, self.span(first))
        if kind in AUGMENTED:
            op = self.advance()
            if not isinstance(expr, (n.Name, n.Attribute, n.Subscript)):
                raise ParseError(f"'{describe(expr)}' is an illegal expression for augmented assignment",
                                 expr.span)
            self.target(expr)
            value = self.testlist()
            return n.AugAssign(expr, AUGMENTED[kind], value, self.span(op))
        if kind == ":":
            # `x: int = 3` assigns (the annotation is read and ignored, as for parameters);
            # a bare `x: int` declares nothing, but in a class body a field (for @dataclass)
            if not isinstance(expr, (n.Name, n.Attribute, n.Subscript)):
                raise ParseError("illegal target for annotation", expr.span)
            self.advance()
            self.test()
            if not self.accept("="):
                field = expr.id if self.in_class_body and isinstance(expr, n.Name) else None
                return n.Pass(self.span(first), field)
            target = self.target(expr)
            return n.Assign([target], self.testlist(), self.span(first))
        text = self.source[self.offsets[first]:self.ends[self.i - 1]].strip()
        return n.ExprStmt(expr, text, self.span(first))

    def _if(self) -> n.If:
        token = self.advance()
        branches = [(self.test(), self.block(token, "'if' statement"))]
        orelse: list = []
        while self.kind == "elif":
            elif_token = self.advance()
            branches.append((self.test(), self.block(elif_token, "'elif' statement")))
        if self.kind == "else":
            else_token = self.advance()
            orelse = self.block(else_token, "'else' statement")
        return n.If(branches, orelse, self.span(token))

    def _loop_body(self, token: int, what: str) -> list:
        self.loop_depth += 1
        body = self.block(token, what)
        self.loop_depth -= 1
        return body

    def _loop_else(self) -> list:
        if self.kind == "else":
            token = self.advance()
            return self.block(token, "'else' statement")
        return []

    def _while(self) -> n.While:
        token = self.advance()
        test = self.test()
        body = self._loop_body(token, "'while' statement")
        return n.While(test, body, self._loop_else(), self.span(token))

    def _for(self) -> n.For:
        token = self.advance()
        target = self._loop_target()
        iterable = self.testlist()
        body = self._loop_body(token, "'for' statement")
        return n.For(target, iterable, body, self._loop_else(), self.span(token))

    def _with(self) -> n.With:
        token = self.advance()
        items = []
        while True:
            start = self.i
            context = self.test()
            target = None
            if self.accept("as"):
                target = self.target(self.binary(PREC_COMPARE + 1))
            items.append(n.WithItem(context, target, self.span(start)))
            if not self.accept(","):
                break
        body = self.block(token, "'with' statement")
        return n.With(items, body, self.span(token))

    def _try(self) -> n.Try:
        token = self.advance()
        body = self.block(token, "'try' statement")
        handlers = []
        while self.kind == "except":
            except_token = self.advance()
            if handlers and handlers[-1].type is None:
                raise ParseError("default 'except:' must be last", handlers[-1].span)
            kind = name = None
            if self.kind != ":":
                kind = self.test()
                if self.accept("as"):
                    name = self.values[self.expect("NAME", "expected a name after 'as'")]
                    self.bind(name)
            handler_body = self.block(except_token, "'except' statement")
            handlers.append(n.ExceptHandler(kind, name, handler_body, self.span(except_token)))
        orelse: list = []
        if handlers and self.kind == "else":
            else_token = self.advance()
            orelse = self.block(else_token, "'else' statement")
        finalbody: list = []
        if self.kind == "finally":
            finally_token = self.advance()
            finalbody = self.block(finally_token, "'finally' statement")
        if not handlers and not finalbody:
            raise ParseError("expected 'except' or 'finally' block", self.span(self.i))
        return n.Try(body, handlers, orelse, finalbody, self.span(token))

    def _decorated(self) -> n.Node:
        decorators = []
        while self.kind == "@":
            self.advance()
            decorators.append(self.test())
            self.expect("NEWLINE", "invalid syntax")
        if self.kind == "def":
            node = self._def()
        elif self.kind == "class":
            node = self._class()
        else:
            raise self.unexpected(self.i, "expected 'def' or 'class' after a decorator")
        node.decorators = decorators
        return node

    def _def(self) -> n.FunctionDef:
        token = self.advance()
        name = self.expect("NAME", "expected a function name")
        if self.values[name] == "__init__" and not self.in_class_body:
            raise ParseError("only a class defines __init__", self.span(name))
        self.bind(self.values[name])
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
        return n.FunctionDef(self.values[name], params, body, [], local_names, self.span(name))

    def _class(self) -> n.ClassDef:
        token = self.advance()
        name = self.expect("NAME", "expected a class name")
        self.bind(self.values[name])
        bases: list = []
        if self.accept("("):
            while self.kind != ")":
                if self.peek_kind() == "=" and self.kind == "NAME":
                    raise ParseError("keyword arguments in a class definition are not supported",
                                     self.span(self.i))
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
        return n.ClassDef(self.values[name], bases, body, [], self.span(name))

    def _dotted_name(self) -> tuple:
        first = self.expect("NAME", "expected a module name")
        parts = [self.values[first]]
        while self.accept("."):
            parts.append(self.values[self.expect("NAME", "expected a module name")])
        name = ".".join(parts)
        first_span = self.span(first)
        span = Span(first_span.line, first_span.col, first_span.col + len(name))
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
            asname = self.values[self.expect("NAME")] if self.accept("as") else None
            self.bind(asname or name.split(".")[0])
            names.append(n.Alias(name, asname, span))
            if not self.accept(","):
                break
        return n.Import(names, self.span(token))

    def _from_import(self) -> n.ImportFrom:
        token = self.advance()
        if self.kind in (".", "..."):
            raise ParseError("relative imports are not supported", self.span(self.i))
        module, _ = self._dotted_name()
        self.expect("import", "expected 'import'")
        if self.kind == "*":
            raise ParseError("'from ... import *' is not supported", self.span(self.i),
                             hint="import the names you use")
        parenthesized = self.accept("(")
        names = []
        while True:
            name = self.expect("NAME", "expected a name to import")
            asname = self.values[self.expect("NAME")] if self.accept("as") else None
            self.bind(asname or self.values[name])
            names.append(n.Alias(self.values[name], asname, self.span(name)))
            if not self.accept(","):
                break
            if parenthesized and self.kind == ")":
                break
        if parenthesized:
            self.expect(")", "expected ')'")
        return n.ImportFrom(module, names, self.span(token))


def parse(source: str) -> n.Module:
    """Parse a whole program."""
    refuse_too_many_tokens(source)
    lexer = Lexer(source).lex()
    return Parser(lexer, source, budget=[lexer.budget]).parse_module()


def parse_expression(source: str) -> n.Node:
    """Parse a single expression (no statements), as inside brackets."""
    parser = Parser(Lexer(source, bracket_mode=True).lex(), source, budget=[MAX_TOKENS])
    node = parser.testlist()
    if parser.kind != "EOF":
        raise parser.unexpected(parser.i)
    return node
