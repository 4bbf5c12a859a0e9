"""Checking one function's derivatives: the engine against central differences and SymPy.

`check_function(func, inputs, names, options, sympy_fn)` compares, for each
input, the analytical Jacobian (one `autograd.grad` per output element) with
the central difference `(f(x + eps) - f(x - eps)) / 2 eps` and, where SymPy can
give it, the derivative of the function's SymPy translation. Those numbers, the
fast mode and the pass rule come from `autograd.gradcheck`, the library's own
checker; this module adds the kinks, SymPy's reference and the report. Order 2 applies
the same comparison to the first derivatives taken with `create_graph=True`
(PyTorch's gradgradcheck: the function `x, v -> grad(f(x), x, v)`), so a wrong
double backward is found the way a wrong backward is.

SymPy's reference is formed one of two ways (`Result.method`, the JSON's
"sympy_method"). Whole-program: the output translated to one SymPy expression
per element and differentiated; it gives both orders, but its expressions swell
with the program. Per-op (`perop`): reverse accumulation through the replayed
graph, each node's local derivatives by SymPy from the op's `sympy=` counterpart,
evaluated at the point; linear in the program, first order only. Neither calls
gradcli's backward rules. The whole-program reference is tried first, unless a
cheap measure of its work says it is obviously out of budget
(`WHOLE_PROGRAM_WORK`); over budget, the per-op chain gives the first order and
the second order says why it has no SymPy reference.

The pass rule is PyTorch's: |analytical - reference| <= atol + rtol * |reference|.
A mismatch where the differences show the point is not smooth is a kink, not
a failure: the one-sided differences disagree and the analytical value lies
between them (relu or abs at 0, a max tie, a clamp bound: each convention is
right there), or the difference grows as the step shrinks (a jump, as in the
first derivative of abs at 0). Kinks are reported, with the first such element.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from ..autograd.gradcheck import (Derivatives, central_difference, derivatives, first_derivatives,
                                   mismatch, perturbed, worst)
from ..errors import AutogradError
from .._tensor import Tensor
from . import symbolic
from .replay import Unavailable

FD = "finite-difference"
SYMPY = "sympy"
# How SymPy's reference was formed: one expression of the whole output, differentiated;
# or reverse accumulation with each node's local derivatives by SymPy (`perop`).
WHOLE_PROGRAM = "whole-program"
PER_OP = "per-op"

# A full check holds a few arrays of (output elements x input elements) floats; past
# this many elements a function is checked in fast mode (v^T J u) instead.
MAX_JACOBIAN_ELEMENTS = 4_000_000


@dataclass
class Options:
    """How to check: PyTorch's tolerances; both orders (the command's --order defaults to 1)."""

    eps: float = 1e-6
    atol: float = 1e-5
    rtol: float = 1e-3
    order: int = 2
    sympy: bool = True
    fast: bool = False
    seed: int = 0
    sympy_seconds: float | None = None   # None: symbolic.SECONDS
    sympy_method: str = "auto"           # "auto", WHOLE_PROGRAM or PER_OP (first order only)


@dataclass
class Result:
    """One check: an input's derivatives of one order against one reference."""

    input: str
    order: int
    reference: str
    ok: bool = True
    max_abs_error: float | None = None
    worst_index: list | None = None
    analytical: float | None = None
    expected: float | None = None
    wrt: str | None = None            # order 2: what the worst element is differentiated by
    kink: list | None = None          # an element where the point sits on a kink
    skipped: str | None = None        # why this reference was not formed
    note: str | None = None
    case: str | None = None            # the op self-check: which domain case
    method: str | None = None          # SymPy: WHOLE_PROGRAM or PER_OP
    projection: bool = False           # fast mode: the numbers are v^T J u
    unused: bool = False               # the output does not depend on this input at all
    grad_output: object = None         # order 2, several output elements: the vector v of v^T H
    others: dict = field(default_factory=dict)  # the other reference's value at the worst element
    flat: int | None = field(default=None, repr=False)      # the worst element within its block
    arrays: dict = field(default_factory=dict, repr=False)  # wrt -> this reference's block


# -- the engine against differences, and kinks ------------------------------------------


