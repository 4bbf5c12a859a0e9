"""Gradient checks: the engine's derivatives against finite differences and SymPy.

- `core`: one function's check (first and second order, fast mode, kinks).
- `replay`: a program's recorded graph as a function of its inputs, numeric or symbolic.
- `symbolic`: SymPy symbols, budgets, evaluation.
- `perop`: SymPy's first derivatives node by node, for programs the whole translation cannot reach.
- `program`: checking a program run, and `symbolic_derivatives` for `grad --symbolic`;
  `selfcheck`: checking every op of the op table.
- `report`: the results of several files (or the op table) as one report and its JSON.

Nothing here imports SymPy at module level; `selfcheck` is imported on the first read of
`self_check` (a program's check does not need it).
"""
from __future__ import annotations

from .core import FD, SYMPY, Options, Result, check_function
from .program import check_run, run_recorded
from .report import Report

__all__ = ["FD", "SYMPY", "Options", "Report", "Result", "check_function", "check_run",
           "run_recorded", "self_check"]


def __getattr__(name: str):
    if name == "self_check":
        from .selfcheck import self_check

        return self_check
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
