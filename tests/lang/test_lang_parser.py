"""The parser: structure and precedence, spans, every statement kind, f-strings,
errors with positions, and the size limits (long chains, many statements, deep nesting)."""
from __future__ import annotations


import pytest

from gradcli.errors import ParseError, ProgramError, Span
from gradcli.lang import compile_program
from gradcli.lang import nodes as n
from gradcli.lang.limits import MAX_NESTING
from gradcli.lang.parser import parse, parse_expression
from lang_helpers import dump, raises_at


def expr(source: str) -> str:
    return dump(parse_expression(source))


def stmts(source: str) -> str:
    return dump(parse(source).body)


@pytest.mark.parametrize("source, tree", [
    ("a + b * c - d", "(- (+ a (* b c)) d)"),
    ("a - b - c", "(- (- a b) c)"),
    ("a / b * c // d % e @ f", "(@ (% (// (* (/ a b) c) d) e) f)"),
    ("-x ** 2", "(- (** x 2))"),
    ("a ** b ** c", "(** a (** b c))"),
    ("2 ** -x", "(** 2 (- x))"),
    ("-a * b", "(* (- a) b)"),
    ("not a == b", "(not (cmp a == b))"),
    ("not a or b and c", "(or (not a) (and b c))"),
    ("a or b or c", "(or a b c)"),
    ("a and b or c and d", "(or (and a b) (and c d))"),
    ("a < b <= c != d", "(cmp a < b <= c != d)"),
    ("a + 1 < b * 2", "(cmp (+ a 1) < (* b 2))"),
    ("x is not None", "(cmp x is not None)"),
    ("a not in b", "(cmp a not in b)"),
    ("a if b else c if d else e", "(if b a (if d c e))"),
    ("lambda g: g * 2", "(lambda g (* g 2))"),
    ("lambda a, b=1, *c, d=2: a", "(lambda a,b,c,d a)"),
    ("x.grad.data.zero_()", "(call (. (. (. x grad) data) zero_) [])"),
    ("f(a, *b, c=1)(d)", "(call (call f [a *b] c=1) [d])"),
    ("x[0]", "([] x 0)"),
    ("x[:, 1]", "([] x (tuple (: _ _ _) 1))"),
    ("x[1:3, ::2, None, ...]", "([] x (tuple (: 1 3 _) (: _ _ 2) None Ellipsis))"),
    ("x[-1]", "([] x (- 1))"),
    ("[1, [2, 3]]", "(list 1 (list 2 3))"),
    ("(1,)", "(tuple 1)"),
    ("()", "(tuple)"),
    ("(a)", "a"),
    ("{'a': 1, 2: b}", "(dict 'a':1 2:b)"),
    ("'a' 'b'", "'ab'"),
    ("True and None or False", "(or (and True None) False)"),
])
def test_precedence_and_structure(source, tree):
    assert expr(source) == tree


def test_spans_point_at_operators_names_and_brackets():
    tree = parse_expression("a + sin(x)[0] * -y")
    assert tree.span == Span(1, 3, 4)                      # the '+'
    call = tree.right.left.value
    assert isinstance(call, n.Call) and call.span == Span(1, 5, 8)   # 'sin'
    assert tree.right.left.span == Span(1, 11, 12)         # '['
    assert tree.right.span == Span(1, 15, 16)              # '*'
    assert tree.right.right.span == Span(1, 17, 18)        # unary '-'


def test_method_call_span_is_the_method_name():
    call = parse_expression("z.backward()")
    assert isinstance(call, n.Call) and (call.span.line, call.span.col) == (1, 3)


def test_statement_spans_on_later_lines():
    module = parse("x = 1\n\nif x:\n    y = x ** 2\n")
    inner = module.body[1].branches[0][1][0]
    assert inner.span == Span(4, 5, 6)
    assert inner.value.span == Span(4, 11, 13)