def _tuple(out) -> tuple:
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


class Block(Derivatives):
    """gradcheck's derivatives of output m by input k (1 x 1 in fast mode), with the kinks.

    `nonsmooth` marks the elements where the differences say the point is not a
    smooth one: the one-sided differences disagree and the engine's value lies
    between them (a kink), or the difference grows as the step shrinks (a jump).
    """

    _FIELDS = Derivatives._FIELDS + ("nonsmooth",)
    _DEFAULTS = {**Derivatives._DEFAULTS, "nonsmooth": None}


def _kinks(a, central, fwd, bwd, atol, rtol):
    lo, hi = np.minimum(fwd, bwd), np.maximum(fwd, bwd)
    tol = atol + rtol * np.maximum(np.abs(lo), np.abs(hi))
    with np.errstate(invalid="ignore"):
        sided = np.abs(fwd - bwd) > atol + rtol * np.abs(central)
        return sided & (a >= lo - tol) & (a <= hi + tol)


def _jumps(central, finer, atol, rtol):
    """A difference that grows as the step shrinks (by 4 here): the function jumps."""
    with np.errstate(invalid="ignore"):
        return np.abs(finer - central) > np.maximum(atol + rtol * np.abs(central), 0.25 * np.abs(finer))


def blocks(func, inputs, eps, atol, rtol, fast=False, rng=None, differentiates=False,
           original=None) -> list:
    """[m][k] Blocks: full Jacobians (rows = output elements, columns = input elements),
    or v^T J u for random u, v in fast mode; each with where the point is not smooth.

    `original` = (output, inputs): differentiate that graph for the analytical side.
    """
    found = derivatives(func, inputs, eps, fast=fast, rng=rng, differentiates=differentiates,
                        one_sided=True, original=original)
    finer = {}   # (input, element) -> the outputs at +-eps/4 (fast mode: along u)

    def finer_central(m, k, where, v):
        key = (k, None if fast else where)
        if key not in finer:
            finer[key] = perturbed(func, inputs, inputs[k], where, eps / 4, differentiates)
        plus, minus = finer[key]
        return central_difference(plus[m], minus[m], eps / 4, v)

    result = []
    for m, row in enumerate(found):
        result.append([])
        for k, d in enumerate(row):
            nonsmooth = _kinks(d.analytical, d.central, d.forward, d.backward, atol, rtol)
            # Only where the engine and the differences disagree is a jump worth two more runs.
            bad = mismatch(d.analytical, d.central, atol, rtol)
            if fast and bad.any():
                finer_value = np.array([[finer_central(m, k, d.u, d.v.reshape(-1))]])
                nonsmooth |= _jumps(d.central, finer_value, atol, rtol)
            elif not fast:
                for j in np.flatnonzero(bad.any(axis=0)):
                    nonsmooth[:, j] |= _jumps(d.central[:, j], finer_central(m, k, j, None), atol, rtol)
            result[-1].append(Block(**vars(d), nonsmooth=nonsmooth))
    return result


def _against_first_order(block, first, func, inputs, k, options) -> None:
    """Make J_k (by differences of f) the reference of the block d grad(f, x_k, v) / dv."""
    if not options.fast:
        block.central, block.forward, block.backward = first.central.T, first.forward.T, first.backward.T
        return
    # The block holds w^T (dG/dv) u for its random w (over x_k) and u (over the output):
    # that is u^T J_k w, the derivative of u . f along w.
    plus, minus = perturbed(func, inputs, inputs[k], block.v, options.eps, differentiates=False)
    block.central = np.array([[central_difference(plus[0], minus[0], options.eps, block.u.reshape(-1))]])
    block.forward = block.backward = block.central


def grad_function(func, n: int):
    """gradgradcheck's function: (inputs..., v) -> grad(func(inputs), inputs, v, create_graph=True)."""
    return first_derivatives(lambda *xs: _tuple(func(*xs))[0], n, list(range(n)), keep_unused=True)


# -- judging ----------------------------------------------------------------------------


@dataclass
class Verdict:
    ok: bool
    error: float
    flat: int | None          # index into the block of the worst element
    analytical: float
    expected: float
    kink: int | None          # index of an element on a kink


