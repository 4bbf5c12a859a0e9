"""The warning channel: PyTorch's UserWarnings, as a program's run triggers them.

PyTorch prints some warnings on standard error and goes on (reading `.grad` of a
tensor that is not a leaf, `torch.tensor(t)` of a tensor, `scheduler.step(epoch)`).
gradcli's engine calls `warn(text)`; so do the library's own `warnings.warn` calls,
which a program's run routes here (`Channel.capture`). The channel of the running
program (`Channel.active`) decides, as Python's `warnings` module does by default,
whether to show it: once per (text, category, line) of the program, unless the
program's own filters (`warnings.filterwarnings`, `simplefilter`: `lang/stdlib.py`)
say otherwise; then `write(category, text, span)` shows it, on standard error as
`FILE:LINE:COL: warning: UserWarning: TEXT` (the CLI's writer adds the line and a
caret). A warning never changes standard output or the exit code, except under a
program's `filterwarnings("error")`, where Python raises it as an exception.

A program's `message=` filter is not a regular expression run on our side (a
pattern can take exponential time): it is a prefix of the text, case-insensitive,
where `.*` stands for any run of characters and `.` for any one (`\\.` is a dot).
"""
from __future__ import annotations

import re
import sys
import warnings as _python_warnings
from contextlib import contextmanager

from .graph.nodes import _current_source
from .limits import budget

ACTIONS = ("default", "error", "ignore", "always", "module", "once")
MAX_FILTERS = 1000   # a program's filters (Python's list grows without bound)
MAX_PATTERN = 1000   # characters of a message= pattern
MAX_SEEN = 10_000    # (text, category, line) keys remembered (a loop of distinct texts: memory)


def warn(message: str, category: type = UserWarning) -> None:
    """Show `message` as a warning of the running program at its current place (if any runs)."""
    channel = Channel.running[0]
    if channel is not None:
        channel.warn(str(message), category, _current_source[0])


def _matches(pattern: str, text: str) -> bool:
    """Whether `pattern` (see the module's note) matches the start of `text`, case-insensitive.

    Each piece between `.*` is searched for after the previous one, leftmost first (nothing is
    anchored at the end, so the leftmost place is the best): no backtracking across pieces,
    and a piece's own regular expression is literals and `.` only."""
    text = text.lower()
    start = 0
    for k, piece in enumerate(pattern.lower().split(".*")):
        regex = _piece(piece)
        found = regex.match(text, start) if k == 0 else regex.search(text, start)
        if found is None:
            return False
        start = found.end()
    return True


def _piece(piece: str):
    """A pattern piece as a regular expression of literal characters and `.` (any one)."""
    out, escaped = [], False
    for ch in piece:
        if escaped:
            out.append(re.escape(ch))
            escaped = False
        elif ch == "\\":
            escaped = True
        else:
            out.append("." if ch == "." else re.escape(ch))
    return re.compile("".join(out), re.DOTALL)


class Channel:
    """One program's warnings: its filters, and the places already warned about."""

    running: list = [None]   # the channel of the program being run

    def __init__(self, write, raise_as=None):
        self.write = write        # (category, text, span) -> None
        # (warning, span) -> the exception an "error" filter raises: the language's, so the
        # program can catch it (this layer is below the language); else the warning itself
        self.raise_as = raise_as
        self.filters: list = []   # (action, message pattern, category, line), newest first
        self.seen: set = set()

    def reset(self) -> None:
        """A new run starts with Python's default filters (the places warned about are kept)."""
        self.filters = []

    def add_filter(self, action: str, message: str = "", category: type = Warning, lineno: int = 0,
                   append: bool = False) -> None:
        if action not in ACTIONS:
            raise ValueError(f"invalid action: {action!r}")
        if not isinstance(message, str):
            raise TypeError("message must be a string")
        if len(message) > MAX_PATTERN:
            raise ValueError(f"a message pattern may have at most {MAX_PATTERN} characters")
        if not (isinstance(category, type) and issubclass(category, Warning)):
            raise TypeError("category must be a Warning subclass")
        if not isinstance(lineno, int) or lineno < 0:
            raise ValueError("lineno must be an int >= 0")
        entry = (action, message, category, lineno)
        if entry in self.filters:
            self.filters.remove(entry)
        if len(self.filters) >= MAX_FILTERS:
            raise ValueError(f"a program may set at most {MAX_FILTERS} warning filters")
        if append:
            self.filters.append(entry)
        else:
            self.filters.insert(0, entry)

    def action(self, text: str, category: type, line: int) -> str:
        for action, message, cls, lineno in self.filters:
            if issubclass(category, cls) and (not message or _matches(message, text)) \
                    and lineno in (0, line):
                return action
        return "default"

    def warn(self, text: str, category: type, span) -> None:
        line = span.line if span is not None else 0
        # the filters' scans of the text, charged before they run (a program sets the filters)
        budget.charge_items(len(text) * (1 + sum(1 for f in self.filters if f[1])))
        action = self.action(text, category, line)
        if action == "ignore":
            return
        if action == "error":
            if self.raise_as is None:
                raise category(text)
            raise self.raise_as(category(text), span)
        if action != "always":
            # a long text is remembered by its hash (10,000 keys of 1 MB texts would be 10 GB)
            said = text if len(text) <= 256 else (len(text), hash(text))
            key = (said, category) if action in ("once", "module") else (said, category, line)
            if key in self.seen:
                return
            if len(self.seen) < MAX_SEEN:   # past it, a new text at a new place is shown each time
                self.seen.add(key)
        self.write(category, text, span)

    @contextmanager
    def active(self):
        """Run with this channel: the engine's warnings and the library's `warnings.warn` come here."""
        previous = Channel.running[0]
        Channel.running[0] = self
        with _python_warnings.catch_warnings():
            # the library's warnings.warn (losses, RNN options, gradcheck) as the program's;
            # numpy's RuntimeWarnings stay off (inf and nan flow silently, as in PyTorch)
            _python_warnings.simplefilter("always")
            _python_warnings.simplefilter("ignore", RuntimeWarning)
            _python_warnings.simplefilter("ignore", DeprecationWarning)
            _python_warnings.showwarning = self._from_python
            try:
                yield self
            finally:
                Channel.running[0] = previous

    def _from_python(self, message, category, filename, lineno, file=None, line=None) -> None:
        self.warn(str(message), category, _current_source[0])


def write_plain(filename: str):
    """The writer of a program run without the CLI: `FILE:LINE:COL: warning: Category: text`."""
    def write(category: type, text: str, span) -> None:
        sys.stderr.write(location(filename, span) + f" warning: {category.__name__}: {text}\n")
    return write


def location(filename: str, span) -> str:
    return f"{filename}:{span.line}:{span.col}:" if span is not None else f"{filename}:"
