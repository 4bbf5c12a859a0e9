"""The early token count (lang/tokencount.py) is a lower bound of the lexer's: it never
refuses a program the lexer would accept, and it refuses the long ones at the right place."""
import pytest
from hypothesis import given, settings, strategies as st

from gradcli.errors import LimitError
from gradcli.lang import lexer, tokencount

PIECES = ["x", "wx_1", "é", "1", "1.5", "1.5e-3", "2E+5", "1e5", ".5", "0x1f", "1_000", "e", "+", "-", "*",
          "**", "**=", "//", "->", "...", ".", "(", ")", "[", "]", ",", ":", ";", "==", "!=", "<=", "@",
          " ", "  ", "\t", "\n", "\r\n", "# a comment + 1 + 2\n", "if", "not"]


def lexer_matches(source: str) -> int:
    return sum(1 for _ in lexer._TOKEN_RE.finditer(source))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=80))
def test_never_refuses_what_the_lexer_accepts(pieces):
    source = "".join(pieces)
    matches = lexer_matches(source)
    saved = tokencount.MAX_TOKENS
    tokencount.MAX_TOKENS = matches  # exactly at the limit: the lexer accepts it
    try:
        tokencount.refuse_too_many_tokens(source)
    finally:
        tokencount.MAX_TOKENS = saved


@pytest.mark.parametrize("batch", [1 << 20, 7, 64])  # small batches: counts cross chunk edges
def test_refuses_a_long_program_at_the_token_past_the_limit(monkeypatch, batch):
    monkeypatch.setattr(tokencount, "_BATCH", batch)
    source = "x = 1.0\n" * 30 + "y = " + "x*1.5e-3+" * 400 + "x\n" + "z = y\n" * 10
    tokens = lexer.tokenize(source)  # no comment or indent: the lexer's tokens are its matches
    monkeypatch.setattr(tokencount, "MAX_TOKENS", 1000)
    with pytest.raises(LimitError, match="more than 1000 tokens") as info:
        tokencount.refuse_too_many_tokens(source)
    assert tuple(info.value.span)[:2] == tuple(tokens[1000].span)[:2]


def test_strings_and_continuations_are_left_to_the_lexer(monkeypatch):
    monkeypatch.setattr(tokencount, "MAX_TOKENS", 10)
    for source in ['s = """\n' + "1+" * 50 + '\n"""\n', "y = 1 + \\\n" + "1+" * 50 + "1\n",
                   "s = '" + "1+" * 50 + "'\n", "# " + "1+" * 50 + "\n"]:
        tokencount.refuse_too_many_tokens(source)
