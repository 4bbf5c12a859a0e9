"""The `gradcheck` command: analytical derivatives against finite differences and SymPy.

With files (or -e), each program's output is checked as a function of its
inputs; with none, every op of the op table is (the self-check). One report
for everything: a Rich table (or the JSON of SPEC 5), exit 1 on any mismatch.
"""
from __future__ import annotations

from typing import Annotated, List, Optional

from ..errors import UsageError
from . import progress
from .common import Failed, emit, isolated, load, names, parse_sets, report, stderr_print
from .options import LIMIT_OPTIONS, Argument, Common, Option, common_options

Files = Annotated[Optional[List[str]], Argument(
    help="Programs to check (- for standard input); none: check every built-in op. A file that "
         "imports torch is a PyTorch program (inputs: tensors made with requires_grad=True, module "
         "parameters); any other is an expression (inputs: names assigned a number or list).",
    metavar="FILE",
    show_default=False)]


@common_options("expr", "sets", "json", "dtype", *LIMIT_OPTIONS)
def gradcheck_cmd(
    opts: Common,
    files: Files = None,
    of: Annotated[Optional[str], Option(
        "--of", help="The output(s) to check, comma-separated (default: the output, docs/LANGUAGE.md).")] = None,
    wrt: Annotated[Optional[str], Option(
        "--wrt", help="Inputs to check, comma-separated (default: every input that requires grad).")] = None,
    eps: Annotated[float, Option("--eps", help="The finite-difference step.")] = 1e-6,
    atol: Annotated[float, Option("--atol", help="Absolute tolerance.")] = 1e-5,
    rtol: Annotated[float, Option("--rtol", help="Relative tolerance.")] = 1e-3,
    order: Annotated[int, Option("--order", help="1, or 2 to check second derivatives too.")] = 1,
    no_sympy: Annotated[bool, Option("--no-sympy", help="Skip the SymPy reference.")] = False,
    fast: Annotated[bool, Option("--fast", help="Check random projections v^T J u (large inputs).")] = False,
):
    """Check analytical derivatives against central differences and SymPy.

    Pass rule (PyTorch's): |analytical - reference| <= atol + rtol * |reference|.
    Exit 1 if any check fails. With no FILE, every built-in op is checked,
    first and second order.

    Example: gradcli gradcheck samples/rosenbrock.txt --order 2
    """
    from ..check import Options

    if order not in (1, 2):
        raise UsageError(f"--order {order}: gradcheck checks order 1 or 2")
    if not eps > 0 or eps == float("inf"):  # refuses nan too
        raise UsageError("--eps must be positive")
    for option, value in (("--atol", atol), ("--rtol", rtol)):
        if not value >= 0:  # nan would pass every comparison
            raise UsageError(f"{option} {value}: a tolerance must be a number >= 0")
    if not files and opts.expr is None:
        options = Options(eps, atol, rtol, 2, not no_sympy, fast)
        result = _self_check(options)
    else:
        options = Options(eps, atol, rtol, order, not no_sympy, fast)
        result = _programs(opts, files or [], of, wrt, options)
    if opts.json:
        from ..render.checkjson import to_json
        from ..render.jsonout import dumps

        emit(dumps(to_json(result)))
    else:
        _human(result)
    if result.errors:
        raise Failed(int(result.errors[0][1].exit_code))
    if not result.ok:
        raise Failed(1)


def _self_check(options):
    from ..check import Report
    from ..check.selfcheck import check_op, differentiable_ops

    ops = differentiable_ops()
    reports = []
    with progress.steps("checking ops", len(ops)) as advance:
        for op in ops:
            advance(0, f"checking {op.name}")
            reports.append(check_op(op, options))
            advance()
    result = Report()
    result.add_ops(reports)
    return result


