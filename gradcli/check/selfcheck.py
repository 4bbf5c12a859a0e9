"""`gradcheck` with no file: every differentiable op of the op table, checked.

Each op is checked at the points its own `domain` gives (shapes (), (3,), (2, 3)
and broadcasting pairs, inside the region where it is differentiable), first
and second order, against central differences and its SymPy counterpart. The
table is iterated, never listed: an op added to it is checked here the day it
is added. The results of all of an op's cases are folded into one per (input,
order, reference), the worst case shown.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from ..ops import OPS
from ..ops.registry import apply
from .._tensor import Tensor
from .core import Options, Result, check_function


@dataclass
class OpReport:
    """An op's checks over all its domain cases."""

    op: str
    node: str
    cases: int
    results: list = field(default_factory=list)   # Result, with `case` of the worst
    error: str | None = None                       # the op raised instead of computing

    @property
    def ok(self) -> bool:
        return self.error is None and all(r.ok for r in self.results)


def _describe(inputs, params) -> str:
    shapes = ", ".join(str(tuple(np.shape(a))) if isinstance(a, np.ndarray) else repr(a) for a in inputs)
    extra = ", ".join(f"{k}={v!r}" for k, v in params.items() if not isinstance(v, np.ndarray))
    return shapes + (f"; {extra}" if extra else "")


def _case_function(op, inputs, params, diff, output):
    """The op as a function of its differentiable inputs, and its SymPy form."""
    def func(*xs):
        args = list(inputs)
        for i, x in zip(diff, xs):
            args[i] = x
        out = apply(op, tuple(args), params)
        return out[output] if isinstance(out, tuple) else out

    def sympy_fn(sp, arrays, budget):
        args = list(inputs)
        for i, a in zip(diff, arrays):
            args[i] = a
        out = op.sympy(sp, *args, **params)
        return out[output] if isinstance(out, (tuple, list)) else out

    return func, (sympy_fn if op.sympy is not None else None)


def check_op(op, options: Options) -> OpReport:
    """Every domain case of one op, folded into one result per (input, order, reference)."""
    rng = np.random.default_rng(zlib.crc32(op.name.encode()))
    cases = op.domain(rng)
    report = OpReport(op.name, op.node, len(cases))
    folded: dict = {}
    for number, (inputs, params) in enumerate(cases):
        diff = [i for i, a in enumerate(inputs)
                if isinstance(a, np.ndarray) and i < len(op.rules) and op.rules[i] is not None]
        if not diff:
            continue
        try:
            probe = apply(op, tuple(Tensor(np.array(a, dtype=np.float64)) if i in diff else a
                                    for i, a in enumerate(inputs)), params)
        except Exception as exc:  # an op that cannot run its own domain is a failure
            report.error = f"case {number} ({_describe(inputs, params)}): {type(exc).__name__}: {exc}"
            continue
        outputs = range(len(probe)) if isinstance(probe, tuple) else [0]
        for output in outputs:
            if isinstance(probe, tuple) and probe[output]._data.dtype != np.float64:
                continue  # indices of max(dim): not differentiable
            func, sympy_fn = _case_function(op, inputs, params, diff, output)
            xs = [Tensor(np.array(inputs[i], dtype=np.float64), requires_grad=True) for i in diff]
            names = [op.inputs[i] for i in diff]
            try:
                results = check_function(func, xs, names, options, sympy_fn)
            except Exception as exc:
                report.error = f"case {number} ({_describe(inputs, params)}): {type(exc).__name__}: {exc}"
                continue
            for r in results:
                r.case = f"case {number}: {_describe(inputs, params)}"
                _fold(folded, r)
    report.results = list(folded.values())
    return report


def _fold(folded: dict, r: Result) -> None:
    key = (r.input, r.order, r.reference)
    old = folded.get(key)
    if old is None:
        folded[key] = r
        return
    if r.kink and not old.kink:
        old.kink = r.kink
    if old.skipped and not r.skipped:
        r.kink = r.kink or old.kink
        folded[key] = r
        return
    if r.skipped:
        return
    worse = (not r.ok and old.ok) or (r.ok == old.ok and (r.max_abs_error or 0) > (old.max_abs_error or 0))
    if worse:
        r.kink = r.kink or old.kink
        folded[key] = r


def differentiable_ops() -> list:
    return [op for op in OPS.values() if op.differentiable and op.domain is not None]


def self_check(options: Options, ops=None) -> list:
    """One OpReport per differentiable op of the table (or of `ops`)."""
    return [check_op(op, options) for op in (ops if ops is not None else differentiable_ops())]