def judge(block: Block, reference: np.ndarray, known: np.ndarray | None, atol, rtol) -> Verdict | None:
    """PyTorch's pass rule over the block, kinks excepted; None when nothing is compared."""
    a = block.analytical
    err = np.abs(a - reference)
    bad = mismatch(a, reference, atol, rtol)
    compared = np.ones(a.shape, dtype=bool) if known is None else known
    if not compared.any():
        return None
    bad &= compared
    kink = bad & block.nonsmooth
    bad &= ~kink
    # The worst element: a failing one, else the largest error away from kinks.
    score = np.where(compared, np.where(np.isnan(err), np.inf, err), -1.0)
    flat = worst(err, bad, np.where(kink, -0.5, score))
    kinks = np.flatnonzero(kink)
    return Verdict(not bad.any(), float(err.reshape(-1)[flat]), flat, float(a.reshape(-1)[flat]),
                   float(reference.reshape(-1)[flat]), int(kinks[0]) if kinks.size else None)


def _index(flat: int, rows: tuple, cols: tuple) -> list:
    """A Jacobian element as output index + input index (the jacobian command's layout)."""
    r, c = divmod(flat, max(int(np.prod(cols)), 1))
    out = list(np.unravel_index(r, rows)) if rows else []
    return [int(i) for i in out] + ([int(i) for i in np.unravel_index(c, cols)] if cols else [])


def _merge(result: Result, verdict: Verdict, reference, shape_rows, shape_cols, wrt, fast) -> None:
    """Fold one block's verdict into an input's result (worst block wins)."""
    if verdict is None:
        return
    result.arrays[wrt] = reference
    worse = (not verdict.ok and result.ok) or (verdict.ok == result.ok and (
        result.max_abs_error is None or verdict.error > result.max_abs_error or math.isnan(verdict.error)))
    if verdict.kink is not None and result.kink is None:
        result.kink = [] if fast else _index(verdict.kink, shape_rows, shape_cols)
    if worse:
        result.ok = verdict.ok
        result.max_abs_error = verdict.error
        result.worst_index = [] if fast else _index(verdict.flat, shape_rows, shape_cols)
        result.analytical = verdict.analytical
        result.expected = verdict.expected
        result.wrt = wrt
        result.flat = verdict.flat
        result.projection = fast


# -- one function ---------------------------------------------------------------------------


def _first(func, inputs, options, rng, original):
    return blocks(func, inputs, options.eps, options.atol, options.rtol, options.fast, rng,
                  original=original)[0]


