"""The language's budgets, each a named constant with the reason for its value.

A program is untrusted input: whatever it does, it must end quickly with a
value or a clear error, never hang, exhaust memory or crash the interpreter
with a Python ``RecursionError``. The per-run budgets a user can change
(elements, steps) are ``gradcli.limits.Limits``; the language's fixed ones are here.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager

from gradcli.limits import MAX_LIST_ITEMS, WORK_PER_STEP, Limits  # noqa: F401  (re-exported)

# Nesting of brackets, blocks, unary operators and `**` right operands. The
# parser recurses once per level; Python's own parser stops at 200 parentheses.
MAX_NESTING = 100

# Depth of user function calls (defs, lambdas, custom Function methods).
MAX_CALL_DEPTH = 200

# A program's length in characters: 10^5 statements of ~40 characters fit with room.
MAX_SOURCE_LENGTH = 10_000_000

# Tokens in a program (comments, blank lines and f-string fields count as one each).
# Each costs ~250 bytes and a few microseconds to lex and parse, so this bounds a
# program's syntax at ~600 MB however its characters are spent (`1+1+1...` packs
# 5 x 10^6 tokens into the source limit); 10^5 statements of 20 tokens fit.
MAX_TOKENS = 2_000_000

# Characters of an integer literal: past 4000 digits Python's int() is quadratic
# (3.10) or refuses (3.11+), and past ~310 digits no float64 holds the value anyway.
MAX_INT_DIGITS = 4000

# Length of a Python list, tuple or string a program builds: defined with the engine's
# limits, as tolist() is held to it too.
MAX_SEQUENCE_LENGTH = MAX_LIST_ITEMS

# A width or precision in a format spec (`f"{x:1000000000}"` would allocate a GB).
MAX_FORMAT_WIDTH = 10_000

# Integers past this many bits become floats (numbers are float64, SPEC 2.1), so
# `10 ** 10 ** 10` or a squaring loop cannot build a huge Python int.
MAX_INT_BITS = 63

# Python frames a nesting level or a user call may take on the interpreter's
# own stack; the recursion limit is raised by this much for a parse or a run.
FRAMES_PER_LEVEL = 16
RECURSION_HEADROOM = (MAX_NESTING + MAX_CALL_DEPTH) * FRAMES_PER_LEVEL


@contextmanager
def recursion_headroom(frames: int = RECURSION_HEADROOM):
    """Let the current call stack grow by `frames` Python frames, then restore the limit.

    The parser and the tree-walking interpreter recurse once per nesting level
    or user call; both bound that depth by the constants above, so the limit
    needed is known. Only ever raised, never lowered.
    """
    old = sys.getrecursionlimit()
    depth = _stack_depth()
    needed = depth + frames
    if needed > old:
        sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        if needed > old:
            sys.setrecursionlimit(old)


def _stack_depth() -> int:
    frame = sys._getframe()
    depth = 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth

# Work charged for an error a program's `except` catches: making it (its message, the
# Python value the handler sees, a tensor op's checks) costs ~20-50 us, as ~1000 units; a loop that
# raises and catches 10^6 times is ended by the budget, not by the clock.
CAUGHT_ERROR_WORK = 1000
