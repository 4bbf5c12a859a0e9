"""The error format of SPEC 6: `FILE:LINE:COL: error: message`, the source line,
a caret under the place, and a hint where one helps."""
from __future__ import annotations

from ..errors import GradcliError


def error_text(err: GradcliError, filename: str | None, source: str | None) -> str:
    name = filename or "gradcli"
    span = err.span
    lines = []
    if span is not None:
        lines.append(f"{name}:{span.line}:{span.col}: error: {err.message}")
        text = source.splitlines()[span.line - 1] if source and 0 < span.line <= len(source.splitlines()) else None
        if text is not None:
            shown = text.replace("\t", " ")
            start = 0
            if len(shown) > 200:  # a very long line: show a window around the place
                start = max(0, span.col - 80)
                shown = shown[start:start + 160]
            lines.append("  " + shown)
            width = max(1, (span.end_col - span.col) if span.end_col and span.end_col > span.col else 1)
            lines.append("  " + " " * (span.col - 1 - start) + "^" * min(width, 80))
    else:
        lines.append(f"{name}: error: {err.message}")
    if err.hint:
        lines.append(f"hint: {err.hint}")
    return "\n".join(lines)


def error_json(err: GradcliError) -> dict:
    doc = {"code": int(err.exit_code), "message": err.message}
    if err.span is not None:
        doc["line"] = err.span.line
        doc["col"] = err.span.col
    if err.hint:
        doc["hint"] = err.hint
    return doc