def check_function(func, inputs: list, names: list, options: Options, sympy_fn=None,
                   original=None, sympy_chain=None) -> list:
    """Results per (order, input, reference) for `func` (one output) at `inputs`.

    `inputs` are Tensors that require grad (perturbed in place, restored);
    `sympy_fn(sp, arrays, budget)` gives the output as an object array of SymPy
    expressions of the object arrays standing for the inputs. `original` =
    (output, inputs) is a graph whose derivatives are the first-order analytical
    ones (a program's own graph, with its hooks), `func` being its replay.
    `sympy_chain` (a `perop.Chain` of that replay) gives SymPy's first derivatives
    node by node where the whole-program translation is out of reach.
    """
    rng = np.random.default_rng(options.seed)
    results = []
    out = _tuple(func(*inputs))[0]
    out_shape = tuple(out._data.shape)
    shapes = [tuple(x._data.shape) for x in inputs]
    n = len(inputs)
    size = int(np.prod(out_shape, dtype=np.int64)) * sum(x._data.size for x in inputs)
    note = None
    if not options.fast and (size > MAX_JACOBIAN_ELEMENTS or (
            options.order >= 2 and sum(x._data.size for x in inputs) ** 2 > MAX_JACOBIAN_ELEMENTS)):
        options = dataclasses.replace(options, fast=True)
        note = (f"the Jacobian has {size} elements (more than {MAX_JACOBIAN_ELEMENTS}): checked in "
                "fast mode, v^T J u for random u, v")

    first = None
    if original is not None:
        try:
            first = _first(func, inputs, options, rng, original)
        except AutogradError as error:
            why = ("a tensor it saved was changed in place after it was built, as an optimizer's "
                   "step() does" if "inplace" in error.message else "a backward freed it")
            note = note or (f"the program's own graph could not be differentiated again ({why}): "
                            "the analytical derivatives are those of its replay")
            rng = np.random.default_rng(options.seed)
    if first is None:
        first = _first(func, inputs, options, rng, None)
    fd1 = []
    for k in range(n):
        r = Result(names[k], 1, FD)
        _merge(r, judge(first[k], first[k].central, None, options.atol, options.rtol),
               first[k].central, out_shape, shapes[k], None, options.fast)
        fd1.append(r)

    second = fd2 = None
    v = None
    if options.order >= 2:
        # a one-element output: v = 1, so the second-order blocks are Hessian entries; else the
        # vector-Hessian product v^T H for a random v, which the report shows
        several = int(np.prod(out_shape, dtype=np.int64)) > 1
        v = Tensor(rng.uniform(-1.0, 1.0, out_shape) if several else np.ones(out_shape),
                   requires_grad=True)
        g = grad_function(func, n)
        args = list(inputs) + [v]
        second = blocks(g, args, options.eps, options.atol, options.rtol, options.fast, rng,
                        differentiates=True)
        # d/dv grad(f, x_k, v) is J_k transposed: compared with the differences of f itself,
        # not of G. A backward that is wrong only when it builds a graph makes G wrong
        # consistently, and G's own differences would agree with it.
        for k in range(n):
            _against_first_order(second[k][n], first[k], func, inputs, k, options)
        # Where f is not smooth in an element, its second derivatives in that element are
        # not defined either; d/dv grad(f, x_k, v) is J_k transposed, with J_k's kinks.
        rough = [first[k].nonsmooth.any(axis=0) for k in range(n)]
        for k in range(n):
            for j in range(n):
                block = second[k][j]
                if options.fast:
                    block.nonsmooth = block.nonsmooth | (rough[k].any() or rough[j].any())
                else:
                    block.nonsmooth = block.nonsmooth | rough[k][:, None] | rough[j][None, :]
            second[k][n].nonsmooth = second[k][n].nonsmooth | first[k].nonsmooth.T
        fd2 = []
        arg_names = list(names) + ["grad_output"]
        arg_shapes = shapes + [out_shape]
        for k in range(n):
            r = Result(names[k], 2, FD)
            r.grad_output = np.round(v._data, 4).tolist() if several else None
            for j in range(n + 1):
                _merge(r, judge(second[k][j], second[k][j].central, None, options.atol, options.rtol),
                       second[k][j].central, shapes[k], arg_shapes[j], arg_names[j], options.fast)
            fd2.append(r)

    sym1 = sym2 = None
    if options.sympy:
        sym1, sym2 = _sympy_results(func, inputs, names, options, sympy_fn, first, second, v, out_shape,
                                    shapes, rng, sympy_chain)
    for k in range(n):
        results.append(fd1[k])
        if sym1:
            results.append(sym1[k])
    if fd2:
        for k in range(n):
            results.append(fd2[k])
            if sym2:
                sym2[k].grad_output = fd2[k].grad_output
                results.append(sym2[k])
    _cross_reference(results)
    if note:
        for r in results:
            r.note = r.note or note
    return results


def _cross_reference(results: list) -> None:
    """Give each result the other reference's value at its worst element (for the report)."""
    by_key = {(r.input, r.order, r.reference): r for r in results}
    for r in results:
        other = by_key.get((r.input, r.order, SYMPY if r.reference == FD else FD))
        if other is None or r.flat is None or other.arrays.get(r.wrt) is None:
            continue
        value = float(other.arrays[r.wrt].reshape(-1)[r.flat])
        r.others[other.reference] = None if math.isnan(value) else value


