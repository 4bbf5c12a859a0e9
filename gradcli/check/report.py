"""A gradcheck report as plain data: the checks of SPEC 5, from programs or the op table.

`Report` gathers the results of several files (or of the self-check) so that
one document, one table and one exit status come out of them; its `--json`
document is `render/checkjson.py`'s.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .core import FD, Result


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
    culprits: list = field(default_factory=list)  # (file, output, check.functions.Culprit)
    unchecked: list = field(default_factory=list)  # check.functions.Unchecked: Functions not used

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
            for culprit in getattr(rep, "culprits", ()):
                self.culprits.append((rep.file, rep.output, culprit))
            self.unchecked.extend(getattr(rep, "unchecked", ()))

    def add_ops(self, op_reports) -> None:
        self.self_check = True
        for rep in op_reports:
            for r in rep.results:
                self.checks.append(Check(rep.op, "op", "result", r, rep.node))
            if rep.error is not None:
                failed = Result("*", 1, FD, ok=False, note=rep.error)
                self.checks.append(Check(rep.op, "op", "result", failed, rep.node))
