"""Checking a program: its output as a function of its inputs, and `grad --symbolic`.

The program runs once under `recording()`; its graph, replayed by `Tape`, is
the function whose derivatives are checked (see `replay`). The checked inputs
are by default every named leaf that requires grad; `--wrt` may also name an
intermediate tensor (its graph above is then replaced by the perturbed value).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..lang import runs
from .._tensor import Tensor, no_grad
from ..errors import AutogradError, GradcliError
from . import symbolic
from ..autograd.function import FunctionCtx
from .core import Options, check_function
from .replay import Tape, Unavailable, recording


@dataclass
class OutputReport:
    """The checks of one output of one program."""

    file: str
    output: str
    results: list = field(default_factory=list)
    culprits: list = field(default_factory=list)  # custom Functions whose backward is wrong
    unchecked: list = field(default_factory=list)  # custom Functions the output does not use


def default_inputs(run) -> list:
    """(name, tensor) of every named leaf that requires grad, each tensor once."""
    seen, out = set(), []
    for name, t in runs.tensors(run).items():
        if t.is_leaf and t.requires_grad and id(t) not in seen:
            seen.add(id(t))
            out.append((name, t))
    return out


def run_recorded(program, overrides=None, requires_grad=(), stdout=None, limits=None, script=False):
    """Run `program` noting every node's inputs, so that its graph can be replayed."""
    with recording() as notes:
        run = program.run(overrides or {}, requires_grad=requires_grad, stdout=stdout, limits=limits,
                          script=script)
    return run, notes


def check_run(run, notes, label: str, options: Options, of=None, wrt=None) -> list:
    """One OutputReport per output (`of`: names, default the program's output)."""
    if wrt:
        inputs = list(zip(wrt, runs.lookup(run, wrt, "--wrt")))
        for name, t in inputs:
            if not t.requires_grad:
                raise AutogradError(f"--wrt {name}: the tensor does not require grad, and is not a "
                                    "leaf that could be made to")
    else:
        inputs = default_inputs(run)
    if not inputs:
        raise AutogradError("gradcheck expects at least one input tensor to require gradient, "
                            "but none of the them have requires_grad=True.",
                            hint="make an input a leaf that requires grad (x = 2.0, or "
                                 "requires_grad=True), or name one with --wrt")
    names = [name for name, _ in inputs]
    reports = []
    for output in (of or [None]):
        out_name, out = runs.tensor_output(run, output)
        tape = Tape([out], [t for _, t in inputs], notes)
        xs = [Tensor(np.array(t._data, dtype=np.float64), requires_grad=True) for _, t in inputs]
        options, slow = _bounded(options, tape, xs)
        chain = None
        if options.sympy:  # the per-op chain and its module only where SymPy is asked for
            from .perop import Chain

            chain = Chain(tape, xs)
        try:
            results = check_function(lambda *a: tape(*a)[0], xs, names, options,
                                     _sympy_function(tape, xs), original=(out, [t for _, t in inputs]),
                                     sympy_chain=chain)
        except GradcliError as error:
            # a backward that fails (a custom Function's): point at where its node was made
            raise error.at(error.node.source if error.node is not None else None)
        if slow:
            for r in results:
                r.note = r.note or slow
        _mark_unused(results, tape, names)
        for r in results:   # the output is an input itself: its derivative is 1 by definition
            if r.input in names and inputs[names.index(r.input)][1] is out:
                r.note = (f"the output {out_name!r} is the input {r.input!r} itself, so this checks "
                          "nothing the program computes (--of NAME picks a value computed from it)")
        culprits = []
        if any(not r.ok for r in results) and any(isinstance(node, FunctionCtx) for node in tape.order):
            from .functions import find_culprits  # a failing custom Function named

            culprits = find_culprits(tape, label, options.eps, options.atol, options.rtol, options.seed)
        unchecked = []
        if getattr(tape.notes, "applied", None):   # custom Functions the output may not use
            from .functions import unchecked_functions

            unchecked = unchecked_functions(tape, label, out_name, runs.tensors(run))
        reports.append(OutputReport(label, out_name, results, culprits, unchecked))
    return reports


