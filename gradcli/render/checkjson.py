"""gradcheck's `--json` document (SPEC 5): one entry per (file or op, output, input, order,
reference), and the errors of files that did not run."""
from __future__ import annotations

import math

from ..check.core import FD, SYMPY
from ..check.report import Check, Report
from .errors import error_json


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
    if r.unused:  # the output does not depend on it: nothing was compared
        doc["unused"] = True
    if r.grad_output is not None:  # order 2 of a vector output: v of the v^T H compared
        doc["grad_output"] = r.grad_output
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
    doc = {"ok": report.ok, "checks": [check_json(c) for c in report.checks]}
    if report.culprits:  # the custom Functions whose backward returns a wrong gradient
        doc["functions"] = [culprit_json(f, out, c) for f, out, c in report.culprits]
    if report.unchecked:  # custom Functions applied off the output's graph: not checked
        doc["unchecked_functions"] = [{"class": u.cls, "applied": u.applied, "output": u.output,
                                       "held_by": u.holder} for u in report.unchecked]
    if report.errors:
        doc["errors"] = [{"file": f, "error": error_json(e)} for f, e in report.errors]
    return doc


def culprit_json(file: str, output: str, c) -> dict:
    return {"file": file, "output": output, "class": c.cls, "backward": c.where(),
            "backward_def_line": c.backward_line, "position": c.position, "parameter": c.parameter,
            "element": c.element, "analytical": _number(c.analytical), "expected": _number(c.expected),
            "grad_output": c.grad_output}
