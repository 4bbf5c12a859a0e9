"""The tokenizer: source text to parallel arrays of token kinds, values and offsets.

It follows Python's rules for the subset gradcli speaks: INDENT/DEDENT from
leading whitespace (tabs to multiples of 8, and a tab/space mix that only
agrees at one tab size is an error, as in Python), NEWLINE at the end of each
logical line, no NEWLINE inside brackets, backslash continuation, `#`
comments, numbers (`1_000`, `1.5e-3`, `0x1f`), strings with escapes, and
f-strings split into literal text and fields whose expressions the parser
lexes again in place (so their positions are the file's). Names that start
and end with `__` are refused here, before anything could look them up.

One regular expression matches every token with the blanks before it, and
`finditer` walks the whole input in C (twice as fast as `match` per token).
A token is an entry in each of the lexer's arrays, not an object: a Token and
a Span per token were half of the 10,400 instructions a token cost; the parser
makes Spans only for the tokens that become syntax-tree nodes. A program of
names, numbers, operators, brackets, comments and newlines (a long expression)
is read without a Python step per token (`_lex_whole`: each distinct match
classified once, the arrays sliced between newlines); any other, and any error,
is read a token at a time (`_lex_tokens`), which says what is wrong where.
"""
from __future__ import annotations

import re
import sys
from bisect import bisect_right
from itertools import accumulate, islice, repeat
from operator import itemgetter, methodcaller, sub

from gradcli.errors import LimitError, ParseError, Span
from gradcli.lang import tokencount as _tokencount
from gradcli.lang.limits import MAX_INT_BITS, MAX_INT_DIGITS, MAX_TOKENS

KEYWORDS = frozenset("""
    False None True and as assert async await break class continue def del elif
    else except finally for from global if import in is lambda nonlocal not or
    pass raise return try while with yield
""".split())

# A repeated group makes `re` keep one backtracking record per repetition: a 10^7-digit
# literal or a string of 5 x 10^6 escapes took 2.5 GB. The patterns are unambiguous, so a
# possessive repeat (Python 3.11+) matches the same text and keeps none.
_P = "+" if sys.version_info >= (3, 11) else ""
_DIGITS = rf"[0-9]+(?:_[0-9]+)*{_P}"  # (digits in one repeat: 8% of the matching time)
_PREFIX = r"(?:[rR][fFbB]?|[fFbB][rR]?|[uU])?"
# String bodies as Python's own tokenize module writes them.
_SQ3 = rf"'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*{_P}'''"
_DQ3 = rf'"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*{_P}"""'
_SQ1 = rf"(?!''')'[^'\\\r\n]*(?:\\(?:\r\n|[\s\S])[^'\\\r\n]*)*{_P}'"
_DQ1 = rf'(?!""")"[^"\\\r\n]*(?:\\(?:\r\n|[\s\S])[^"\\\r\n]*)*{_P}"'
# The longest operator at a position; a few classes rather than 25 alternatives tried in turn.
_OPERATORS = (r"(?:\*\*|//|>>|<<)=?|\.\.\.|->|:=|[-+*/%@<>=!&|^]="
              r"|[-+*/%@<>=()\[\]{},:;~&|^]|\.(?![0-9])")
_FLOAT = (rf"(?:{_DIGITS}\.(?:{_DIGITS})?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?"
          rf"|{_DIGITS}[eE][+-]?{_DIGITS}")
_INT = (rf"0[xX]_?[0-9a-fA-F]+(?:_[0-9a-fA-F]+)*{_P}|0[oO]_?[0-7]+(?:_[0-7]+)*{_P}"
        rf"|0[bB]_?[01]+(?:_[01]+)*{_P}|{_DIGITS}")
