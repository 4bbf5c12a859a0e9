"""A gradcheck report as plain data: the checks of SPEC 5, from programs or the op table.

`Report` gathers the results of several files (or of the self-check) so that
one document, one table and one exit status come out of them; `to_json` is
the `--json` document, one entry per (file or op, output, input, order,
reference).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .core import FD, SYMPY, Result


@dataclass
class Check:
    """One row of the report: a Result and where it comes from."""

    where: str        # the file (or op) name
    kind: str         # "file" or "op"
    output: str
    result: Result
    node: str | None = None   # the op's backward node (self-check)


@dataclass
class Report:
    checks: list = field(default_factory=list)
    errors: list = field(default_factory=list)   # (file, GradcliError) of programs that did not run
    self_check: bool = False

    @property
    def ok(self) -> bool:
        return not self.errors and all(c.result.ok for c in self.checks)

    @property
    def failures(self) -> list:
        return [c for c in self.checks if not c.result.ok]

    def add_program(self, output_reports) -> None:
        for rep in output_reports:
            for r in rep.results:
                self.checks.append(Check(rep.file, "file", rep.output, r))

    def add_ops(self, op_reports) -> None:
        self.self_check = True
        for rep in op_reports:
            for r in rep.results:
                self.checks.append(Check(rep.op, "op", "result", r, rep.node))
            if rep.error is not None:
                failed = Result("*", 1, FD, ok=False, note=rep.error)
                self.checks.append(Check(rep.op, "op", "result", failed, rep.node))


def _number(x):
    if x is None:
        return None
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def check_json(c: Check) -> dict:
    r = c.result
    doc = {c.kind: c.where, "output": c.output, "input": r.input, "order": r.order,
           "reference": r.reference, "ok": r.ok, "max_abs_error": _number(r.max_abs_error),
           "worst_index": r.worst_index, "analytical": _number(r.analytical),
           "expected": _number(r.expected)}
    if r.reference == SYMPY and r.method is not None:
        doc["sympy_method"] = r.method
    if r.wrt is not None:
        doc["wrt"] = r.wrt
    if r.projection:
        doc["fast"] = True
    if r.kink is not None:
        doc["kink"] = r.kink
    if r.skipped:  # counted as skipped, not as passed; the reason beside it
        doc["skipped"] = True
        doc["skip_reason"] = r.skipped
    for key in ("note", "case"):
        if getattr(r, key):
            doc[key] = getattr(r, key)
    other = FD if r.reference == SYMPY else SYMPY
    if other in r.others:
        doc[other] = _number(r.others[other])
    return doc


def to_json(report: Report) -> dict:
    from ..render.errors import error_json

    doc = {"ok": report.ok, "checks": [check_json(c) for c in report.checks]}
    if report.errors:
        doc["errors"] = [{"file": f, "error": error_json(e)} for f, e in report.errors]
    return doc