def _programs(opts, files, of, wrt, options):
    """Check each program; a program that fails to run is reported and the others go on."""
    from ..check import Report, check_run, run_recorded

    sources = [(None, opts.expr)] if opts.expr is not None else []
    if opts.expr is not None and files:
        raise UsageError("give the programs either as FILE or with -e/--expr, not both")
    sources += [(f, None) for f in files]
    overrides = parse_sets(opts.sets)
    of_names = names(of, "--of") if of is not None else None
    wrt_names = names(wrt, "--wrt") if wrt is not None else None
    limits = opts.limits()

    def check(file, text):
        program = load(opts, file, text)
        run, notes = run_recorded(program, overrides, requires_grad=tuple(wrt_names or ()),
                                  stdout=stderr_print, limits=limits)
        return check_run(run, notes, opts.source.filename, options, of_names, wrt_names)

    result = Report()
    if len(sources) == 1:  # one program: its error is the whole answer, as in every command
        with progress.after(f"checking {sources[0][0] or '<expr>'}"):
            result.add_program(check(*sources[0]))
        return result
    with progress.steps("checking", len(sources)) as advance:
        for file, text in sources:
            advance(0, f"checking {file or '<expr>'}")
            opts.source = None
            checked, err = isolated(lambda: check(file, text))
            if err is None:
                result.add_program(checked)
            else:
                report(err, opts.source, False)
                result.errors.append((opts.source.filename if opts.source else file, err))
            advance()
    return result


# -- the human report -----------------------------------------------------------------------


def _status(r) -> str:
    if not r.ok:
        return "FAIL"
    if r.unused:
        return "unused"
    if r.skipped:
        return "skipped"
    if r.kink is not None:
        return "kink"
    return "ok"


def _second_order(output: str, r) -> str:
    """What an order-2 check compared at its worst element (gradgradcheck's blocks)."""
    if r.wrt == "grad_output":
        return (f"d/d(grad_output) of the gradient wrt {r.input} is the first derivative again, "
                "so a backward that is wrong only when differentiated shows here")
    if r.grad_output is not None:
        return (f"compared v^T H (the vector-Hessian product d/d{r.wrt}(v . d{output}/d{r.input})) "
                f"for grad_output v = {r.grad_output}")
    return f"compared Hessian entries d²{output}/d{r.input}d{r.wrt or r.input}"


def _num(x) -> str:
    return "-" if x is None else f"{x:.6g}"


def _element(r) -> str:
    if r.worst_index is None:
        return "-"
    where = "v^T J u" if r.projection else f"[{', '.join(map(str, r.worst_index))}]"
    return where + (f" d/d{r.wrt}" if r.wrt else "")


_SHORT = {"finite-difference": "FD", "sympy": "SymPy"}


def _reference(r) -> str:
    short = _SHORT.get(r.reference, r.reference)
    return f"{short} (per op)" if r.method == "per-op" else short


def _cell(text: str):
    from ..render.layout import Cell
    from ..render.style import status_role

    return Cell(text, status_role(text))


def counts(result) -> str:
    """"2 passed, 1 skipped, 1 failed": a skipped check is not a pass."""
    skipped = sum(1 for c in result.checks if c.result.ok and c.result.skipped and not c.result.unused)
    unused = sum(1 for c in result.checks if c.result.ok and c.result.unused)
    failed = len(result.failures) + len(result.errors)
    passed = len(result.checks) - len(result.failures) - skipped - unused
    parts = [f"{passed} passed"] + ([f"{skipped} skipped"] if skipped else []) + (
        [f"{unused} unused"] if unused else []) + ([f"{failed} failed"] if failed else [])
    functions = len(getattr(result, "unchecked", ()))
    if functions:   # a custom Function the output does not use: its backward was not compared
        parts.append(f"{functions} custom Function{'s' if functions > 1 else ''} not checked")
    return ", ".join(parts)


