"""Sampling a program over a range of one input (or a grid of two) for `gradcli plot`.

Each sample is one run of the program with the input set, as `--points` runs it,
and its derivatives are the ones `grad --order k` computes (`queries.derivatives`:
autograd.grad, with create_graph below the top order), so a plotted number is the
number `grad` prints at that point. A sample where the output or a derivative is
NaN or infinite, or where the derivative is undefined because the function before
it has a kink or a jump there, holds NaN: a gap on the plot, null in the JSON.

Kinks are found by the gradient checker's own test (`check.core`): the one-sided
differences disagree and the engine's value lies between them (relu or abs at 0,
a max tie, a clamp bound), or the central difference grows as the step shrinks (a
jump). At a smooth point with a large second derivative the one-sided differences
also disagree, by eps * f''; a kink's gap does not shrink with the step, so the
test must hold at eps and at eps / 4 with the gap kept. A kink between two samples
shows as a step in the next derivative far larger than its neighbours; bisection
narrows it down, the same test confirms it, and it becomes a sample of its own.

A program made only of assignments of elementwise arithmetic on scalars (no
reductions, indexing, calls other than elementwise functions, or control flow)
is run once on the vector of all samples instead (`vectorizable`): each element
then goes through the same ops, with the same numbers, as its own run would.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import queries
from .formula import output_formula
from ..lang.runs import tensor_output
from ..errors import GradcliError, LimitError, ProgramError, UsageError

MAX_ORDER = 4
DEFAULT_SAMPLES = 400
DEFAULT_GRID = 40       # per axis of a 2-D plot: 1,600 runs
MAX_SAMPLES = 100_000   # one run each


@dataclass
class Curve:
    """f and its derivatives d1..dK of one scalar input over a range."""

    output_name: str
    wrt: str
    order: int
    xs: np.ndarray
    values: list                 # [f, d1, ..., dK], float arrays, NaN where undefined
    kinks: list = field(default_factory=list)   # (x, k): d_k undefined, d_(k-1) has a kink or jump
    failures: list = field(default_factory=list)  # (x, GradcliError) of samples whose run failed
    formula: str | None = None   # the output's source line (answers.formula), for titles


@dataclass
class Surface:
    """A scalar output and its gradient on a grid of two inputs: z[j, i] is at (xs[i], ys[j])."""

    output_name: str
    wrt: tuple
    xs: np.ndarray
    ys: np.ndarray
    z: np.ndarray
    grads: tuple                 # (dz/dx, dz/dy), arrays shaped like z
    failures: list = field(default_factory=list)
    formula: str | None = None   # the output's source line (answers.formula), for titles
    point: tuple = ()            # the inputs' values in the program: where it stands

    @property
    def norm(self) -> np.ndarray:
        return np.hypot(self.grads[0], self.grads[1])


def default_range(value: float) -> tuple[float, float]:
    """The input's value plus and minus 3 max(1, |value|)."""
    half = 3.0 * max(1.0, abs(value))
    return value - half, value + half


def grid(a: float, b: float, n: int) -> np.ndarray:
    """n points from a to b, both exactly; with n odd the middle one is exactly (a + b) / 2."""
    xs = a + (b - a) * (np.arange(n) / (n - 1))
    xs[-1] = b
    return xs


# -- one sample ----------------------------------------------------------------------