def _mark_unused(results: list, tape: Tape, names: list) -> None:
    """An input no path of the graph leads to from the output is unused (PyTorch's word for
    it), not a pass with error 0."""
    used = set()
    for key in tape.out_keys:
        if key is None:
            continue
        if key in tape.wrt_keys:
            used.add(tape.wrt_keys.index(key))
        used |= tape.depends.get(key[0], set())
    for r in results:
        if r.input in names and names.index(r.input) not in used and r.ok:
            r.unused = True


# A full check evaluates the program twice per input element. Past this estimate of
# seconds it checks in fast mode instead, so that a big input gets an answer in bounded
# time: the estimate counts nodes (about 20 us each) and elements (about 2 ns each) of
# one evaluation, so it is the same on every machine and every run.
FULL_CHECK_SECONDS = 10.0


def _bounded(options: Options, tape: Tape, xs: list):
    """`options`, switched to fast mode (with the note saying why) if a full check would take too long."""
    if options.fast:
        return options, None
    with no_grad():
        _, values = tape.evaluate([Tensor._make(x._data.copy()) for x in xs], keep=True)
    elements = sum(v._data.size for out in values.values()
                   for v in (out if isinstance(out, tuple) else (out,)))
    n_inputs = sum(x._data.size for x in xs)
    seconds = 2 * n_inputs * (len(tape.order) * 2e-5 + (elements + n_inputs) * 2e-9)
    if seconds <= FULL_CHECK_SECONDS:
        return options, None
    return replace(options, fast=True), (
        f"a full check of {n_inputs} input elements would evaluate the program {2 * n_inputs} times "
        f"(about {seconds:.0f} s): checked in fast mode, v^T J u for random u, v")


def _sympy_function(tape: Tape, xs: list):
    """The output's SymPy translation, node by node, as a function of symbol arrays."""
    def translate(sp, arrays, budget):
        with no_grad():
            _, base = tape.evaluate([Tensor._make(x._data.copy()) for x in xs], keep=True)
        return tape.symbolic(sp, arrays, base, budget)[0]
    return translate


# -- grad --symbolic --------------------------------------------------------------------------


def filled_inputs(run, wrt) -> list:
    """The inputs not in `wrt`: `grad --symbolic` fills in their values (unless =full)."""
    return [name for name, _ in default_inputs(run) if name not in wrt]


def symbolic_derivatives(run, grad_result, full: bool = False, latex: bool = False) -> dict:
    """The SymPy formula of each derivative of `grad --symbolic`, nested as its grads.

    Each formula is simplified within a time budget (`symbolic.SIMPLIFY_SECONDS`),
    else printed as SymPy derived it. A tensor's formulas print as nested lists,
    one formula per element. The other inputs (`filled_inputs`) are numbers in the
    formulas, or symbols too with `full`.
    """
    sp = symbolic.sympy()
    wrt = list(grad_result.wrt)
    symbolic_names = wrt + (filled_inputs(run, wrt) if full else [])
    try:
        again, notes = _rerun(run, symbolic_names)
        out = _same_output(again, grad_result.output_name)
        xs = runs.lookup(again, symbolic_names, "--wrt")
        tape = Tape([out], xs, notes)
        budget = symbolic.SympyBudget(symbolic.SECONDS)
        with budget.guard():
            # _derivatives differentiates by the first len(wrt) arrays: the --wrt inputs
            symbols = symbolic.Symbols(sp, symbolic_names, [x._data for x in xs],
                                       max_symbols=symbolic.MAX_SYMBOLS)
            if any(symbols.sampled):
                raise symbolic.OverBudget(f"budget: more than {symbolic.MAX_SYMBOLS} elements")
            with no_grad():
                _, base = tape.evaluate([Tensor._make(x._data.copy()) for x in xs], keep=True)
            y = np.asarray(tape.symbolic(sp, symbols.arrays, base, budget)[0], dtype=object)
            exprs = _derivatives(sp, y, symbols, grad_result, budget)
    except (symbolic.OverBudget, Unavailable) as exc:
        return _nested_constant(wrt, grad_result.order, f"(no formula: {exc})")
    except Exception as exc:  # the formulas are an extra: never lose the values for them
        return _nested_constant(wrt, grad_result.order, f"(no formula: {type(exc).__name__})")
    flat = [symbolic.integral_floats(sp, e) for _, arr in exprs for e in arr.reshape(-1)]
    simple = iter(symbolic.simplify_all(sp, flat, symbolic.SIMPLIFY_SECONDS))
    out, shown = {}, {}
    for path, arr in exprs:
        shaped = np.array([next(simple) for _ in range(arr.size)], dtype=object).reshape(arr.shape)
        node, seen = out, shown
        for name in path[:-1]:
            node = node.setdefault(name, {})
            seen = seen.setdefault(name, {})
        node[path[-1]] = _text(shaped)
        seen[path[-1]] = _text(shaped, lambda e: readable(sp, e, latex))
    # the JSON keeps each formula whole; people read it with common subexpressions named
    grad_result.symbolic_shown = shown
    return out


