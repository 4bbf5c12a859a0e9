"""The lexer's whole-source path (`Lexer._lex_whole`) against its token-at-a-time path
(`_lex_tokens`): the same arrays wherever the first reads a source, and every source it
cannot read left to the second (whose errors are the lexer's)."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from gradcli.errors import GradcliError
from gradcli.lang import lexer as lexer_module
from gradcli.lang.lexer import Lexer

ROOT = Path(__file__).resolve().parents[2]
# the token pattern as it was before its common-token alternatives, to check they change nothing
_NAMED_ONLY = re.compile(re.sub(r"\(\?P<\w+>", "(?:", lexer_module._TOKEN_PATTERN))


def _arrays(source: str, whole: bool):
    lexer = Lexer(source)
    try:
        if whole:
            if not lexer._lex_whole():
                assert not lexer.kinds and lexer.indents == [(0, 0)]  # left as they were
                return None
        else:
            lexer._lex_tokens()
        lexer._charge(lexer.stop, len(lexer.kinds))
        lexer._finish()
    except GradcliError as error:
        return "error", str(error), error.span
    return (lexer.kinds, lexer.values, lexer.offsets, lexer.ends, lexer.lines, lexer.indents,
            lexer.line, lexer.line_start)


def _same(source: str) -> bool:
    """Whether the whole-source path read `source` (and then as the other does)."""
    whole = _arrays(source, True)
    if whole is None:
        return False
    assert whole == _arrays(source, False), source
    assert whole[0] != "error", source  # an error is always the token-at-a-time path's
    return True


HANDWRITTEN = [
    "x = 0.5\ny = 1.5\nz = 1.0000*x + x*y + sin(x) + cos(y)*1.0030\n",
    "x = (1 +\n 2)\n\n  \n", "if x:\n  y\n\n# c\n    # d\nz\n", "a = [1, (2,\n{3: 4})]\n",
    "if a:\n\tb\n\tc\n", "a\n\n\n", "\n\n", "", "# only", "x = 1\r\ny = 2\r\n", "\f x\n",
    "x = 1. + .5 + 1e5 + 0x1f + 1_000 + 0o7 + 0b1\n", "def f(x):\n    return x\n\n  # c\nf(1)\n",
    "x = (((((((1)))))))\n", "a **= b; c //= d; e >>= 1; f -> g; h := 1; i <> j\n", "x = ...\n",
]
REFUSED = ["f(]\n", "(\n", ")\n", "x = 1abc\n", "x = 0123\n", "x = 1_000_\n", "x = 'a'\n",
           "x = __name__\n", "x = 1 + \\\n 2\n", "é = 1\n", "x = $\n", "if a:\n  b\n c\n",
           "if a:\n        b\n\tc\n", "x'a'\n", "x = 10" + "0" * 5000 + "\n"]


@pytest.mark.parametrize("source", HANDWRITTEN)
def test_handwritten_sources_read_whole(source):
    assert _same(source)


@pytest.mark.parametrize("source", REFUSED)
def test_what_it_cannot_read_or_refuses_goes_a_token_at_a_time(source):
    assert not _same(source)


def test_the_samples_and_programs_of_the_repository():
    """Every file of samples/ and benchmarks/, and each again with its strings, dunders and
    continuations replaced (so that the whole-source path reads more of them)."""
    read = 0
    for path in sorted((ROOT / "samples").rglob("*")) + sorted((ROOT / "benchmarks").glob("*.py")):
        if not path.is_file():
            continue
        source = path.read_text()
        plain = re.sub(r"('''|\"\"\")[\s\S]*?\1", "1", source)
        plain = re.sub(r"'[^'\n]*'|\"[^\"\n]*\"", "1", plain)
        plain = plain.replace("__", "xx").replace("\\\n", " ")
        read += _same(source) + _same(plain)
    assert read > 30


def test_random_token_soup():
    """Random runs of tokens, blanks, brackets, comments, newlines and indents: both paths
    agree on every one the whole-source path reads, errors included."""
    pieces = ["x", "y1", "if", "else", "1", "2.5", "0x1f", "1e5", "(", ")", "[", "]", "{", "}",
              "+", "*", "**", "->", ":", ":=", "=", "==", ",", ".", "...", "#c", "\n", "\n",
              "\n  ", "\n\t", "\n    ", " ", "  ", "\\\n", "a", "1.", ".5", "__x__", "\r\n",
              "\f", "0123", "1_0", "_", "'s'", "é"]
    rng = random.Random(7)
    read = 0
    for _ in range(4000):
        source = "".join(rng.choice(pieces) + rng.choice(("", " ", ""))
                         for _ in range(rng.randint(0, 25)))
        read += _same(source)
        assert lexer_module._WHOLE_RE.findall(source) == _NAMED_ONLY.findall(source), source
    assert read > 400