# One token with the blanks before it. Every character of the input is matched
# by some group (`bad` last), so `finditer` never skips any. Compiled when a rare token
# first asks for it (`_other_kind`): compiling it costs a start as much as lexing 10^3 tokens.
_TOKEN_PATTERN = (
    r"[ \t\f]*(?:"
    r"(?P<name>[^\W\d]\w*(?!['\"]))"
    rf"|(?P<op>{_OPERATORS})"
    rf"|(?P<float>{_FLOAT})"
    rf"|(?P<int>{_INT})"
    r"|(?P<newline>\r\n|\r|\n)"
    r"|(?P<comment>#[^\r\n]*)"
    rf"|(?P<string>{_PREFIX}(?:{_SQ3}|{_DQ3}|{_SQ1}|{_DQ1}))"
    rf"|(?P<badstring>{_PREFIX}(?:'''|\"\"\"|'|\"))"
    r"|(?P<continuation>\\(?:\r\n|\r|\n))"
    r"|(?P<end>\Z)"
    r"|(?P<bad>[\s\S]))")
# The commonest tokens first, each only where the alternatives above would match the same
# text (a name that no letter, digit or quote follows, an operator no other operator
# character extends, a number that no letter, digit or point follows): they halve the
# matching of a long expression, which tried each alternative in turn.
_COMMON = (r"[-+*/%@<>=&|^](?![=*/<>])|[()\[\]{},;~]"
           r"|[A-Za-z_][A-Za-z0-9_]*(?![\w'\"])"
           r"|[0-9]+(?:\.[0-9]+)?(?![\w.])")
# The same alternatives without their names: (blanks, token) pairs, which `findall`
# lists in C without a match object per token (a third of lexing's time). What kind a
# token is follows from its text (`_KIND_OF`, then its first character); the rare kinds
# ("other": strings, bad characters, names that start past ASCII) ask _TOKEN_RE itself.
_PAIR_RE = re.compile(r"([ \t\f]*)(" + _COMMON + "|"
                      + re.sub(r"\(\?P<\w+>", "(?:", _TOKEN_PATTERN[len(r"[ \t\f]*(?:"):-1]) + ")")
_OPERATOR_TEXTS = ("**= //= >>= <<= ... -> ** // == != <= >= += -= *= /= @= %= &= |= ^= := << >> "
                   "- + * / % @ < > = ( ) [ ] { } , : ; ~ & | ^ .").split()
_KIND_OF = {**{text: text for text in _OPERATOR_TEXTS}, **{word: word for word in KEYWORDS},
            "\n": "newline", "\r\n": "newline", "\r": "newline", "": "end",
            "\\\n": "continuation", "\\\r\n": "continuation", "\\\r": "continuation"}
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NUMBER_START = frozenset("0123456789.")
_QUOTES = frozenset("'\"")
_INT_PREFIXES = ("x", "X", "o", "O", "b", "B")  # the second character of 0x1e, an int
_groups = methodcaller("groups")
_OFF_HOT_PATH = frozenset({"newline", "comment", "end", "continuation", "other"})
_PREFIX_RE = re.compile(_PREFIX)
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")": "(", "]": "[", "}": "{"}
_BRACKETS = frozenset(_OPEN) | frozenset(_CLOSE)
_ESCAPES = {"\n": "", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f",
            "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_ESCAPE_RE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|\r\n|[\s\S])?")
# `Lexer._lex_whole`'s tables: the token pattern with its blanks and no group at all (a
# string per match, not a tuple of two), the one-letter codes it writes for each match
# (`_code`), the events among them and the brackets alone.
_WHOLE_RE = re.compile(r"[ \t\f]*(?:" + _PAIR_RE.pattern[len(r"([ \t\f]*)("):])
_BLANKS = " \t\f"
_EVENT_CODES_RE = re.compile("[LCE]")  # a newline, a comment, the end
_ONLY_BRACKETS = {ord(code): None for code in "NMWLCE."}
_CODES = {"newline": "L", "comment": "C", "end": "E"}
_CODES.update((bracket, bracket) for bracket in "()[]{}")


def _token_re():
    """The named-group regex, compiled on first use (then kept by `re`'s cache)."""
    return re.compile(_TOKEN_PATTERN)


def __getattr__(name: str):
    if name == "_TOKEN_RE":  # the tests' name for it
        return _token_re()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_new = tuple.__new__  # builds a Span without Span.__new__'s Python frame