CSE_CHARS = 100  # a formula longer than this is shown with its common subexpressions named


def readable(sp, e, latex: bool = False) -> str:
    """A formula for people: common subexpressions named (`c0 = ...`) when it is long, in
    LaTeX with `latex`."""
    fmt = sp.latex if latex else str
    if not hasattr(e, "free_symbols") or len(str(e)) <= CSE_CHARS:
        return fmt(e)
    used = {str(s) for s in e.free_symbols}
    prefix = next((p for p in ("c", "u", "v", "q", "k") if not any(n.startswith(p) for n in used)), "cse")
    try:
        repl, reduced = sp.cse(e, symbols=sp.numbered_symbols(prefix))
    except Exception:  # the formulas are an extra: an expression cse cannot take stays whole
        return fmt(e)
    if not repl:
        return fmt(e)
    where = [f"{fmt(s)} = {fmt(v)}" for s, v in repl]
    return fmt(reduced[0]) + "\n  where " + "\n        ".join(where)


def _rerun(run, wrt):
    """The run again, recorded, with `wrt` requiring grad. Under the default limits: the
    interpreter does not keep the Limits it ran with (issue 11's one `Limits` will)."""
    interp = run.interpreter
    return run_recorded(interp.program, interp.overrides, requires_grad=wrt, stdout=lambda line: None,
                        script=interp.script)


def _same_output(run, name):
    if name == run.output_name:
        return run.output
    return runs.tensor_output(run, name)[1]


def _derivatives(sp, y, symbols, grad_result, budget) -> list:
    """[(path of names, object array)] of the derivatives `grad` computed."""
    names = list(grad_result.wrt)
    if grad_result.order == 1:
        seed = np.ones(y.shape) if y.size == 1 else None
        if grad_result.grad_outputs is not None:
            seed = np.asarray(grad_result.grad_outputs._data, dtype=np.float64)
        if seed is None:
            raise Unavailable("a non-scalar output needs --grad-outputs")
        total = sum((float(w) * e for w, e in zip(np.broadcast_to(seed, y.shape).reshape(-1),
                                                  y.reshape(-1))), sp.Integer(0))
        y = np.asarray(total, dtype=object)
    out = []
    level = [((), y.reshape(()) if y.size == 1 else y)]
    for _ in range(grad_result.order):
        nxt = []
        for path, arr in level:
            for name, sym_arr in zip(names, symbols.arrays):
                budget.check()
                d = np.empty(arr.shape + sym_arr.shape, dtype=object)
                for i in np.ndindex(arr.shape):
                    e = arr[i]
                    for j in np.ndindex(sym_arr.shape):
                        s = sym_arr[j]
                        d[i + j] = e.diff(s) if hasattr(e, "free_symbols") and s in e.free_symbols \
                            else sp.Integer(0)
                nxt.append((path + (name,), d))
        level = nxt
    out.extend(level)
    return out


def _text(arr: np.ndarray, fmt=str) -> str:
    """A formula, or nested lists of them for a tensor's elements."""
    if not isinstance(arr, np.ndarray):
        return fmt(arr)
    if arr.ndim == 0:
        return fmt(arr[()])
    return "[" + ", ".join(_text(arr[i], fmt) for i in range(arr.shape[0])) + "]"


def _nested_constant(names, order, text):
    if order <= 0:
        return text
    return {n: _nested_constant(names, order - 1, text) for n in names}
