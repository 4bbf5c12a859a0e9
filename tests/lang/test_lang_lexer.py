"""The tokenizer: tokens, positions, indentation, numbers, strings, f-strings, errors."""
from __future__ import annotations

import pytest

from gradcli.errors import ParseError, Span
from gradcli.lang.lexer import Field, tokenize
from lang_helpers import raises_at


def kinds(source: str) -> list:
    return [t.kind for t in tokenize(source)]


def values(source: str, kind: str) -> list:
    return [t.value for t in tokenize(source) if t.kind == kind]


def test_tokens_and_positions():
    tokens = tokenize("x = 1_000 + 2.5e3\n")
    assert [(t.kind, t.value, t.line, t.col, t.end_col) for t in tokens] == [
        ("NAME", "x", 1, 1, 2), ("=", "=", 1, 3, 4), ("NUMBER", 1000, 1, 5, 10),
        ("+", "+", 1, 11, 12), ("NUMBER", 2500.0, 1, 13, 18), ("NEWLINE", None, 1, 18, 19),
        ("EOF", None, 2, 1, 1),
    ]


def test_keywords_and_operators():
    assert kinds("if not a ** b // c @ d != e:") == [
        "if", "not", "NAME", "**", "NAME", "//", "NAME", "@", "NAME", "!=", "NAME", ":",
        "NEWLINE", "EOF"]
    assert kinds("x **= 2; y @= z") == ["NAME", "**=", "NUMBER", ";", "NAME", "@=", "NAME",
                                        "NEWLINE", "EOF"]


@pytest.mark.parametrize("text, value", [
    ("1", 1), ("1_000", 1000), ("1.", 1.0), (".5", 0.5), ("1e3", 1000.0), ("1.5E-2", 0.015),
    ("0x1f", 31), ("0o17", 15), ("0b101", 5), ("1_0.2_5", 10.25),
])
def test_numbers(text, value):
    (token,) = values(text, "NUMBER")
    assert token == value and type(token) is type(value)


def test_huge_integer_literal_becomes_float():
    (value,) = values("1" + "0" * 30, "NUMBER")
    assert value == 1e30 and isinstance(value, float)


@pytest.mark.parametrize("text, message", [
    ("1abc", "invalid decimal literal"),
    ("012", "leading zeros"),
    ("x = $", "invalid character"),
    ("x = 1 ! 2", "'!' is not an operator"),
    ("b'abc'", "bytes literals"),
])
def test_bad_tokens(text, message):
    with pytest.raises(ParseError, match=message):
        tokenize(text)


def test_strings_and_escapes():
    assert values(r"""'a\n' "b\t\"" r'c\n' '\x41\u00e9' '''t
q'''""", "STRING") == ["a\n", 'b\t"', "c\\n", "Aé", "t\nq"]


def test_unterminated_string_position():
    raises_at(ParseError, 2, 5, tokenize, "x = 1\ny = 'abc\n", match="unterminated string literal")
    raises_at(ParseError, 1, 5, tokenize, 'y = """abc\n\n', match="unterminated triple-quoted")


def test_multiline_string_keeps_line_count():
    tokens = tokenize('s = """a\nb\nc"""\nz = 1\n')
    z = [t for t in tokens if t.value == "z"][0]
    assert (z.line, z.col) == (4, 1)


def test_tokens_carry_their_span_and_offsets():
    source = 's = """a\nb"""\nz = (x + 1.5)  # c\n'
    tokens = tokenize(source)
    for token in tokens:
        assert token.span == Span(token.line, token.col, token.end_col)
    string = tokens[2]
    assert (string.kind, string.span, source[string.start:string.end]) == \
        ("STRING", Span(1, 5, None), '"""a\nb"""')
    plus = [t for t in tokens if t.kind == "+"][0]
    assert (plus.span, plus.start, plus.end) == (Span(3, 8, 9), 21, 22)


def test_indentation_tokens():
    source = "if x:\n    y = 1\n    if y:\n        z = 2\nw = 3\n"
    assert kinds(source) == [
        "if", "NAME", ":", "NEWLINE", "INDENT", "NAME", "=", "NUMBER", "NEWLINE",
        "if", "NAME", ":", "NEWLINE", "INDENT", "NAME", "=", "NUMBER", "NEWLINE",
        "DEDENT", "DEDENT", "NAME", "=", "NUMBER", "NEWLINE", "EOF"]


def test_blank_lines_and_comments_do_not_indent():
    source = "if x:\n\n    # comment\n        \n    y = 1  # trailing\n# at column 0\nz = 2"
    assert kinds(source).count("INDENT") == 1
    assert kinds(source).count("NEWLINE") == 3


def test_tabs_count_to_multiples_of_eight():
    assert kinds("if x:\n\ty = 1\n\tz = 2\n").count("INDENT") == 1
    assert kinds("if x:\n\ty = 1\n\t  z = 2\n").count("INDENT") == 2


def test_inconsistent_tabs_and_spaces():
    with pytest.raises(ParseError, match="inconsistent use of tabs and spaces"):
        tokenize("if x:\n        y = 1\n\tz = 2\n")


def test_unindent_mismatch_position():
    raises_at(ParseError, 3, 3, tokenize, "if x:\n    y = 1\n  z = 2\n",
              match="unindent does not match")


def test_implicit_line_joining_and_continuation():
    assert kinds("x = (1 +\n     2)\ny = [1,\n  2]\n").count("NEWLINE") == 2
    assert "INDENT" not in kinds("x = (1 +\n        2)\n")
    assert kinds("x = 1 + \\\n    2\n") == ["NAME", "=", "NUMBER", "+", "NUMBER", "NEWLINE", "EOF"]


def test_brackets_must_match():
    raises_at(ParseError, 1, 5, tokenize, "x = (1 + 2", match=r"'\(' was never closed")
    raises_at(ParseError, 1, 11, tokenize, "x = (1 + 2]", match="does not match")
    raises_at(ParseError, 1, 5, tokenize, "x = )", match=r"unmatched '\)'")


def test_semicolons_and_crlf():
    assert kinds("a = 1; b = 2\r\nc = 3\r\n").count("NEWLINE") == 2


def test_dunder_names_are_refused_where_they_are():
    raises_at(ParseError, 2, 3, tokenize, "x = 1\nx.__class__\n", match="'__class__'")
    raises_at(ParseError, 1, 1, tokenize, "__import__('os')", match="start and end with '__'")
    assert values("_x = __y = z__", "NAME") == ["_x", "__y", "z__"]


def test_fstring_parts():
    (parts,) = values('f"a{x:.3f}b{{c}}{y!r}"', "FSTRING")
    assert parts[0] == "a" and parts[2] == "b{c}"
    assert isinstance(parts[1], Field) and parts[1].spec == [".3f"] and parts[1].conversion is None
    assert isinstance(parts[3], Field) and parts[3].conversion == "r"


def test_fstring_nested_spec_field():
    (parts,) = values('f"{x:>{width}.{p}f}"', "FSTRING")
    spec = parts[0].spec
    assert spec[0] == ">" and isinstance(spec[1], Field) and spec[2] == "." and spec[4] == "f"


@pytest.mark.parametrize("text, message", [
    ('f"{}"', "empty expression"),
    ('f"a}"', "single '}'"),
    ('f"{x!z}"', "invalid conversion"),
    ('f"{x"', "expecting '}'"),
    ('f"{x#}"', "cannot include '#'"),
])
def test_fstring_errors(text, message):
    with pytest.raises(ParseError, match=message):
        tokenize(text)
