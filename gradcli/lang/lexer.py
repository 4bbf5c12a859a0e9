"""The tokenizer: source text to a list of tokens with 1-based positions.

It follows Python's rules for the subset gradcli speaks: INDENT/DEDENT from
leading whitespace (tabs to multiples of 8, and a tab/space mix that only
agrees at one tab size is an error, as in Python), NEWLINE at the end of each
logical line, no NEWLINE inside brackets, backslash continuation, `#`
comments, numbers (`1_000`, `1.5e-3`, `0x1f`), strings with escapes, and
f-strings split into literal text and fields whose expressions the parser
lexes again in place (so their positions are the file's). Names that start
and end with `__` are refused here, before anything could look them up.
"""
from __future__ import annotations

import re
from bisect import bisect_right

from gradcli.errors import ParseError, Span
from gradcli.lang.limits import MAX_INT_BITS

KEYWORDS = frozenset("""
    False None True and as assert async await break class continue def del elif
    else except finally for from global if import in is lambda nonlocal not or
    pass raise return try while with yield
""".split())

_DIGITS = r"[0-9](?:_?[0-9])*"
_TOKEN_RE = re.compile(rf"""
    (?P<ws>[ \t\f]+)
  | (?P<comment>\#[^\r\n]*)
  | (?P<newline>\r\n|\r|\n)
  | (?P<string>(?:[rR][fFbB]?|[fFbB][rR]?|[uU])?(?:'|"))
  | (?P<number>
        0[xX](?:_?[0-9a-fA-F])+ | 0[oO](?:_?[0-7])+ | 0[bB](?:_?[01])+
      | (?:{_DIGITS}\.(?:{_DIGITS})?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?
      | {_DIGITS}[eE][+-]?{_DIGITS}
      | {_DIGITS})
  | (?P<name>[^\W\d]\w*)
  | (?P<op>\*\*=|//=|>>=|<<=|\.\.\.|->|\*\*|//|==|!=|<=|>=|\+=|-=|\*=|/=|@=|%=|&=|\|=|\^=|:=|<<|>>
        |[-+*/%@<>=()\[\]{{}},:.;~&|^])
  | (?P<continuation>\\(?:\r\n|\r|\n))
""", re.VERBOSE)

_REST_OF_LINE = re.compile(r"[^\r\n]*(\r\n|\r|\n)?")
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")": "(", "]": "[", "}": "{"}
_ESCAPES = {"\n": "", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f",
            "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_ESCAPE_RE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|\r\n|[\s\S])?")