class Token:
    """One token, as `tokenize` lists them (the parser reads the lexer's arrays instead):
    `kind` is NAME, NUMBER, STRING, FSTRING, NEWLINE, INDENT, DEDENT, EOF, or the keyword /
    operator text itself; `span` is its position; `start`/`end` are offsets into the source."""

    __slots__ = ("kind", "value", "span", "start", "end")

    def __init__(self, kind, value, span, start, end):
        self.kind = kind
        self.value = value
        self.span = span
        self.start = start
        self.end = end

    @property
    def line(self) -> int:
        return self.span[0]

    @property
    def col(self) -> int:
        return self.span[1]

    @property
    def end_col(self) -> int | None:
        return self.span[2]

    def __repr__(self) -> str:
        return f"Token({self.kind!r}, {self.value!r}, {self.line}:{self.col})"


class Field:
    """A `{expr!conv:spec}` field of an f-string, as the lexer finds it.

    `start`/`end` delimit the expression in the source; `spec` is None or a
    list of str and Field (a spec may hold nested fields: `{x:{width}}`).
    """

    __slots__ = ("start", "end", "conversion", "spec", "span")

    def __init__(self, start, end, conversion, spec, span):
        self.start = start
        self.end = end
        self.conversion = conversion
        self.spec = spec
        self.span = span


def line_starts(source: str) -> list:
    """Offsets at which each line of `source` begins."""
    starts = [0]
    for match in re.finditer(r"\r\n|\r|\n", source):
        starts.append(match.end())
    return starts