@pytest.mark.parametrize("source, tree", [
    ("x = 1", "[(= x 1)]"),
    ("a = b = 2", "[(= a b 2)]"),
    ("b, c, d = a.unbind()", "[(= (tuple b c d) (call (. a unbind) []))]"),
    ("(a, b) = t", "[(= (tuple a b) t)]"),
    ("[a, b] = t", "[(= (list a b) t)]"),
    ("x.grad = None", "[(= (. x grad) None)]"),
    ("x[0] = 1.", "[(= ([] x 0) 1.0)]"),
    ("x += 1; y -= 2; z *= 3", "[(+= x 1) (-= y 2) (*= z 3)]"),
    ("w /= 2; w @= m; w **= 2", "[(/= w 2) (@= w m) (**= w 2)]"),
    ("x.data += 1", "[(+= (. x data) 1)]"),
    ("import torch", "[(import torch)]"),
    ("import torch.nn as nn, torch.nn.functional as F",
     "[(import torch.nn as nn torch.nn.functional as F)]"),
    ("from torch import nn, optim, autograd", "[(from torch import nn optim autograd)]"),
    ("from torch.autograd import (Function,\n grad as g)",
     "[(from torch.autograd import Function grad as g)]"),
    ("with torch.no_grad():\n    y = x", "[(with (call (. torch no_grad) []) [(= y x)])]"),
    ("with no_grad() as g, enable_grad(): pass",
     "[(with (call no_grad []) as g (call enable_grad []) [pass])]"),
    ("for i in range(3):\n    s += i", "[(for i (call range [3]) [(+= s i)])]"),
    ("for a, b in pairs: pass", "[(for (tuple a b) pairs [pass])]"),
    ("while x < 3:\n    x += 1\n    if x: break\n    continue",
     "[(while (cmp x < 3) [(+= x 1) (if x [break] else []) continue])]"),
    ("if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3",
     "[(if a [(= x 1)] b [(= x 2)] else [(= x 3)])]"),
    ("def f(a, b=1, *, c=2):\n    return a", "[(def f(a,b,c) [(return a)])]"),
    ("@torch.no_grad()\ndef f(t):\n    return t * 2",
     "[(@(call (. torch no_grad) []) def f(t) [(return (* t 2))])]"),
    ("def f(x: float) -> float:\n    return", "[(def f(x) [(return _)])]"),
    ("class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return x",
     "[(class F [(. (. torch autograd) Function)] [(@staticmethod def forward(ctx,x) [(return x)])])]"),
    ("assert x > 0, 'positive'", "[(assert (cmp x > 0) 'positive')]"),
    ("pass;", "[pass]"),
    ("x = 1; y = 2;", "[(= x 1) (= y 2)]"),
])
def test_statements(source, tree):
    assert stmts(source) == tree


def test_def_records_its_local_names():
    (fn,) = parse("def f(a):\n    b = a\n    for i in x: c = i\n    def g(): d = 1\n").body
    assert fn.locals == frozenset({"a", "b", "i", "c", "g"})


def test_expression_statement_text():
    module = parse("x = 3.0\n  (x ** 2 )  # the output\n".replace("\n  (", "\n("))
    assert module.body[-1].text == "(x ** 2 )"


def test_fstrings():
    assert expr('f"{w:.3f}"') == "(f {w:(f '.3f')})"
    assert expr('f"a{x!r}b{{c}}"') == "(f 'a' {x!r} 'b{c}')"
    assert expr('f"{x:>{width}}"') == "(f {x:(f '>' {width})})"
    assert expr("f'{a[0] + b}' 'tail'") == "(f {(+ ([] a 0) b)} 'tail')"
    assert expr('f"{x != y}"') == "(f {(cmp x != y)})"


def test_fstring_expression_positions_are_the_files():
    node = parse_expression('f"ab{x + y}"')
    field = node.parts[1]
    assert field.value.span == Span(1, 8, 9)  # the '+' inside the f-string


def test_fstring_expression_errors_point_inside():
    raises_at(ParseError, 1, 12, parse, 'x = f"{a + }"', match="expected an expression")
    raises_at(ParseError, 1, 10, parse, 'x = f"{a.__class__}"', match="'__class__'")


# one row a case (like test_lang_interpreter's Python errors: `duplicates` pairs the two
# tables by their rows' shape; the data differs and the test body is written once)
@pytest.mark.parametrize("source, line, col, message", [
    ("x = = 1", 1, 5, "invalid syntax"),
    ("x = (1 +)", 1, 9, "invalid syntax"),
    ("x = 1 +", 1, 8, "expected an expression"),
    ("if x\n    y = 1", 1, 5, "expected ':'"),
    ("if x:\ny = 1", 2, 1, "expected an indented block after 'if' statement on line 1"),
    ("x = 1\n    y = 2", 2, 5, "unexpected indent"),
    ("def f(:): pass", 1, 7, "expected a parameter name"),
    ("f(a=1, b)", 1, 8, "positional argument follows keyword argument"),
    ("f(a=1, a=2)", 1, 8, "keyword argument repeated"),
    ("def f(a=1, b): pass", 1, 12, "non-default argument follows default argument"),
    ("def f(a, a): pass", 1, 10, "duplicate argument"),
    ("f() = 1", 1, 1, "cannot assign to function call"),
    ("a + b = 1", 1, 3, "cannot assign to expression"),
    ("(a, 1) = t", 1, 5, "cannot assign to literal"),
    ("f(x) += 1", 1, 1, "illegal expression for augmented assignment"),
    ("break", 1, 1, "'break' outside loop"),
    ("def f():\n    continue", 2, 5, "'continue' not properly in loop"),
    ("return 1", 1, 1, "'return' outside function"),
    ("try:\n    pass", 2, 9, "expected 'except' or 'finally' block"),
    ("try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass", 3, 1,
     "default 'except:' must be last"),
    ("del x", 1, 1, "'del' is not supported"),
    ("f(x for x in y, 1)", 1, 3, "Generator expression must be parenthesized"),
    ("f(): float = 1", 1, 1, "illegal target for annotation"),
    ("x = {1: 2, 3}", 1, 13, "expected ':'"),
    ("x = *a", 1, 5, "starred expressions"),
    ("x = 1 2", 1, 7, "invalid syntax"),
    ("lambda: (yield)", 1, 10, "'yield' is not supported"),
])
def test_syntax_errors_with_positions(source, line, col, message):
    raises_at(ParseError, line, col, parse, source, match=message)