def _human(result) -> None:
    from ..check import FD, SYMPY
    from ..render.human import write
    from ..render.layout import Table
    from ..render.style import paint

    lines = []
    if result.self_check:
        lines += _op_table(result)
    else:
        # One table per file, under its name: a long path never shares a row with numbers.
        by_file = {}
        for c in result.checks:
            by_file.setdefault(c.where, []).append(c)
        for where, checks in by_file.items():
            t = Table("output", "input", "order", "reference", "status", "max error", title=where)
            for c in checks:
                r = c.result
                t.add_row(c.output, r.input, str(r.order), _reference(r), _cell(_status(r)),
                          "-" if r.unused else _num(r.max_abs_error))
            lines += ([""] if lines else []) + t.lines()
    # One entry per failing (file or op, output, input, order): the element, the engine's value
    # and both references there.
    failing = {}
    for c in result.failures:
        key = (c.where, c.output, c.result.input, c.result.order)
        if key not in failing or c.result.reference == FD:
            failing[key] = c
    if failing:
        t = Table("op" if result.self_check else "file", "output", "input", "order", "element",
                  "analytical", "FD", "SymPy", "error", title="failures:")
        for c in failing.values():
            r = c.result
            fd = r.expected if r.reference == FD else r.others.get(FD)
            sym = r.expected if r.reference == SYMPY else r.others.get(SYMPY)
            where = c.where + (f" ({r.case})" if r.case else "")
            t.add_row(where, c.output, r.input, str(r.order), _element(r), _num(r.analytical),
                      _num(fd), _num(sym), _num(r.max_abs_error))
        lines += [""] + t.lines()
        for c in failing.values():
            r = c.result
            if r.order == 2:
                lines.append(f"order 2, {c.output} wrt {r.input}: " + _second_order(c.output, r))
    for file, output, culprit in getattr(result, "culprits", ()):
        lines.extend((paint("found: ", "fail") + culprit.text()).split("\n"))
    for unchecked in getattr(result, "unchecked", ()):
        lines.append(paint("not checked: ", "warn") + unchecked.text())
    notes, noted = [], set()  # notes go to stderr: the report on stdout stays the table
    for c in result.checks:
        r = c.result
        label = f"{c.where}: {c.output} wrt {r.input}, order {r.order}, {_SHORT.get(r.reference, r.reference)}"
        if r.kink is not None and r.ok:
            at = f" at element {r.kink}" if r.kink else ""
            notes.append(f"{label}: the point is on a kink{at} (the finite differences do not "
                         "settle there: a derivative is a convention), not a failure")
        if r.unused and r.reference == FD:
            notes.append(f"{label.rsplit(',', 1)[0]}: {c.output} does not depend on {r.input} "
                         "(no path of its graph leads to it): nothing to compare")
        if r.skipped and not result.self_check:
            notes.append(f"{label}: skipped: {r.skipped}")
        if r.note and (c.where, c.output, r.note) not in noted:
            noted.add((c.where, c.output, r.note))
            notes.append(f"{c.where}: {c.output}: {r.note}")
    for note in notes:
        stderr_print(paint(f"note: {note}", "hint", "stderr"))
    for file, err in result.errors:
        lines.append(f"{file}: {paint('error:', 'error')} {err.message}")
    summary = counts(result)
    lines.append(paint(summary, "fail") if not result.ok else summary)
    write(lines)


def _op_table(result) -> list:
    """One line per op: its checks by order and reference (the nodes: `gradcli ops`)."""
    from ..render.layout import Table

    rows = {}
    for c in result.checks:
        row = rows.setdefault(c.where, {"cells": {}, "error": 0.0, "ok": True})
        key = (c.result.order, c.result.reference)
        cell = row["cells"].get(key)
        status = _status(c.result)
        if cell is None or status == "FAIL" or (status != "ok" and cell == "ok"):
            row["cells"][key] = status
        if c.result.max_abs_error is not None and c.result.max_abs_error == c.result.max_abs_error:
            row["error"] = max(row["error"], c.result.max_abs_error)
        row["ok"] = row["ok"] and c.result.ok
    t = Table("op", "1 FD", "1 SymPy", "2 FD", "2 SymPy", "max error", "status")
    for name, row in rows.items():
        cells = [_cell(row["cells"].get((o, ref), "-")) for o in (1, 2)
                 for ref in ("finite-difference", "sympy")]
        t.add_row(name, *cells, _num(row["error"]), _cell("ok" if row["ok"] else "FAIL"))
    return t.lines()