class Lexer:
    """Tokenizes `source[start:stop]` into parallel arrays, one entry per token: `kinds`
    (as `Token.kind`), `values`, `starts` and `ends` (offsets) and `lines` (1-based); a
    token's column is its offset less its line's start. No object is made per token: the
    parser makes a Span only for a token that becomes a syntax-tree node (`span`).
    `bracket_mode` lexes as if inside brackets (used for f-string expressions: no NEWLINE,
    INDENT or DEDENT)."""

    def __init__(self, source: str, start: int = 0, stop: int | None = None,
                 bracket_mode: bool = False, starts: list | None = None, budget: int | None = None):
        self.source = source
        self.start = start
        self.stop = len(source) if stop is None else stop
        self.bracket_mode = bracket_mode
        self.starts = starts if starts is not None else line_starts(source)
        self.line = bisect_right(self.starts, start)
        self.line_start = self.starts[self.line - 1]
        self.kinds: list = []
        self.values: list = []
        self.offsets: list = []  # where each token starts
        self.ends: list = []
        self.lines: list = []
        self.multiline: set = set()  # the tokens (strings) that end on a later line: no end column
        self.brackets: list = []  # indices of the open brackets
        self.indents = [(0, 0)]  # (width with tabs to 8, width with tabs as 1)
        # tokens this lexer may still make (MAX_TOKENS for a program)
        self.budget = MAX_TOKENS if budget is None else budget

    # --- positions -----------------------------------------------------

    def position(self, offset: int) -> tuple:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def span_at(self, offset: int, length: int = 1) -> Span:
        line, col = self.position(offset)
        return Span(line, col, col + length)

    def span(self, i: int) -> Span:
        """The span of token `i`."""
        line = self.lines[i]
        start = self.offsets[i]
        col = start - self.starts[line - 1] + 1
        if i in self.multiline:
            return _new(Span, (line, col, None))
        return _new(Span, (line, col, col + self.ends[i] - start))

    def token(self, i: int) -> Token:
        return Token(self.kinds[i], self.values[i], self.span(i), self.offsets[i], self.ends[i])

    def error(self, message: str, offset: int, length: int = 1, hint: str | None = None):
        return ParseError(message, self.span_at(offset, length), hint)

    def _add(self, kind, value, start, end):
        self.kinds.append(kind)
        self.values.append(value)
        self.offsets.append(start)
        self.ends.append(end)
        self.lines.append(self.line)

    def _next_line(self, offset: int):
        self.line += 1
        self.line_start = offset

    # --- main loop -----------------------------------------------------

    def tokenize(self) -> list[Token]:
        """The tokens as objects (for tests and tools; the parser reads the arrays)."""
        self.lex()
        return [self.token(i) for i in range(len(self.kinds))]

    def lex(self) -> "Lexer":
        """Fill the arrays, ending with EOF; returns self."""
        if self.bracket_mode or self.stop - self.start > max(self.budget, 0) \
                or not self._lex_whole():
            self._lex_tokens()
        self._charge(self.stop, len(self.kinds))
        self._finish()
        return self

    def _lex_whole(self) -> bool:
        """Fill the arrays without a Python step per token, for a program of names, numbers,
        operators, brackets, comments and newlines; False (the arrays left as they were) for
        anything else, which `_lex_tokens` reads, its errors included. Each distinct match is
        classified once; the arrays are slices of per-match lists between the events (a
        newline, a comment, the end), where the loop below does what `_lex_tokens` does."""
        source, start = self.source, self.start
        matches = _WHOLE_RE.findall(source, start, self.stop)
        kind_of, value_of, length_of, code_of = {}, {}, {}, {}
        for match in set(matches):
            text = match.lstrip(_BLANKS)
            kind = _KIND_OF.get(text)
            value = text
            if kind is None:
                first = text[0]
                if first in _NAME_START and text[-1] not in _QUOTES:
                    if text[:2] == "__" and text[-2:] == "__":
                        return False  # whether a dunder may stand depends on the tokens before it
                    kind = "NAME"  # (a one-letter name before a quote is `bad`, then "other")
                elif first in _NUMBER_START:
                    kind = "NUMBER"
                    try:
                        value = self._number_value(text, start, start + len(text))
                    except ParseError:
                        return False
                elif first == "#":
                    kind = "comment"
                else:
                    return False  # strings, names past ASCII, bad characters
            elif kind == "continuation":
                return False
            kind_of[match] = kind
            value_of[match] = value
            length_of[match] = len(text)
            word = match[:1].isalnum() or match[:1] == "_"
            code_of[match] = ("M" if word else "N") if kind == "NUMBER" else \
                _CODES.get(kind) or ("W" if word else ".")
        # each match's entry of a table, in one call (an itemgetter of one item gives the
        # item, not a tuple: the empty program's one match, the end)
        each = itemgetter(*matches) if len(matches) > 1 else lambda table: (table[matches[0]],)
        codes = "".join(each(code_of))
        if "NW" in codes or "NM" in codes or "MW" in codes or "MM" in codes:
            return False  # a number with a letter, digit or `_` right after it (`1abc`)
        match_kinds = each(kind_of)
        match_values = each(value_of)
        match_ends = list(accumulate(map(len, matches), initial=start))
        before = match_ends[:-1]  # where each match (its blanks) begins
        del match_ends[0]
        match_starts = list(map(sub, match_ends, each(length_of)))
        kinds, values, offsets, ends, lines = self.kinds, self.values, self.offsets, self.ends, self.lines
        line, line_start = self.line, self.line_start
        at_line_start = True
        stack = ""  # the brackets still open
        first = 0  # the first match after the last event
        try:
            for event in _EVENT_CODES_RE.finditer(codes):
                at = event.start()
                if first < at:  # tokens first..at-1: names, numbers, operators, brackets
                    if at_line_start:
                        at_line_start = False
                        self.line, self.line_start = line, line_start
                        self._indent(before[first], match_starts[first])
                    kinds += match_kinds[first:at]
                    values += match_values[first:at]
                    offsets += match_starts[first:at]
                    ends += match_ends[first:at]
                    lines += repeat(line, at - first)
                    brackets = codes[first:at].translate(_ONLY_BRACKETS)
                    if brackets:
                        stack = _still_open(stack + brackets)
                        if stack is None:
                            raise _Unread
                code = codes[at]
                if code == "L":
                    if not stack and not at_line_start:
                        if kinds and kinds[-1] != "NEWLINE":
                            kinds.append("NEWLINE")
                            values.append(None)
                            offsets.append(match_starts[at])
                            ends.append(match_ends[at])
                            lines.append(line)
                        at_line_start = True
                    line += 1
                    line_start = match_ends[at]
                elif code == "E":
                    break
                first = at + 1
            if stack:
                raise _Unread  # never closed
        except (_Unread, ParseError):
            del kinds[:], values[:], offsets[:], ends[:], lines[:]
            del self.indents[1:]
            self.line = bisect_right(self.starts, start)
            self.line_start = self.starts[self.line - 1]
            return False
        self.line, self.line_start = line, line_start
        return True

    def _lex_tokens(self) -> None:
        """Fill the arrays one match at a time (`lex`), without the EOF."""
        # The hot kinds (names, operators, brackets, numbers, newlines) are handled
        # inline with the position in locals; the others sync it through self.
        source, stop, brackets = self.source, self.stop, self.brackets
        kinds, values, offsets, ends, lines = self.kinds, self.values, self.offsets, self.ends, self.lines
        # the kinds by text, and the names of two characters or more once seen (a one-letter
        # name is classified each time: before a quote it is a bad character)
        kind_of, name_start, number_start = dict(_KIND_OF), _NAME_START, _NUMBER_START
        numbers: dict = {}  # the value of each number literal by its text, once read
        line, line_start = self.line, self.line_start
        at_line_start = not self.bracket_mode
        limit = max(self.budget, 0) + 1  # matches to read at most: each token, comment, blank line
        if stop - self.start < limit:  # each match but the last takes a character: all fit
            pairs = _PAIR_RE.findall(source, self.start, stop)
        else:  # one at a time, never more than the limit
            pairs = map(_groups, _PAIR_RE.finditer(source, self.start, stop))
        pos = before = self.start  # where the current match (its blanks) begins
        # Every match is a token, a comment or a blank line; `end` always comes last.
        for blanks, text in islice(pairs, limit):
            before = pos
            start = pos + len(blanks)
            end = pos = start + len(text)
            kind = kind_of.get(text)
            if kind is None:
                first = text[0]
                if first in name_start and text[-1] not in _QUOTES \
                        and (len(text) > 1 or source[end:end + 1] not in _QUOTES):
                    kind = "NAME"  # (a name is never followed by a quote: `x'a'` is `bad` x)
                    if len(text) > 1:
                        kind_of[text] = kind
                elif first in number_start:
                    kind = "NUMBER"
                elif first == "#":
                    kind = "comment"
                else:
                    kind = "other"
            if at_line_start and not brackets:
                if kind == "newline":  # a blank or comment-only line: no NEWLINE, no INDENT
                    line += 1
                    line_start = end
                    continue
                if kind == "comment":
                    continue
                at_line_start = False
                if kind != "end" and kind != "continuation":
                    self.line, self.line_start = line, line_start
                    self._indent(before, start)
            if kind == "NAME":
                if text[0] == "_" and text[:2] == "__" and text[-2:] == "__" \
                        and not _constructor_name(text, kinds):
                    raise self.error(f"names that start and end with '__' are not allowed: '{text}'",
                                     start, end - start)
                kinds.append(kind)
                values.append(text)
            elif kind == "NUMBER":
                value = numbers.get(text)
                if value is None or end < stop and (source[end].isalnum() or source[end] == "_"):
                    value = numbers[text] = self._number(text, start, end)
                values.append(value)
                kinds.append(kind)
            elif kind in _OFF_HOT_PATH:
                if kind == "newline":
                    if not brackets and not self.bracket_mode:
                        if kinds and kinds[-1] != "NEWLINE":
                            kinds.append("NEWLINE")
                            values.append(None)
                            offsets.append(start)
                            ends.append(end)
                            lines.append(line)
                        at_line_start = True
                    line += 1
                    line_start = end
                elif kind == "end":
                    break
                elif kind != "comment":
                    self.line, self.line_start = line, line_start
                    self._other(kind, before, start, end)
                    line, line_start = self.line, self.line_start
                continue
            else:  # an operator or a keyword
                if kind in _BRACKETS:
                    if kind in _OPEN:
                        brackets.append(len(kinds))
                    elif brackets and kinds[brackets[-1]] == _CLOSE[kind]:
                        brackets.pop()
                    else:
                        raise self._unmatched(kind, start, line)
                kinds.append(kind)
                values.append(text)
            offsets.append(start)
            ends.append(end)
            lines.append(line)
        else:
            raise self.too_many_tokens(before)
        self.line, self.line_start = line, line_start

    def too_many_tokens(self, offset: int) -> LimitError:
        return _tokencount.too_many_tokens(self.span_at(offset), MAX_TOKENS)

    def _charge(self, offset: int, tokens: int = 1) -> None:
        """Spend `tokens` of the budget on something besides a match (an f-string field)."""
        self.budget -= tokens
        if self.budget < 0:
            raise self.too_many_tokens(offset)

    def _other(self, kind: str, before: int, start: int, end: int):
        """The token kinds off the hot path: continuations, and the "other" ones, which
        _TOKEN_RE's groups name (strings, names that start past ASCII, bad characters)."""
        if kind == "other":
            kind = _token_re().match(self.source, before, self.stop).lastgroup
        if kind == "name":
            text = self.source[start:end]
            self._add(text if text in KEYWORDS else "NAME", text, start, end)
        elif kind == "string":
            self._string(self.source[start:end], start, end)
        elif kind == "continuation":
            self._next_line(end)
            if end >= self.stop:
                raise self.error("unexpected EOF after line continuation character", start)
        elif kind == "badstring":
            triple = self.source[start:end][-3:] in ("\'\'\'", '"""')
            what = "triple-quoted string literal" if triple else "string literal"
            last = bisect_right(self.starts, self.stop - 1) if triple else self.line
            raise self.error(f"unterminated {what} (detected at line {last})", start, end - start)
        else:
            self._bad_character(start)

    def _finish(self) -> None:
        if self.brackets:
            opener = self.brackets[-1]
            raise ParseError(f"'{self.kinds[opener]}' was never closed", self.span(opener))
        end = self.stop
        if not self.bracket_mode:
            if self.kinds and self.kinds[-1] not in ("NEWLINE", "INDENT", "DEDENT"):
                self._add("NEWLINE", None, end, end)
            for _ in self.indents[1:]:
                self._add("DEDENT", None, end, end)
        self._add("EOF", None, end, end)

    def _bad_character(self, pos: int):
        char = self.source[pos]
        if char == "\\":
            raise self.error("unexpected character after line continuation character", pos)
        if char == "!":
            raise self.error("invalid syntax: '!' is not an operator", pos, hint="use 'not' or '!='")
        if char.isprintable() and ord(char) < 128:
            raise self.error(f"invalid character '{char}'", pos)
        raise self.error(f"invalid character '{char}' (U+{ord(char):04X})", pos)

    def _indent(self, line_begin: int, first: int):
        """Compare a logical line's indentation (source[line_begin:first]) with the
        enclosing levels and emit INDENT or DEDENTs."""
        width8 = width1 = 0
        for char in self.source[line_begin:first]:
            if char == " ":
                width8 += 1
                width1 += 1
            elif char == "\t":
                width8 = (width8 // 8 + 1) * 8
                width1 += 1
            else:  # a form feed resets the count, as in Python
                width8 = width1 = 0
        current8, current1 = self.indents[-1]
        if width8 > current8:
            if width1 <= current1:
                raise self.error("inconsistent use of tabs and spaces in indentation", first)
            self.indents.append((width8, width1))
            self._add("INDENT", None, first, first)
        elif width8 < current8:
            while width8 < self.indents[-1][0]:
                self.indents.pop()
                self._add("DEDENT", None, first, first)
            if width8 != self.indents[-1][0]:
                raise self.error("unindent does not match any outer indentation level", first)
            if width1 != self.indents[-1][1]:
                raise self.error("inconsistent use of tabs and spaces in indentation", first)
        elif width1 != current1:
            raise self.error("inconsistent use of tabs and spaces in indentation", first)

    # --- tokens ----------------------------------------------------------

    def _number(self, text, start, end):
        """The value of the number literal `text` (an int past MAX_INT_BITS becomes a float)."""
        if end < self.stop and (self.source[end].isalnum() or self.source[end] == "_"):
            follow = end
            while follow < self.stop and follow - end < 40 and (self.source[follow].isalnum()
                                                               or self.source[follow] == "_"):
                follow += 1
            name = self.source[end:follow]
            hint = f"to multiply, write {text} * {name}" if name.isidentifier() else None
            raise self.error("invalid decimal literal", start, end - start + 1, hint=hint)
        return self._number_value(text, start, end)

    def _number_value(self, text, start, end):
        """The value of the number literal `text` at `start:end`, whatever follows it."""
        if ("." in text or "e" in text or "E" in text) and text[1:2] not in _INT_PREFIXES:
            value = float(text)
        else:
            if len(text) > MAX_INT_DIGITS:
                raise self.error("integer literal too large", start, end - start)
            try:
                value = int(text, 0)
            except ValueError:
                if len(text) < 4000:
                    raise self.error("leading zeros in decimal integer literals are not permitted",
                                     start, end - start, hint="use an 0o prefix for octal integers") from None
                raise self.error("integer literal too large", start, end - start) from None
            if value.bit_length() > MAX_INT_BITS:
                try:
                    value = float(value)
                except OverflowError:
                    raise self.error("number too large for a float64", start, end - start) from None
        return value

    def _unmatched(self, text: str, start: int, line: int) -> ParseError:
        """The error for a closing bracket `text` that closes nothing or the wrong bracket."""
        if not self.brackets:
            return self.error(f"unmatched '{text}'", start)
        opener = self.brackets[-1]
        opener_line = self.lines[opener]
        where = f" on line {opener_line}" if opener_line != line else ""
        return self.error(f"closing parenthesis '{text}' does not match opening "
                          f"parenthesis '{self.kinds[opener]}'{where}", start)

    def _string(self, text: str, start: int, end: int):
        prefix = _PREFIX_RE.match(text).group().lower()
        if "b" in prefix:
            raise self.error("bytes literals are not supported", start, len(prefix) + 1)
        quote = 3 if text[len(prefix):len(prefix) + 3] in ("'''", '"""') else 1
        body_start = start + len(prefix) + quote
        body_end = end - quote
        raw = "r" in prefix
        if "f" in prefix:
            value = self._fstring_parts(body_start, body_end, raw)
            kind = "FSTRING"
        else:
            value = self._unescape(self.source[body_start:body_end], raw, body_start)
            kind = "STRING"
        if "\n" in text or "\r" in text:
            self.multiline.add(len(self.kinds))
            self._add(kind, value, start, end)
            self.line = bisect_right(self.starts, end - 1)
            self.line_start = self.starts[self.line - 1]
        else:
            self._add(kind, value, start, end)

    def _unescape(self, text: str, raw: bool, offset: int) -> str:
        if raw or "\\" not in text:
            return text

        def replace(match):
            code = match.group(1)
            if code is None:
                return "\\"
            first = code[0]
            if first in "xuU" and len(code) > 1:
                value = int(code[1:], 16)
                if value > 0x10FFFF:
                    raise self.error("invalid unicode escape", offset + match.start(), len(match.group()))
                return chr(value)
            if first in "01234567":
                return chr(int(code, 8))
            if code == "\r\n" or code == "\r":
                return ""
            if first == "N":
                raise self.error("\\N{...} escapes are not supported", offset + match.start(), 2)
            if first in "xuU":
                raise self.error(f"truncated \\{first} escape", offset + match.start(), 2)
            return _ESCAPES.get(code, "\\" + code)

        return _ESCAPE_RE.sub(replace, text)

    # --- f-strings -------------------------------------------------------

    def _fstring_parts(self, start: int, stop: int, raw: bool) -> list:
        return self._fstring_text(start, stop, raw, in_spec=False, level=0)[0]

    def _fstring_text(self, pos: int, stop: int, raw: bool, in_spec: bool, level: int):
        """Split f-string text into literal str and Field parts, up to `stop`
        (or, in a format spec, up to the `}` that closes the field); returns (parts, pos)."""
        source = self.source
        parts: list = []
        literal: list[str] = []
        literal_start = pos

        def flush():
            if literal:
                text = self._unescape("".join(literal), raw, literal_start)
                if parts and isinstance(parts[-1], str):
                    parts[-1] += text
                elif text:
                    parts.append(text)
                literal.clear()

        while pos < stop:
            char = source[pos]
            if char == "{":
                if not in_spec and source.startswith("{{", pos):
                    literal.append("{")
                    pos += 2
                    continue
                flush()
                field, pos = self._fstring_field(pos, stop, raw, level)
                parts.append(field)
                literal_start = pos
            elif char == "}":
                if in_spec:
                    break
                if source.startswith("}}", pos):
                    literal.append("}")
                    pos += 2
                    continue
                raise self.error("f-string: single '}' is not allowed", pos)
            elif char == "\\" and not raw:
                literal.append(source[pos:pos + 2])
                pos += 2
            else:
                literal.append(char)
                pos += 1
        flush()
        return parts, pos

    def _fstring_field(self, brace: int, stop: int, raw: bool, level: int):
        source = self.source
        if level >= 2:
            raise self.error("f-string: expressions nested too deeply", brace)
        self._charge(brace)
        pos = brace + 1
        depth = 0
        quote = None
        while True:
            if pos >= stop:
                raise self.error("f-string: expecting '}'", brace)
            char = source[pos]
            if quote is not None:
                if source.startswith(quote, pos):
                    pos += len(quote)
                    quote = None
                else:
                    pos += 1
                continue
            if char == "\\":
                raise self.error("f-string expression part cannot include a backslash", pos)
            if char == "'" or char == '"':
                quote = char * 3 if source.startswith(char * 3, pos) else char
                pos += len(quote)
                continue
            if char == "#":
                raise self.error("f-string expression part cannot include '#'", pos)
            if char in "([{":
                depth += 1
            elif char in ")]":
                depth -= 1
            elif char == "}":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and char == "!" and not source.startswith("!=", pos):
                break
            elif depth == 0 and char == ":":
                break
            pos += 1
        expr_end = pos
        if not source[brace + 1:expr_end].strip():
            raise self.error("f-string: empty expression not allowed", brace)
        conversion = None
        if source[pos] == "!":
            conversion = source[pos + 1:pos + 2]
            if conversion not in ("r", "s", "a") or pos + 2 >= stop or source[pos + 2] not in ":}":
                raise self.error("f-string: invalid conversion character: expected 's', 'r', or 'a'", pos + 1)
            pos += 2
        spec = None
        if source[pos] == ":":
            spec, pos = self._fstring_text(pos + 1, stop, raw, in_spec=True, level=level + 1)
            if pos >= stop:
                raise self.error("f-string: expecting '}'", brace)
        if source[pos] != "}":
            raise self.error("f-string: expecting '}'", pos)
        return Field(brace + 1, expr_end, conversion, spec, self.span_at(brace)), pos + 1


class _Unread(Exception):
    """`Lexer._lex_whole` leaves the source to `_lex_tokens` (a bracket closes the wrong one)."""


def _still_open(brackets: str) -> str | None:
    """The brackets of `brackets` still open once the pairs close (a string of openers),
    or None if one closes the wrong bracket or nothing (or they nest past 64 levels)."""
    for _ in range(64):
        closed = brackets.replace("()", "").replace("[]", "").replace("{}", "")
        if closed == brackets:
            break
        brackets = closed
    else:
        return None
    if ")" in brackets or "]" in brackets or "}" in brackets:
        return None
    return brackets


def tokenize(source: str) -> list[Token]:
    """Tokens of a whole program, ending with EOF, as objects."""
    return Lexer(source).tokenize()


def lex(source: str) -> Lexer:
    """The token arrays of a whole program, ending with EOF."""
    return Lexer(source).lex()


# The dunders a program's class may define (`gradcli.lang.classes.DUNDER_METHODS`): after
# `def`, where Python's data model calls them; a program never reads them.
_DEFINED_DUNDERS = frozenset({"__init__", "__len__", "__getitem__", "__call__", "__iter__",
                              "__next__", "__repr__", "__str__"})


def _constructor_name(text: str, kinds: list) -> bool:
    """`__init__` (or another of the data model's methods) right after `def`, `__init__`
    after `).` (as in `super().__init__()`), `__future__` after `from`, and the bare name
    `__name__` (a script's `if __name__ == "__main__":`, never an attribute): the dunders a
    program writes; the parser and the class statement check the rest."""
    if not kinds:
        return text == "__name__"
    last = kinds[-1]
    if text == "__future__":
        return last == "from"
    if text == "__name__":
        return last != "."
    if last == "def":
        return text in _DEFINED_DUNDERS
    return text == "__init__" and last == "." and len(kinds) > 1 and kinds[-2] == ")"