class Token:
    """One token: `kind` is NAME, NUMBER, STRING, FSTRING, NEWLINE, INDENT, DEDENT, EOF,
    or the keyword / operator text itself; `start`/`end` are offsets into the source."""

    __slots__ = ("kind", "value", "line", "col", "end_col", "start", "end")

    def __init__(self, kind, value, line, col, end_col, start, end):
        self.kind = kind
        self.value = value
        self.line = line
        self.col = col
        self.end_col = end_col
        self.start = start
        self.end = end

    @property
    def span(self) -> Span:
        return Span(self.line, self.col, self.end_col)

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
    """Tokenizes `source[start:stop]`; `bracket_mode` lexes as if inside brackets
    (used for f-string expressions: no NEWLINE, INDENT or DEDENT)."""

    def __init__(self, source: str, start: int = 0, stop: int | None = None,
                 bracket_mode: bool = False, starts: list | None = None):
        self.source = source
        self.pos = start
        self.stop = len(source) if stop is None else stop
        self.bracket_mode = bracket_mode
        self.starts = starts if starts is not None else line_starts(source)
        self.line = bisect_right(self.starts, start)
        self.line_start = self.starts[self.line - 1]
        self.tokens: list[Token] = []
        self.brackets: list[Token] = []
        self.indents = [(0, 0)]

    # --- positions -----------------------------------------------------

    def position(self, offset: int) -> tuple:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def span_at(self, offset: int, length: int = 1) -> Span:
        line, col = self.position(offset)
        return Span(line, col, col + length)

    def error(self, message: str, offset: int, length: int = 1, hint: str | None = None):
        return ParseError(message, self.span_at(offset, length), hint)

    def _add(self, kind, value, start, end):
        line = self.line
        col = start - self.line_start + 1
        end_col = col + (end - start) if end - start >= 0 else None
        self.tokens.append(Token(kind, value, line, col, end_col, start, end))

    # --- main loop -----------------------------------------------------

    def tokenize(self) -> list[Token]:
        source, stop = self.source, self.stop
        at_line_start = not self.bracket_mode
        while True:
            if at_line_start and not self.brackets:
                at_line_start = False
                if not self._indentation():
                    break
            if self.pos >= stop:
                break
            match = _TOKEN_RE.match(source, self.pos, stop)
            if match is None:
                self._bad_character()
            kind = match.lastgroup
            start, end = match.span()
            if kind == "ws" or kind == "comment":
                self.pos = end
            elif kind == "newline":
                if not self.brackets and not self.bracket_mode:
                    if self.tokens and self.tokens[-1].kind not in ("NEWLINE", "INDENT", "DEDENT"):
                        self._add("NEWLINE", None, start, end)
                    at_line_start = True
                self.pos = end
                self.line += 1
                self.line_start = end
            elif kind == "continuation":
                self.pos = end
                self.line += 1
                self.line_start = end
                if end >= stop:
                    raise self.error("unexpected EOF after line continuation character", start)
            elif kind == "string":
                self._string(start, end)
            elif kind == "number":
                self._number(match.group(), start, end)
            elif kind == "name":
                self._name(match.group(), start, end)
            else:
                self._op(match.group(), start, end)
        return self._finish()

    def _finish(self) -> list[Token]:
        if self.brackets:
            opener = self.brackets[-1]
            raise ParseError(f"'{opener.kind}' was never closed", opener.span)
        end = self.stop
        if not self.bracket_mode:
            if self.tokens and self.tokens[-1].kind not in ("NEWLINE", "INDENT", "DEDENT"):
                self._add("NEWLINE", None, end, end)
            for _ in self.indents[1:]:
                self._add("DEDENT", None, end, end)
        self._add("EOF", None, end, end)
        return self.tokens

    def _bad_character(self):
        char = self.source[self.pos]
        if char == "\\":
            raise self.error("unexpected character after line continuation character", self.pos)
        if char == "!":
            raise self.error("invalid syntax: '!' is not an operator", self.pos, hint="use 'not' or '!='")
        if char == "$" or char == "?" or char == "`":
            raise self.error(f"invalid character '{char}'", self.pos)
        raise self.error(f"invalid character '{char}' (U+{ord(char):04X})", self.pos)

    def _indentation(self) -> bool:
        """Measure a line's indentation and emit INDENT/DEDENT; False at the end of input."""
        source, stop = self.source, self.stop
        while True:
            pos = self.pos
            width8 = width1 = 0
            while pos < stop and source[pos] in " \t\f":
                char = source[pos]
                if char == " ":
                    width8 += 1
                    width1 += 1
                elif char == "\t":
                    width8 = (width8 // 8 + 1) * 8
                    width1 += 1
                else:
                    width8 = width1 = 0
                pos += 1
            if pos >= stop:
                self.pos = pos
                return False
            char = source[pos]
            if char == "#" or char == "\n" or char == "\r":
                # Blank or comment-only line: no indentation change, no NEWLINE.
                newline = _REST_OF_LINE.match(source, pos, stop)
                self.pos = newline.end()
                if newline.group(1) is None:
                    return False
                self.line += 1
                self.line_start = self.pos
                continue
            if char == "\\" and source.startswith(("\\\n", "\\\r"), pos):
                # A backslash right after the indentation joins this line to the next.
                self.pos = pos
                return True
            break
        self.pos = pos
        current8, current1 = self.indents[-1]
        if width8 > current8:
            if width1 <= current1:
                raise self.error("inconsistent use of tabs and spaces in indentation", pos)
            self.indents.append((width8, width1))
            self._add("INDENT", None, self.line_start, pos)
        elif width8 < current8:
            while width8 < self.indents[-1][0]:
                self.indents.pop()
                self._add("DEDENT", None, pos, pos)
            if width8 != self.indents[-1][0]:
                raise self.error("unindent does not match any outer indentation level", pos)
            if width1 != self.indents[-1][1]:
                raise self.error("inconsistent use of tabs and spaces in indentation", pos)
        elif width1 != current1:
            raise self.error("inconsistent use of tabs and spaces in indentation", pos)
        return True

    # --- tokens ----------------------------------------------------------

    def _name(self, text, start, end):
        if text.startswith("__") and text.endswith("__"):
            raise self.error(f"names that start and end with '__' are not allowed: '{text}'",
                             start, end - start)
        kind = text if text in KEYWORDS else "NAME"
        self._add(kind, text, start, end)
        self.pos = end

    def _number(self, text, start, end):
        if end < self.stop and (self.source[end].isalnum() or self.source[end] == "_"):
            raise self.error("invalid decimal literal", start, end - start + 1)
        clean = text.replace("_", "")
        if any(c in clean for c in ".eE") and not clean.lower().startswith("0x"):
            value = float(clean)
        else:
            try:
                value = int(clean, 0)
            except ValueError:
                if clean.isdigit() and len(clean) < 4000:
                    raise self.error("leading zeros in decimal integer literals are not permitted",
                                     start, end - start, hint="use an 0o prefix for octal integers") from None
                raise self.error("integer literal too large", start, end - start) from None
            if value.bit_length() > MAX_INT_BITS:
                try:
                    value = float(value)
                except OverflowError:
                    raise self.error("number too large for a float64", start, end - start) from None
        self._add("NUMBER", value, start, end)
        self.pos = end

    def _op(self, text, start, end):
        if text in _OPEN:
            self._add(text, text, start, end)
            self.brackets.append(self.tokens[-1])
        elif text in _CLOSE:
            if not self.brackets:
                raise self.error(f"unmatched '{text}'", start)
            opener = self.brackets.pop()
            if opener.kind != _CLOSE[text]:
                where = f" on line {opener.line}" if opener.line != self.line else ""
                raise self.error(f"closing parenthesis '{text}' does not match opening "
                                 f"parenthesis '{opener.kind}'{where}", start)
            self._add(text, text, start, end)
        else:
            self._add(text, text, start, end)
        self.pos = end

    def _string(self, start, prefix_end):
        source, stop = self.source, self.stop
        prefix = source[start:prefix_end - 1].lower()
        quote = source[prefix_end - 1]
        if "b" in prefix:
            raise self.error("bytes literals are not supported", start, prefix_end - start)
        triple = source.startswith(quote * 3, prefix_end - 1)
        delimiter = quote * 3 if triple else quote
        body_start = prefix_end - 1 + len(delimiter)
        pos = body_start
        line, line_start = self.line, self.line_start
        while True:
            if pos >= stop:
                kind = "triple-quoted string literal" if triple else "string literal"
                raise ParseError(f"unterminated {kind} (detected at line {line})",
                                 self.span_at(start, prefix_end - start))
            char = source[pos]
            if char == "\\":
                if source.startswith(("\\\r\n"), pos):
                    pos += 3
                elif source.startswith(("\\\n", "\\\r"), pos):
                    pos += 2
                else:
                    pos += 2
                    continue
                line += 1
                line_start = pos
                continue
            if char == "\n" or char == "\r":
                if not triple:
                    raise ParseError(f"unterminated string literal (detected at line {line})",
                                     self.span_at(start, prefix_end - start))
                pos += 2 if source.startswith("\r\n", pos) else 1
                line += 1
                line_start = pos
                continue
            if source.startswith(delimiter, pos):
                break
            pos += 1
        body_end = pos
        end = pos + len(delimiter)
        raw = "r" in prefix
        if "f" in prefix:
            value = self._fstring_parts(body_start, body_end, raw)
            kind = "FSTRING"
        else:
            value = self._unescape(source[body_start:body_end], raw, body_start)
            kind = "STRING"
        first_line = self.line
        col = start - self.line_start + 1
        end_col = col + (end - start) if line == first_line else None
        self.tokens.append(Token(kind, value, first_line, col, end_col, start, end))
        self.line, self.line_start = line, line_start
        self.pos = end

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
        parts, pos = self._fstring_text(start, stop, raw, in_spec=False, level=0)
        return parts

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


def tokenize(source: str) -> list[Token]:
    """Tokens of a whole program, ending with EOF."""
    return Lexer(source).tokenize()