@pytest.mark.parametrize("source, message", [
    ("import os", "module 'os' is not supported in gradcli: programs have no file system"),
    ("import numpy.random as npr", "module 'numpy.random' is not supported in gradcli"),
    ("from os import path", "module 'os' is not supported in gradcli"),
    ("import torch.cuda.amp", "module 'torch.cuda.amp' is not supported in gradcli: gradcli "
                              "computes in float64 and float32 only"),
    ("import torch.nn.functionl", "no module named 'torch.nn.functionl'"),
    ("from torch import *", "import \\*' is not supported"),
    ("from . import x", "relative imports"),
])
def test_imports_only_torch(source, message):
    with pytest.raises(ProgramError, match=message) as info:
        parse(source)
    assert info.value.span.line == 1


def test_import_error_position():
    raises_at(ProgramError, 2, 8, parse, "import torch\nimport os\n", match="module 'os' is not supported")


def test_long_chain_parses():
    # how fast is benchmarks/parse.py's business; here: it parses, as a left-leaning chain
    source = "x = 1.0\ny = " + " + ".join(["x"] * 100_000) + "\n"
    program = compile_program(source)
    tree = program.module.body[1].value
    depth = 0
    while isinstance(tree, n.BinOp):
        tree, depth = tree.left, depth + 1
    assert depth == 99_999


def test_long_mixed_chain_is_left_deep_with_exact_spans():
    """10^5 terms of mixed `+ -` over products and quotients: the sum is a left-deep
    chain whose every operator and operand has its own column."""
    forms = ["2.5*x", "x*y/z", "sin(x)", "y", "x % 3 // y @ z"]
    trees = ["(* 2.5 x)", "(/ (* x y) z)", "(call sin [x])", "y", "(@ (// (% x 3) y) z)"]
    text, ops, col = [], [], 5
    for i in range(100_000):
        if i:
            ops.append(("-" if i % 7 == 0 else "+", col + 1))
            text.append(f" {ops[-1][0]} ")
            col += 3
        text.append(forms[i % len(forms)])
        col += len(text[-1])
    tree = parse("y = " + "".join(text) + "\n").body[0].value
    for i in reversed(range(1, 100_000)):
        op, op_col = ops[i - 1]
        assert (tree.op, tree.span) == (op, Span(1, op_col, op_col + 1))
        assert dump(tree.right) == trees[i % len(forms)]
        tree = tree.left
    assert dump(tree) == trees[0]
    assert (tree.span, tree.left.span, tree.right.span) == (Span(1, 8, 9), Span(1, 5, 8),
                                                            Span(1, 9, 10))


def test_chain_ends_at_what_is_not_arithmetic():
    assert expr("a - b * c / d + e % f // g @ h - i") == \
        "(- (+ (- a (/ (* b c) d)) (@ (// (% e f) g) h)) i)"
    assert expr("a * b < c + d and e") == "(and (cmp (* a b) < (+ c d)) e)"
    assert expr("-a * -b ** c - d") == "(- (* (- a) (- (** b c))) d)"
    assert expr("a * b & c") == "(& (* a b) c)"
    assert expr("a | b ^ c & d << e") == "(| a (^ b (& c (<< d e))))"
    assert expr("a == b | c") == "(cmp a == (| b c))"
    raises_at(ParseError, 1, 5, parse_expression, "a + ", match="expected an expression")


def test_long_product_and_boolean_chains():
    assert isinstance(parse_expression(" * ".join(["x"] * 20_000)), n.BinOp)
    chain = parse_expression(" and ".join(["x"] * 20_000))
    assert isinstance(chain, n.BoolOp) and len(chain.values) == 20_000
    compare = parse_expression(" < ".join(["x"] * 20_000))
    assert isinstance(compare, n.Compare) and len(compare.ops) == 19_999


def test_many_statements_parse():
    source = "".join(f"x{i} = {i}\n" for i in range(100_000))
    program = compile_program(source)
    assert len(program.module.body) == 100_000
    assert len(program.input_names) == 100_000


@pytest.mark.parametrize("source", [
    "y = " + "(" * 200 + "x" + ")" * 200,
    "y = " + "[" * 200 + "x" + "]" * 200,
    "y = " + "-" * 500 + "x",
    "y = " + "not " * 500 + "x",
    "y = x" + " ** x" * 500,
    "y = x" + ".T" * 500,
    "y = " + "f(" * 200 + "x" + ")" * 200,
    "y = " + "lambda: " * 200 + "x",
    "".join("    " * i + "if x:\n" for i in range(200)) + "    " * 200 + "pass\n",
])
def test_deep_nesting_is_a_parse_error_not_a_crash(source):
    with pytest.raises(ParseError, match="too deeply nested") as info:
        compile_program(source)
    assert info.value.span is not None


def test_nesting_just_under_the_limit_parses():
    depth = MAX_NESTING - 2
    compile_program("y = " + "(" * depth + "x" + ")" * depth)


def test_source_length_limit():
    with pytest.raises(ProgramError, match="limit"):
        compile_program("x = 1\n" * 2_000_000)
