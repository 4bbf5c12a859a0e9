"""The error format of SPEC 6: `FILE:LINE:COL: error: message`, the source line,
a caret under the place, and a hint where one helps."""
from __future__ import annotations

import re
from functools import lru_cache

from ..errors import GradcliError

_KEEP = "\n\t"  # what a message may hold as it is
# Lines end where the lexer says they do (\n, \r\n, \r), not at the form feeds, U+2028
# and U+0085 that str.splitlines also splits at, so the line shown is the line counted.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@lru_cache(maxsize=2)
def _source_lines(source: str) -> list:
    """The source's lines, split once per source (not once per error under --points)."""
    return _LINE_BREAK.split(source)


def printable(text: str, keep: str = "") -> str:
    """`text` with control and line-separator characters escaped (`\\x1b`, `\\u2028`), so an
    echoed line, file name or message cannot drive the terminal; a tab is a space."""
    if text.isprintable():
        return text
    rest = text
    for ch in keep:  # a tooltip's line breaks (kept): no walk character by character
        rest = rest.replace(ch, "")
    if keep and "\t" not in keep and rest.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch in keep else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    if ch == "\t":
        return " "
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def error_text(err: GradcliError, filename: str | None, source: str | None) -> str:
    if getattr(err, "bare", False):   # sys.exit('message'): the message alone, as Python prints it
        return printable(err.message, _KEEP)
    lines = _placed("error", err.message, err.span, filename, source)
    if err.hint:
        lines.append(f"hint: {printable(err.hint, _KEEP)}")
    return "\n".join(lines)


def warning_text(category: str, message: str, span, filename: str | None, source: str | None) -> str:
    """A program's warning (gradcli.warn): `FILE:LINE:COL: warning: UserWarning: text`, the
    line and a caret, as an error is shown."""
    return "\n".join(_placed("warning", f"{category}: {message}", span, filename, source))


def _placed(kind: str, message: str, span, filename: str | None, source: str | None) -> list:
    """`FILE:LINE:COL: kind: message`, then the source line and a caret under the place."""
    name = printable(filename or "gradcli")
    lines = []
    if span is not None:
        lines.append(f"{name}:{span.line}:{span.col}: {kind}: {printable(message, _KEEP)}")
        source_lines = _source_lines(source) if source else ()
        text = source_lines[span.line - 1] if 0 < span.line <= len(source_lines) else None
        if text is not None:
            start = 0
            if len(text) > 200:  # a very long line: show a window around the place
                start = max(0, span.col - 80)
                text = text[start:start + 160]
            lines.append("  " + printable(text))
            width = max(1, (span.end_col - span.col) if span.end_col and span.end_col > span.col else 1)
            lead = len(printable(text[:max(0, span.col - 1 - start)]))
            lines.append("  " + " " * lead + "^" * min(width, 80))
    else:
        lines.append(f"{name}: {kind}: {printable(message, _KEEP)}")
    return lines


def error_json(err: GradcliError) -> dict:
    doc = {"code": int(err.exit_code), "message": err.message}
    if err.span is not None:
        doc["line"] = err.span.line
        doc["col"] = err.span.col
    if err.hint:
        doc["hint"] = err.hint
    return doc