class Sampler:
    """Runs a compiled program with one or two inputs set and returns f and its derivatives."""

    def __init__(self, program, overrides: dict, wrt: list, of, limits, vectorize: bool = True):
        self.program = program
        self.overrides = dict(overrides)
        self.wrt = list(wrt)
        self.of = of
        self.limits = limits
        self.vectorized = vectorize and vectorizable(program, self.wrt, of)

    def chains(self, xs: np.ndarray, order: int) -> tuple:
        """([f, d1, ..., d_order] as arrays over `xs`, failed samples): one run, or one per sample."""
        wrt = self.wrt[0]
        return self._all_or_each(lambda: self._vector_chain(xs, order),
                                 lambda x: self.chain({wrt: x}, order), xs, order + 1)

    def probe(self, xs: np.ndarray, order: int) -> list:
        """`chains` at points off the grid (the kink test's), NaN where a run fails, even all."""
        try:
            return self.chains(xs, order)[0]
        except LimitError:
            raise
        except GradcliError:
            return list(np.full((order + 1, len(xs)), np.nan))

    def gradients(self, xs: np.ndarray, ys: np.ndarray) -> tuple:
        """([f, df/dx, df/dy] as arrays over the points (xs[i], ys[i]), failed points)."""
        x, y = self.wrt
        return self._all_or_each(lambda: self._vector_gradient(xs, ys),
                                 lambda p: self.gradient({x: p[0], y: p[1]}), list(zip(xs, ys)), 3)

    def _all_or_each(self, all_at_once: Callable, one: Callable, points, width: int) -> tuple:
        if self.vectorized:
            try:
                return all_at_once(), []
            except LimitError:
                raise
            except GradcliError:
                self.vectorized = False  # e.g. a value error at one sample: find it sample by sample
        return _evaluate(one, points, width)

    @contextmanager
    def _run(self, values: dict):
        """The program run with `values` for inputs, then the answer limits of one --points line:
        each sample has the budgets of a run of its own (as drive gives its first run)."""
        from ..limits import limited

        with limited(self.limits):  # one budget for the sample's run and its answer
            run = self.program.run({**self.overrides, **values}, requires_grad=self.wrt,
                                   stdout=_silent, limits=self.limits)
            yield run

    def chain(self, point: dict, order: int) -> list:
        """[f, d1, ..., d_order] at `point` (1-D), as floats: `grad --order k`'s chain."""
        with self._run(point) as run:
            name, out = scalar_output(run, self.of)
            x = run.values[self.wrt[0]]
            values = [out.reshape(())]
            for k in range(1, order + 1):
                values.append(queries.derivatives(values[-1], [x], 1, create_graph=k < order)[0])
            return [float(v._data) for v in values]

    def gradient(self, point: dict) -> tuple:
        """(f, df/dx, df/dy) at `point` (2-D), as `grad --wrt x,y` computes them."""
        with self._run(point) as run:
            name, out = scalar_output(run, self.of)
            result = queries.run_grad(run, self.wrt, self.of, 1, allow_unused=True)
            return (float(out._data.reshape(())),
                    *(float(g._data) if g is not None else 0.0 for g in result.grads.values()))

    def _vector_chain(self, xs: np.ndarray, order: int) -> list:
        """`chain` for every sample at once: the same elementwise ops on a vector, each
        derivative autograd.grad of the one before (ones as the seed, as `_rows` seeds 1)."""
        with self._run({self.wrt[0]: xs.tolist()}) as run:
            _, out = tensor_output(run, self.of)
            x = run.values[self.wrt[0]]
            values = [out]
            for k in range(1, order + 1):
                values.append(_vector_grad(values[-1], [x], create_graph=k < order)[0])
            return _arrays(values, xs.shape)

    def _vector_gradient(self, xs: np.ndarray, ys: np.ndarray) -> list:
        """`gradient` at every point at once: one run on two vectors, one autograd.grad."""
        x, y = self.wrt
        with self._run({x: xs.tolist(), y: ys.tolist()}) as run:
            _, out = tensor_output(run, self.of)
            return _arrays([out] + _vector_grad(out, [run.values[x], run.values[y]]), xs.shape)


