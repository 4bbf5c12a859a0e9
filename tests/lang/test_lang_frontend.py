"""The front end's fast paths against its general ones: the lexer's arrays and the kinds it
infers from a token's text, and the parser's nodes made without their __init__."""
from __future__ import annotations

import pytest

from gradcli.errors import LimitError, ParseError, Span
from gradcli.lang import lexer as lexer_module
from gradcli.lang import nodes as n
from gradcli.lang.lexer import _TOKEN_RE, Lexer, lex, tokenize
from gradcli.lang.parser import parse, parse_expression
from lang_helpers import dump, raises_at


def test_arrays_are_the_tokens():
    source = 'x = f(1.5e-3, y)  # c\nif x:\n    s = """a\nb""" + 0x1e\n'
    lexer = lex(source)
    tokens = tokenize(source)
    assert lexer.kinds == [t.kind for t in tokens]
    assert lexer.values == [t.value for t in tokens]
    assert (lexer.offsets, lexer.ends) == ([t.start for t in tokens], [t.end for t in tokens])
    assert [lexer.span(i) for i in range(len(tokens))] == [t.span for t in tokens]
    assert lexer.values[lexer.kinds.index("NUMBER")] == 1.5e-3
    string = lexer.kinds.index("STRING")
    assert lexer.span(string) == Span(3, 9, None) and lexer.values[string + 2] == 30


@pytest.mark.parametrize("source", [
    "a = b\n", "if x:\n\tpass\n", "x = (1 +\n  2)\n", "y = 1 + \\\n  2\n", "z = é + ß_1\n",
    "f'{x!r:>{w}}'\n", "r'\\n' + b\n", "ar'c'\n", "0x1e + 0o17 + 0b1 + 1_000 + 1e5 + .5 + 5.\n",
    "a **= b; c //= d; e >>= 1\n", "x = ...\n", "# only a comment", "\r\nx = 1\r\n", "",
])
def test_the_kind_from_the_text_is_the_named_group(source):
    """Each token's kind, inferred from its text, is the one the named pattern gives it."""
    lexer = lex(source)
    kinds_at = {start: kind for start, end, kind in zip(lexer.offsets, lexer.ends, lexer.kinds)
                if end > start and kind != "NEWLINE"}
    read = 0
    for match in _TOKEN_RE.finditer(source):
        group = match.lastgroup
        text = match.group(group)
        expected = {"name": (text if text in lexer_module.KEYWORDS else "NAME",), "op": (text,),
                    "float": ("NUMBER",), "int": ("NUMBER",), "string": ("STRING", "FSTRING")}.get(group)
        if expected is not None:
            assert kinds_at[match.start(group)] in expected, (source, group, text)
            read += 1
    assert read == len(kinds_at)


# one line each: the column where the error is reported
@pytest.mark.parametrize("source, col, message", [
    ("x'abc'", 1, "invalid character 'x'"),  # a one-letter name before a quote is `bad`
    ("y = _\"a\"", 5, "invalid character '_'"),
    ("x = 1abc", 5, "invalid decimal literal"),
    ("x = $", 5, "invalid character '\\$'"),
    ("x = 1 \\ 2", 7, "unexpected character after line continuation"),
    ("é\"a\"", 1, "invalid character 'é'"),
])
def test_rare_kinds_keep_their_errors(source, col, message):
    raises_at(ParseError, 1, col, tokenize, source, match=message)


def test_a_source_longer_than_the_budget_is_read_one_match_at_a_time(monkeypatch):
    calls = []

    class Spy:
        def __init__(self, name, pattern):
            self.name, self.pattern = name, pattern

        def findall(self, *args):
            calls.append(self.name + ".findall")
            return self.pattern.findall(*args)

        def finditer(self, *args):
            calls.append(self.name + ".finditer")
            return self.pattern.finditer(*args)

    monkeypatch.setattr(lexer_module, "_PAIR_RE", Spy("pair", lexer_module._PAIR_RE))
    monkeypatch.setattr(lexer_module, "_WHOLE_RE", Spy("whole", lexer_module._WHOLE_RE))
    assert Lexer("x = 1 + 2\n", budget=100).lex().kinds[:3] == ["NAME", "=", "NUMBER"]
    assert calls == ["whole.findall"]  # within the budget: all at once, without a step per token
    assert Lexer("x = 'a'\n", budget=100).lex().kinds[:3] == ["NAME", "=", "STRING"]
    assert calls[1:] == ["whole.findall", "pair.findall"]  # a string: read a token at a time
    del calls[:]
    assert Lexer("x = 1 + 2\n", budget=8).lex().kinds[:3] == ["NAME", "=", "NUMBER"]
    with pytest.raises(LimitError, match="more than"):
        Lexer("x = 1 + 2 + 3\n", budget=4).lex()
    assert calls == ["pair.finditer", "pair.finditer"]


def _slots_set(node, seen):
    """Every slot of every node reachable from `node` is set (nodes made without __init__)."""
    if isinstance(node, list):
        for item in node:
            _slots_set(item, seen)
        return
    if not isinstance(node, n.Node) or id(node) in seen:
        return
    seen.add(id(node))
    for cls in type(node).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            assert hasattr(node, slot), (type(node).__name__, slot)
            _slots_set(getattr(node, slot), seen)


def test_fast_path_nodes_are_whole_and_the_same_as_the_general_ones():
    fast = parse_expression("1.5*x + x*y - sin(x) + cos(y)*2 - f(3) / g")
    _slots_set(fast, set())
    # the same expression with every operand bracketed goes through the general path
    general = parse_expression("(1.5)*(x) + (x)*(y) - (sin((x))) + (cos((y)))*(2) - (f((3))) / (g)")
    assert dump(fast) == dump(general) == \
        "(- (+ (- (+ (* 1.5 x) (* x y)) (call sin [x])) (* (call cos [y]) 2)) (/ (call f [3]) g))"
    assert fast.span == Span(1, 33, 34)  # the root is the last `-`
    _slots_set(parse("z = a + b * c\nw = h(z) ** 2 + k(1)(2)\n").body, set())


def test_fast_path_spans():
    call = parse_expression("  sin(x)")
    assert (call.span, call.func.span, call.args[0].span) == (Span(1, 3, 6), Span(1, 3, 6), Span(1, 7, 8))
    chain = parse_expression("a +\tbb * 3")
    assert (chain.span, chain.right.span, chain.right.left.span, chain.right.right.span) == \
        (Span(1, 3, 4), Span(1, 8, 9), Span(1, 5, 7), Span(1, 10, 11))
