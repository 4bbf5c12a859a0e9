"""Colour with meaning (FAIL and `error:` red, ok green, hints dim), on a terminal only.

Plain ANSI codes, no Rich: piped output pays nothing for colour. The choice is
made once per command (`choose`, from --color and NO_COLOR) for each stream.
"""
from __future__ import annotations

import os
import re
import sys

CODES = {"fail": "31", "error": "1;31", "ok": "32", "hint": "2", "warn": "33", "label": "1"}
MODES = ("auto", "always", "never")

# Whether each stream is coloured; set by `choose` at the start of a command.
_ON = {"stdout": False, "stderr": False}


def wanted(mode: str, stream) -> bool:
    """Colour for `stream` under --color MODE: always, never, or auto (a terminal, no NO_COLOR,
    no TERM=dumb)."""
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def choose(mode: str = "auto") -> None:
    _ON["stdout"] = wanted(mode, sys.stdout)
    _ON["stderr"] = wanted(mode, sys.stderr)


def coloured(stream: str = "stdout") -> bool:
    """Whether `choose` coloured `stream` (a plot draws in colour then)."""
    return _ON[stream]


def paint(text: str, role: str, stream: str = "stdout") -> str:
    """`text` in the colour of `role` when `stream` is coloured, else unchanged."""
    if not _ON[stream] or not text:
        return text
    return f"\x1b[{CODES[role]}m{text}\x1b[0m"


def status_role(text: str) -> str | None:
    """The colour of a check's status word."""
    return {"FAIL": "fail", "ok": "ok", "kink": "warn", "skipped": "hint"}.get(text)


def error_report(text: str) -> str:
    """An error report for stderr: `error:` red, the hint dim (when stderr is coloured)."""
    if not _ON["stderr"]:
        return text
    lines = text.split("\n")
    lines[0] = lines[0].replace("error:", paint("error:", "error", "stderr"), 1)
    return "\n".join(paint(l, "hint", "stderr") if l.startswith("hint:") else l for l in lines)


# The colour codes this package writes (these, the graph tree's in render/graph.py, and the
# reset): the only escape sequences `terminal_safe` lets through, and only when colouring.
_OWN_CODES = {*CODES.values(), "0", "1;36", "2;35", "1;33"}
# (a pattern, compiled by `re` when first used: not at start-up)
_OWN_SGR = ("\x1b\\[(?:" + "|".join(sorted(map(re.escape, _OWN_CODES), key=len,
                                             reverse=True)) + ")m")


def terminal_safe(text: str, stream: str = "stdout", colored: bool | None = None) -> str:
    """Human output as it may reach a terminal: every control character of a program's
    strings (a ModuleDict key with ESC bytes, a source line) escaped as error messages
    escape them (`\\x1b`), line breaks kept; the colour codes of `paint` are kept when the
    stream is coloured (program strings are escaped before they are painted: `layout`)."""
    from .errors import printable

    if text.isprintable():
        return text
    keep_colour = _ON[stream] if colored is None else colored
    if not keep_colour or "\x1b" not in text:
        return printable(text, "\n")
    pieces = re.split(_OWN_SGR, text)
    codes = re.findall(_OWN_SGR, text)
    out = [printable(pieces[0], "\n")]
    for code, piece in zip(codes, pieces[1:]):
        out.append(code)
        out.append(printable(piece, "\n"))
    return "".join(out)