def _vector_grad(f, inputs: list, create_graph: bool = False) -> list:
    """d f_i / d x_i for each input, elementwise: autograd.grad with a seed of ones; zeros for
    an input f does not depend on."""
    from ..autograd.engine import grad
    from .._tensor import Tensor

    grads = [None] * len(inputs)
    if f.requires_grad:
        seed = Tensor._make(np.ones(f._data.shape))
        grads = grad(f, inputs, seed, retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [g if g is not None else Tensor._make(np.zeros(x._data.shape)) for g, x in zip(grads, inputs)]


def _arrays(tensors: list, shape: tuple) -> list:
    """Each tensor's numbers as a float array of `shape` (a value x does not reach is 0-d)."""
    return [np.broadcast_to(np.asarray(t._data, dtype=np.float64), shape).copy() for t in tensors]


# Elementwise functions and methods: on a vector, element i is what it is on that element alone.
ELEMENTWISE = frozenset("""exp log sin cos tan tanh sigmoid relu abs sqrt rsqrt reciprocal log1p expm1
    erf atan sinh cosh asin acos square neg softplus""".split())
ARITHMETIC = frozenset("+-*/") | {"**"}


def vectorizable(program, wrt: list, of) -> bool:
    """Whether one run on vectors of the `wrt` inputs gives each sample what its own run gives.

    True for straight-line code: each statement assigns a name once (the last may be a bare
    expression), from number literals, earlier names, + - * / ** and the ELEMENTWISE
    functions; no reductions, indexing, lists, loops, conditions or calls of anything
    else, so no value of x decides what runs and no element meets another."""
    from ..lang import nodes as n
    from ..lang.builtins import CONSTANTS

    body = program.module.body
    assigned = set()
    for k, stmt in enumerate(body):
        if stmt.__class__ is n.Assign and len(stmt.targets) == 1 and stmt.targets[0].__class__ is n.Name:
            target = stmt.targets[0].id
            if target in assigned or not _elementwise(stmt.value, assigned, CONSTANTS, n):
                return False
            assigned.add(target)
        elif stmt.__class__ is n.ExprStmt and k == len(body) - 1:
            if not _elementwise(stmt.value, assigned, CONSTANTS, n):
                return False
        else:
            return False
        if not _number_exponents(stmt.value, n):   # x ** y: see _number_exponents
            return False
    return all(w in assigned for w in wrt) and (of is None or of in assigned)


def _number_exponents(node, n) -> bool:
    """Whether every `a ** b` has a number for b or a (a literal, a constant, an expression of them).

    A tensor exponent is refused: its backward computes `x ** (y - 1)` on the arrays, and
    numpy's `**` takes sqrt, square or reciprocal for a 0-d exponent of 0.5, 2 or -1 (and C's
    pow for numpy scalars) where it takes its own pow loop for a vector, which differs in
    the last bit. A number exponent goes the same way at every point."""
    from ..lang.program import all_accepted

    def children(node):
        if node.__class__ is n.BinOp and node.op == "**" and not _scalar_literal(node.right, n, names=False) \
                and not _scalar_literal(node.left, n, names=False):  # 2 ** x: numpy's pow loop at every point
            return None
        return [v for v in (getattr(node, f, None) for f in ("left", "right", "operand", "value", "func"))
                if isinstance(v, n.Node)] + list(getattr(node, "args", ()) or ())
    return all_accepted(node, children)


def _scalar_literal(node, n, names: bool = True) -> bool:
    """A number or a constant expression of numbers (no list: the input is a scalar)."""
    from ..lang.program import all_accepted

    def children(node):
        cls = node.__class__
        if cls is n.Num:
            return () if isinstance(node.value, (int, float)) else None
        if cls is n.Name:
            # a constant (find_inputs accepted it); as an exponent only pi, e, inf, nan
            return () if names or node.id in ("pi", "e", "inf", "nan") else None
        if cls is n.UnaryOp:
            return (node.operand,)
        if cls is n.BinOp:
            return (node.left, node.right)
        return None
    return all_accepted(node, children)


def _elementwise(node, assigned, constants, n) -> bool:
    from ..lang.program import all_accepted

    def children(node):
        cls = node.__class__
        if cls is n.Num:
            return ()
        if cls is n.Name:
            return () if node.id in assigned or node.id in constants else None
        if cls is n.BinOp and node.op in ARITHMETIC:
            return (node.left, node.right)
        if cls is n.UnaryOp and node.op in ("-", "+"):
            return (node.operand,)
        if cls is n.Call and not node.keywords and all(a.__class__ is not n.Starred for a in node.args):
            func = node.func
            if func.__class__ is n.Name and func.id in ELEMENTWISE and func.id not in assigned \
                    and len(node.args) == 1:
                return (node.args[0],)
            if func.__class__ is n.Attribute and func.attr in ELEMENTWISE:
                base = func.value
                if base.__class__ is n.Name and base.id == "torch" and "torch" not in assigned:
                    return (node.args[0],) if len(node.args) == 1 else None
                if not node.args:  # a method: x.tanh()
                    return (base,)
        return None
    return all_accepted(node, children)


def _silent(line: str) -> None:
    """What the program prints at the samples (its first run has printed it once)."""


def scalar_output(run, of) -> tuple:
    """The output, refused unless it has one element."""
    name, out = tensor_output(run, of)
    if out._data.size != 1:
        raise ProgramError(
            f"plot needs a scalar output, and {name!r} has shape {list(out._data.shape)}",
            hint=f"pick a scalar with --of NAME, or reduce it: {name}.sum()")
    return name, out


def scalar_input(run, program, name: str) -> float:
    """The value of the input `name`, refused unless it is an input holding one number."""
    if name not in program.input_names:
        inputs = ", ".join(program.input_names) or "none"
        raise UsageError(f"--wrt {name}: plot varies an input (a name assigned a number at the top "
                         f"level), and {name!r} is not one", hint=f"the inputs are: {inputs}")
    value = run.values.get(name)
    data = getattr(value, "_data", None)
    if data is None and isinstance(value, (int, float)) and program.is_pytorch:
        raise UsageError(f"--wrt {name}: in a PyTorch program {name!r} is a Python number, not a "
                         "tensor that requires grad", hint="plot varies a tensor made with "
                         "requires_grad=True; --set or --points sweeps a number such as this one")
    if data is None or data.size != 1:
        shape = list(data.shape) if data is not None else None
        raise ProgramError(f"--wrt {name}: plot needs a scalar input, and {name!r} has shape {shape}",
                           hint=f"set a number with --set {name}=VALUE")
    return float(data.reshape(()))


def span_of(value: float, name: str, given=None) -> tuple[float, float]:
    """The --range given, else the default one around the input's value (which must be finite)."""
    if given is not None:
        return given
    if not math.isfinite(value):
        raise UsageError(f"--wrt {name}: the input's value is {value}, so there is no default range",
                         hint="give one with --range A:B")
    return default_range(value)


# -- 1-D --------------------------------------------------------------------------------


def sample_curve(run, limits, wrt: str, of=None, order: int = 1, span=None,
                 samples: int = DEFAULT_SAMPLES) -> Curve:
    """f and d1..d_order of the run's program along `wrt`, the other inputs as in `run`."""
    if not 1 <= order <= MAX_ORDER:
        raise UsageError(f"--order {order}: plot draws orders 1 to {MAX_ORDER}")
    _check_samples(samples)
    program = run.interpreter.program
    name, _ = scalar_output(run, of)
    xs = grid(*span_of(scalar_input(run, program, wrt), wrt, span), samples)
    sampler = Sampler(program, run.interpreter.overrides, [wrt], of, limits)
    with np.errstate(all="ignore"):  # NaN and inf are gaps in a plot, not warnings
        values, failures = sampler.chains(xs, order)
        curve = Curve(name, wrt, order, xs, values, failures=failures,
                      formula=output_formula(program, name))
        _mark_kinks(curve, sampler)
        _kinks_between(curve, sampler)
    curve.kinks.sort()
    for v in curve.values:
        v[~np.isfinite(v)] = np.nan
    return curve


def _evaluate(at: Callable, points, width: int) -> tuple:
    """`at(point)` for every point as `width` arrays; a failing run leaves NaN and is noted."""
    out = np.full((width, len(points)), np.nan)
    failures = []
    for i, p in enumerate(points):
        try:
            out[:, i] = at(p)
        except LimitError:
            raise
        except GradcliError as err:
            failures.append((p, err))
    if failures and len(failures) == len(points):
        raise failures[0][1]
    return list(out), failures


def _check_samples(samples: int) -> None:
    if not 2 <= samples <= MAX_SAMPLES:
        raise UsageError(f"--samples {samples}: give 2 to {MAX_SAMPLES}")


def _nonsmooth(sampler: Sampler, xs: np.ndarray, values: list, order: int) -> list:
    """For k = 1..order, where d_(k-1) has a kink or a jump at xs (so d_k is undefined there):
    the gradient checker's test (check.core), d_k against differences of d_(k-1)."""
    from ..autograd.gradcheck import mismatch
    from ..check.core import Options, _jumps, _kinks

    opts = Options()
    eps, atol, rtol = opts.eps, opts.atol, opts.rtol

    def at(step, where):
        return sampler.probe(xs[where] + step, order - 1)

    everywhere = np.arange(len(xs))
    plus, minus = at(eps, everywhere), at(-eps, everywhere)
    masks = []
    for k in range(1, order + 1):
        g, a = values[k - 1], values[k]
        fwd, bwd = (plus[k - 1] - g) / eps, (g - minus[k - 1]) / eps
        central = (plus[k - 1] - minus[k - 1]) / (2 * eps)
        kinked = _kinks(a, central, fwd, bwd, atol, rtol)
        jumped = mismatch(a, central, atol, rtol)
        suspects = np.flatnonzero(kinked | jumped)
        bad = np.zeros(len(xs), dtype=bool)
        if suspects.size:
            p4, m4 = at(eps / 4, suspects), at(-eps / 4, suspects)
            gs, as_ = g[suspects], a[suspects]
            f4, b4 = (p4[k - 1] - gs) * 4 / eps, (gs - m4[k - 1]) * 4 / eps
            finer = (p4[k - 1] - m4[k - 1]) * 2 / eps
            kink = (kinked[suspects] & _kinks(as_, finer, f4, b4, atol, rtol)
                    & (np.abs(f4 - b4) > 0.5 * np.abs(fwd[suspects] - bwd[suspects])))
            jump = jumped[suspects] & _jumps(central[suspects], finer, atol, rtol)
            bad[suspects] = kink | jump
        masks.append(bad)
    return masks


def _mark_kinks(curve: Curve, sampler: Sampler) -> None:
    """NaN for d_k..d_K at a sample where d_(k-1) has a kink or a jump; note where."""
    finite = np.flatnonzero(np.isfinite(curve.values[0]))
    masks = _nonsmooth(sampler, curve.xs[finite], [v[finite] for v in curve.values], curve.order)
    for k, bad in enumerate(masks, start=1):
        for i in finite[bad]:
            _undefine(curve, i, k)


def _undefine(curve: Curve, i: int, k: int) -> None:
    if np.isfinite(curve.values[k][i]):
        curve.kinks.append((float(curve.xs[i]), k))
    for j in range(k, curve.order + 1):
        curve.values[j][i] = np.nan


# Between two samples a kink or a jump shows as a step in f or a derivative, far larger
# than the steps beside it; at most MAX_BETWEEN such places are narrowed down by bisection
# to WIDTH of the range (well inside the checker's step), and kept where its test finds
# a kink or a jump there.
STEP_RATIO = 8.0
MAX_BETWEEN = 32
WIDTH = 1e-12


def _kinks_between(curve: Curve, sampler: Sampler) -> None:
    """Add a sample at each kink or jump that lies between two samples, undefined from there on."""
    from ..check.core import Options

    opts = Options()
    order, xs = curve.order, curve.xs
    found = {}  # interval -> the derivative that steps there (0: f)
    for m in range(order + 1):
        v = curve.values[m]
        step = np.abs(np.diff(v))
        beside = np.maximum(np.concatenate(([0.0], step[:-1])), np.concatenate((step[1:], [0.0])))
        with np.errstate(invalid="ignore"):
            big = (step > STEP_RATIO * beside) & (step > opts.atol + opts.rtol * np.abs(v[1:]))
        for i in np.flatnonzero(big & np.isfinite(beside)):
            found.setdefault(int(i), m)
    if not found:
        return
    intervals = sorted(found, key=lambda i: -abs(curve.values[found[i]][i + 1] - curve.values[found[i]][i]))
    intervals = np.array(sorted(intervals[:MAX_BETWEEN]))
    which = np.array([found[i] for i in intervals])
    lo, hi = xs[intervals].copy(), xs[intervals + 1].copy()
    left = np.array([curve.values[m][i] for i, m in zip(intervals, which)])
    right = np.array([curve.values[m][i + 1] for i, m in zip(intervals, which)])
    width = min(opts.eps / 4, WIDTH * (xs[-1] - xs[0]))
    for _ in range(200):  # each halves the intervals; past float resolution mid stops moving
        mid = (lo + hi) / 2
        open_ = (hi - lo > width) & (mid > lo) & (mid < hi)
        if not open_.any():
            break
        at_mid = sampler.probe(mid[open_], order)
        v = np.array([at_mid[m][j] for j, m in enumerate(which[open_])])
        go_right = np.abs(v - left[open_]) <= np.abs(v - right[open_])  # mid is on the left side
        idx = np.flatnonzero(open_)
        lo[idx[go_right]] = mid[open_][go_right]
        hi[idx[~go_right]] = mid[open_][~go_right]
    points = (lo + hi) / 2
    values = sampler.probe(points, order)
    masks = _nonsmooth(sampler, points, values, order)
    keep = [(j, next(k for k in range(1, order + 1) if masks[k - 1][j]))
            for j in range(len(points)) if any(mask[j] for mask in masks)]
    if not keep:
        return
    at = intervals[[j for j, _ in keep]] + 1
    curve.xs = np.insert(xs, at, points[[j for j, _ in keep]])
    curve.values = [np.insert(v, at, w[[j for j, _ in keep]]) for v, w in zip(curve.values, values)]
    for n, (j, k) in enumerate(keep):
        _undefine(curve, int(at[n] + n), k)


# -- 2-D --------------------------------------------------------------------------------


def sample_surface(run, limits, wrt: list, of=None, spans=None, samples: int = DEFAULT_GRID) -> Surface:
    """The output and its gradient over a samples x samples grid of two inputs."""
    _check_samples(samples)
    if samples * samples > MAX_SAMPLES:
        raise UsageError(f"--samples {samples}: a 2-D grid has samples^2 points; give at most "
                         f"{math.isqrt(MAX_SAMPLES)}")
    program = run.interpreter.program
    name, _ = scalar_output(run, of)
    axes, point = [], tuple(scalar_input(run, program, w) for w in wrt)
    for k, w in enumerate(wrt):
        given = spans[k] if spans else None
        axes.append(grid(*span_of(point[k], w, given), samples))
    sampler = Sampler(program, run.interpreter.overrides, wrt, of, limits)
    xs, ys = np.meshgrid(axes[0], axes[1])
    with np.errstate(all="ignore"):
        values, failures = sampler.gradients(xs.ravel(), ys.ravel())
    shape = (samples, samples)
    z, gx, gy = (np.where(np.isfinite(v), v, np.nan).reshape(shape) for v in values)
    return Surface(name, tuple(wrt), axes[0], axes[1], z, (gx, gy), failures,
                   output_formula(program, name), point)