def _sympy_results(func, inputs, names, options, sympy_fn, first, second, v, out_shape, shapes, rng,
                   chain=None):
    """SymPy's results for order 1 (and 2): per input, or skipped with the reason.

    The whole-program reference comes first (it also gives second derivatives); where
    it is over budget, or obviously would be, the per-op chain gives the first order.
    """
    n = len(inputs)
    sym1 = [Result(names[k], 1, SYMPY) for k in range(n)]
    sym2 = [Result(names[k], 2, SYMPY) for k in range(n)] if second is not None else None
    everything = sym1 + (sym2 or [])
    if sympy_fn is None and chain is None:
        for r in everything:
            r.skipped = "unavailable: no SymPy translation"
        return sym1, sym2
    seconds = options.sympy_seconds or symbolic.SECONDS
    sp = symbolic.sympy()
    method = options.sympy_method
    if method == "auto":
        method = WHOLE_PROGRAM if sympy_fn is not None else PER_OP
        if chain is not None:
            reason = _whole_program_out_of_reach(chain, inputs, first, seconds)
            method = PER_OP if reason else method
    else:
        reason = None
    if method == WHOLE_PROGRAM:
        for r in everything:
            r.method = WHOLE_PROGRAM
        try:
            _whole_program(sp, sym1, sym2, func, inputs, names, options, sympy_fn, first, second, v,
                           out_shape, shapes, rng, seconds)
            return sym1, sym2
        except RecursionError:
            exc = symbolic.OverBudget("budget: the whole-program expression nests too deeply for SymPy")
            reason = _skipped_or_reason(everything, exc, chain, options)
        except (symbolic.OverBudget, Unavailable) as exc:
            reason = _skipped_or_reason(everything, exc, chain, options)
        if reason is None:
            return sym1, sym2
    # The per-op chain: first order only.
    sym1 = [Result(names[k], 1, SYMPY, method=PER_OP) for k in range(n)]
    if chain is None:   # per-op asked of a plain function: there is no graph to walk
        _skip(sym1 + (sym2 or []), Unavailable("the per-op reference needs a recorded graph"))
        return sym1, sym2
    try:
        _per_op(sp, chain, sym1, first, out_shape, shapes, options, rng, seconds)
    except (symbolic.OverBudget, Unavailable) as exc:
        _skip(sym1, exc)
    except RecursionError:   # a custom Function's forward, translated whole
        _skip(sym1, symbolic.OverBudget("budget: an expression nests too deeply for SymPy"))
    if sym2 is not None:
        sym2 = [Result(names[k], 2, SYMPY, method=WHOLE_PROGRAM if reason else PER_OP) for k in range(n)]
        _skip(sym2, reason or Unavailable("the per-op reference gives first derivatives only"))
    return sym1, sym2


def _skipped_or_reason(results, exc, chain, options):
    """Where the per-op chain cannot stand in, skip `results` and return None; else the reason."""
    if chain is None or isinstance(exc, Unavailable) or options.sympy_method == WHOLE_PROGRAM:
        _skip(results, exc)
        return None
    return exc


# The whole-program reference differentiates, for every output element, an expression
# that holds every symbol it depends on; the expressions grow with the elements they are
# built from. Its work, measured as symbols x elements of the nodes that depend on them x
# the share of input elements that are symbols (a sampled input's others are numbers) x
# the density of the Jacobian (by the finite differences), at 2 s of budget: a two-layer
# network of 16 x 8 inputs (192 x 705 x 1 x 1) takes minutes; `tanh(W @ x)` with 40
# inputs (40 x 80 x 1 x 1) 7 s, with 20 inputs (800) 1.4 s; `(x * x).sum()` of 300
# elements (24 x 301 x 24/300 x 1) 0.02 s. Past this it is obviously out of reach.
WHOLE_PROGRAM_WORK = 3_000


def _whole_program_out_of_reach(chain, inputs, first, seconds):
    """An OverBudget saying why, when the whole-program reference obviously would be over budget."""
    n_symbols = sum(min(x._data.size, symbolic.SAMPLE if x._data.size > symbolic.MAX_SYMBOLS
                        else x._data.size) for x in inputs)
    elements = chain.symbolic_elements()
    # Only the output elements that depend on a symbol differentiate it (fast mode cannot tell).
    blocks = [b.central for b in first if b.v is None and b.central.size]
    density = (sum(np.count_nonzero(c) for c in blocks) / sum(c.size for c in blocks)) if blocks else 1.0
    share = n_symbols / max(sum(x._data.size for x in inputs), 1)
    work = n_symbols * elements * share * density * symbolic.SECONDS / seconds
    if work <= WHOLE_PROGRAM_WORK:
        return None
    return symbolic.OverBudget(f"budget: the whole-program translation would take more than {seconds:g} s "
                               f"({n_symbols} symbols through {elements} elements)")


