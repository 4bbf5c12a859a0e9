"""Refuse a program over the token limit before lexing it.

The lexer enforces MAX_TOKENS as it goes, but by the time it reaches 2 x 10^6
tokens it has spent seconds and hundreds of MB on them. `refuse_too_many_tokens`
counts a lower bound of the lexer's matches with numpy, a byte class at a time
(about 20 ms and a few MB per 10^6 characters), and refuses at once when even
the lower bound is over the limit. Lines with a string count 0 and a comment
counts 1 (what they hold is one token, not many), and a program with a triple quote or a
backslash is left to the lexer: a line inside such a string has no quote of its own.
"""
from __future__ import annotations

from gradcli.errors import LimitError, Span
from gradcli.lang.limits import MAX_TOKENS

_BATCH = 1 << 20  # characters of clean lines counted at once


def _classes():
    import numpy as np

    word = np.zeros(256, dtype=bool)
    for c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.":
        word[c] = True
    word[128:] = True  # UTF-8 bytes of non-ASCII names
    op = np.zeros(256, dtype=bool)
    for c in b"+-*/%@<>=()[]{},:;~&|^!":
        op[c] = True
    return word, op


def _starts(data: bytes, before: bytes = b"\n\n"):
    """A bool array: where a token of the lexer surely starts in `data` (and each newline);
    `before` is the two bytes before it."""
    import numpy as np

    word_class, op_class = _classes()
    full = np.frombuffer(before[-2:].rjust(2, b"\n") + data, dtype=np.uint8)
    raw, prev, prev2 = full[2:], full[1:-1], full[:-2]
    word, op = word_class[full], op_class[full]
    e_before = (prev == ord("e")) | (prev == ord("E"))  # `1e-3` is one number
    sign = (raw == ord("+")) | (raw == ord("-"))
    after_sign = ((prev == ord("+")) | (prev == ord("-"))) & ((prev2 == ord("e")) | (prev2 == ord("E")))
    return (word[2:] & ~word[1:-1] & ~after_sign) | (op[2:] & ~op[1:-1] & ~(sign & e_before)) \
        | (raw == ord("\n"))


def _chunks(data: bytes):
    """(start, the start array) of each _BATCH bytes of `data`: memory stays a few MB."""
    for start in range(0, len(data), _BATCH):
        yield start, _starts(data[start:start + _BATCH], data[max(0, start - 2):start])


def refuse_too_many_tokens(source: str) -> None:
    """Raise the lexer's LimitError now if the program surely has more than MAX_TOKENS tokens."""
    if len(source) <= MAX_TOKENS or '"""' in source or "'''" in source or "\\" in source:
        return  # few enough characters for the lexer to refuse quickly, or strings it must read
    counted = 0
    batch: list = []  # (offset, line) of clean lines not yet counted
    size = 0
    offset = 0
    for line in source.splitlines(keepends=True):
        if not ('"' in line or "'" in line):
            if "#" in line:  # the comment is one token: count what comes before it
                line = line[:line.index("#")] + "\n"
            batch.append((offset, line))
            size += len(line)
        offset += len(line)
        if size >= _BATCH:
            counted = _count_batch(source, batch, counted)
            batch, size = [], 0
    _count_batch(source, batch, counted)


def _count_batch(source: str, batch: list, counted: int) -> int:
    if not batch:
        return counted
    import numpy as np

    data = "".join(line for _, line in batch).encode("utf-8", "replace")
    at = None
    for start, starts in _chunks(data):
        total = int(starts.sum())
        if counted + total > MAX_TOKENS:  # over the limit here: find the place
            at = start + int(np.flatnonzero(starts)[MAX_TOKENS - counted])
            break
        counted += total
    if at is None:
        return counted
    ends = np.cumsum([len(line.encode("utf-8", "replace")) for _, line in batch])
    index = int(np.searchsorted(ends, at, side="right"))
    offset, line = batch[index]
    before = at - (int(ends[index - 1]) if index else 0)
    col = len(line.encode("utf-8", "replace")[:before].decode("utf-8", "replace")) + 1
    raise too_many_tokens(Span(source.count("\n", 0, offset) + 1, col), MAX_TOKENS)


def too_many_tokens(span: Span, limit: int) -> LimitError:
    """The error of the token limit, from here or from the lexer."""
    return LimitError(f"the program has more than {limit} tokens", span,
                      hint="the limit is fixed: split the work into loops or functions")