def _whole_program(sp, sym1, sym2, func, inputs, names, options, sympy_fn, first, second, v, out_shape,
                   shapes, rng, seconds):
    """The whole output translated to SymPy and differentiated: orders 1 and 2."""
    n = len(inputs)
    # Each order has its own budget: a Hessian out of reach leaves the first order checked.
    budget = symbolic.SympyBudget(seconds)
    with budget.guard():
        symbols = symbolic.Symbols(sp, names, [x._data for x in inputs], rng)
        y = np.asarray(sympy_fn(sp, symbols.arrays, budget), dtype=object)
        if y.shape != out_shape:
            raise Unavailable(f"the SymPy translation has shape {list(y.shape)}, "
                              f"not {list(out_shape)}")
        allsyms = [s for syms in symbols.symbols for s in syms]
        rows = symbolic.jacobian_exprs(y, allsyms, budget)
        values, known = symbolic.evaluate(sp, [d for row in rows for d in row], symbols.point,
                                          budget)
        jac, jknown = _split(values, known, rows, symbols, shapes)
        for k in range(n):
            _sympy_merge(sym1[k], [(first[k], jac[k], jknown[k], out_shape, shapes[k], None)],
                         options)
            _note_sample(sym1[k], symbols, k, inputs)
    if sym2 is not None:
        budget = symbolic.SympyBudget(seconds)
        try:
            with budget.guard():
                _second_order(sp, sym2, rows, y, symbols, jac, jknown, second, v, names, shapes,
                              out_shape, options, budget, inputs)
        except (symbolic.OverBudget, Unavailable) as exc:
            _skip(sym2, exc)
        except RecursionError:
            _skip(sym2, symbolic.OverBudget("budget: the second derivatives nest too deeply for SymPy"))


def _per_op(sp, chain, sym1, first, out_shape, shapes, options, rng, seconds):
    """First derivatives by the per-op chain: Jacobian rows (a sample of a large output's), or
    v^T J u in fast mode from the one product v^T J."""
    from . import perop

    out_size = int(np.prod(out_shape, dtype=np.int64))
    picks = None
    if options.fast:
        seeds = first[0].v.reshape(1, -1)
    else:
        picks = np.arange(out_size) if out_size <= perop.MAX_ROWS else \
            np.sort(rng.choice(out_size, size=perop.SAMPLE_ROWS, replace=False))
        seeds = np.zeros((len(picks), out_size))
        seeds[np.arange(len(picks)), picks] = 1.0
    budget = symbolic.SympyBudget(seconds)
    with budget.guard():
        grads, known = chain.vjp(sp, seeds, budget)
    for k, r in enumerate(sym1):
        size = int(np.prod(shapes[k], dtype=np.int64))
        if options.fast:
            u = first[k].u.reshape(-1)
            if not known[k][0][u != 0].all():
                r.skipped = "unavailable: SymPy could not differentiate every node this input reaches"
                continue
            ref = np.array([[grads[k][0] @ u]])
            _merge(r, judge(first[k], ref, None, options.atol, options.rtol), ref, out_shape, shapes[k],
                   None, True)
            continue
        full = np.full((out_size, size), np.nan)
        mask = np.zeros((out_size, size), dtype=bool)
        full[picks] = np.where(known[k], grads[k], np.nan)
        mask[picks] = known[k]
        _sympy_merge(r, [(first[k], full, mask, out_shape, shapes[k], None)], options)
        if len(picks) < out_size:
            r.note = (f"SymPy (per op) compared {len(picks)} sampled rows of the Jacobian's {out_size} "
                      f"(more than {perop.MAX_ROWS} output elements)")


def _skip(results, exc) -> None:
    """Say why SymPy gave no reference, on every result it did not reach."""
    reason = str(exc) if isinstance(exc, symbolic.OverBudget) else f"unavailable: {exc}"
    for r in results:
        if r.max_abs_error is None and r.skipped is None:
            r.skipped = reason


def _split(values, known, rows, symbols, shapes):
    """Per input: the Jacobian (NaN where no symbol) and which elements SymPy gave."""
    n_out = len(rows)
    n_symbols = sum(len(cols) for cols in symbols.columns)   # -1 cannot be inferred when empty
    values = values.reshape(n_out, n_symbols)
    known = known.reshape(n_out, n_symbols)
    jac, jknown, start = [], [], 0
    for k, cols in enumerate(symbols.columns):
        size = int(np.prod(shapes[k])) if shapes[k] else 1
        full = np.full((n_out, size), np.nan)
        mask = np.zeros((n_out, size), dtype=bool)
        full[:, cols] = values[:, start:start + len(cols)]
        mask[:, cols] = known[:, start:start + len(cols)]
        jac.append(full)
        jknown.append(mask)
        start += len(cols)
    return jac, jknown


def _sympy_merge(result, parts, options):
    """Judge SymPy's Jacobians against the engine's (projected in fast mode)."""
    for block, ref, known, rows, cols, wrt in parts:
        if options.fast:
            if not known.all():
                result.skipped = "fast mode projects whole Jacobians, and SymPy gave part of one"
                return
            ref = np.array([[block.v.reshape(-1) @ ref @ block.u.reshape(-1)]])
            known = None
        verdict = judge(block, ref, known, options.atol, options.rtol)
        _merge(result, verdict, ref, rows, cols, wrt, options.fast)
    if result.max_abs_error is None and result.skipped is None and any(p[0].analytical.size for p in parts):
        result.skipped = "unavailable: SymPy gave no value for these derivatives"


def _note_sample(result, symbols, k, inputs):
    if symbols.sampled[k]:
        result.note = (f"sampled {len(symbols.columns[k])} of {inputs[k]._data.size} elements "
                       f"(more than {symbolic.MAX_SYMBOLS})")


def _second_order(sp, sym2, rows, y, symbols, jac, jknown, second, v, names, shapes, out_shape,
                  options, budget, inputs):
    """SymPy's d/dx_j of grad(f, x_k, v) = sum_i v_i d2 f_i / dx_k dx_j, and d/dv = J^T."""
    n = len(names)
    vflat = v._data.reshape(-1)
    offsets = np.cumsum([0] + [len(c) for c in symbols.columns])
    allsyms = [s for syms in symbols.symbols for s in syms]
    hess = symbolic.hessian_exprs(rows, allsyms, list(range(len(allsyms))), budget)
    keys = list(hess)
    values, known = symbolic.evaluate(sp, [hess[key] for key in keys], symbols.point, budget)
    # sum_i v_i H_i, where SymPy gave every term (a missing term is a zero derivative).
    total = np.zeros((len(allsyms), len(allsyms)))
    unknown = np.zeros((len(allsyms), len(allsyms)), dtype=bool)
    for (i, c, d), value, ok in zip(keys, values, known):
        total[c, d] += vflat[i] * value
        unknown[c, d] |= not ok
    for k in range(n):
        size_k = int(np.prod(shapes[k])) if shapes[k] else 1
        cols_k = symbols.columns[k]
        parts = []
        for j in range(n):
            size_j = int(np.prod(shapes[j])) if shapes[j] else 1
            full = np.full((size_k, size_j), np.nan)
            mask = np.zeros((size_k, size_j), dtype=bool)
            block = total[offsets[k]:offsets[k + 1], offsets[j]:offsets[j + 1]]
            gaps = unknown[offsets[k]:offsets[k + 1], offsets[j]:offsets[j + 1]]
            for r, row in enumerate(cols_k):
                full[row, symbols.columns[j]] = block[r]
                mask[row, symbols.columns[j]] = ~gaps[r]
            parts.append((second[k][j], full, mask, shapes[k], shapes[j], names[j]))
        # d/dv grad(f, x_k, v) is J_k transposed, which SymPy already gave.
        parts.append((second[k][n], jac[k].T, jknown[k].T, shapes[k], out_shape, "grad_output"))
        _sympy_merge(sym2[k], parts, options)
        _note_sample(sym2[k], symbols, k, inputs)
