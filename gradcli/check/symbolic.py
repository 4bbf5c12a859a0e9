"""The SymPy reference: derivatives SymPy computes from each op's SymPy counterpart.

A function is translated to SymPy by evaluating it on object arrays of symbols
(one real symbol per input element, `x[0, 1]`); SymPy differentiates; the
derivatives are evaluated at the check point as floats, each distinct
subexpression once (common-subexpression elimination by memo), never
simplified (expression swell is real).
No user text ever reaches `sympify`/`parse_expr`: expressions are built from
symbols and the op table's SymPy counterparts only.

The work is bounded: an input with more than `MAX_SYMBOLS` elements gets
symbols for a sample of them (the others stay numbers), an object array larger
than `MAX_OBJECT_ELEMENTS` is not built, and past `SECONDS` the reference is
abandoned with a message instead of hanging.

SymPy is imported inside the functions that need it: it costs half a second.
"""
from __future__ import annotations

import math
import signal
import threading
import time
from contextlib import contextmanager

import numpy as np

# An input with more elements than this gets symbols for a sample of SAMPLE of them:
# each symbol is a column of the Jacobian, each costs a differentiation per output.
MAX_SYMBOLS = 200
SAMPLE = 24
# The largest object array of expressions one node may produce (or read): object
# arithmetic is ~10^4 times slower than numpy's, so a 10^6-element matmul would hang.
MAX_OBJECT_ELEMENTS = 20_000
# Time for the SymPy reference of one output and order (translation, derivatives, evaluation).
SECONDS = 2.0
# Time `grad --symbolic` spends simplifying formulas before printing them unsimplified.
SIMPLIFY_SECONDS = 1.0


class OverBudget(Exception):
    """The symbolic work would exceed its budget; the message says which."""


class SympyBudget:
    """The SymPy references' budget (not the run's `limits.WorkBudget`): a deadline and size
    limits, checked between steps (and by an alarm within one).

    The time is the process's CPU time, so that a loaded machine gives the same
    report as an idle one (SymPy never waits: its wall time is its CPU time, when
    it has a CPU).
    """

    def __init__(self, seconds: float = SECONDS):
        self.seconds = seconds
        self.deadline = time.process_time() + seconds

    def check(self) -> None:
        if time.process_time() > self.deadline:
            raise OverBudget(f"budget: the symbolic work took more than {self.seconds:g} s")

    def size(self, args, out) -> None:
        count = sum(np.size(a) for a in args if isinstance(a, np.ndarray) and a.dtype == object)
        outs = out if isinstance(out, tuple) else (out,)
        count += sum(o._data.size for o in outs if hasattr(o, "_data"))
        if count > MAX_OBJECT_ELEMENTS:
            raise OverBudget(f"budget: a step of the translation has {count} symbolic elements "
                             f"(more than {MAX_OBJECT_ELEMENTS})")

    @contextmanager
    def guard(self):
        """Interrupt a single long SymPy call at the deadline (main thread, POSIX only)."""
        usable = hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF") \
            and threading.current_thread() is threading.main_thread()
        if not usable:
            yield
            return

        def expire(signum, frame):
            if frame is not None and _in_finalizer(frame):
                # an exception raised in a weakref callback is printed and lost, not raised:
                # interrupt just after it instead
                signal.setitimer(signal.ITIMER_PROF, 0.005)
                return
            raise OverBudget(f"budget: the symbolic work took more than {self.seconds:g} s")

        previous = signal.signal(signal.SIGPROF, expire)
        signal.setitimer(signal.ITIMER_PROF, max(self.deadline - time.process_time(), 0.001) + 0.05)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)


# The weakref callbacks the engine's side tables run when a tensor or node dies
# (ops/batching.py, ops/dual.py, graph/saved_hooks.py), and weakref.py's own.
_FINALIZERS = frozenset({"gone", "forget", "remove", "_remove", "callback"})


def _in_finalizer(frame) -> bool:
    """Whether the signal came while a weakref callback ran (it cannot raise)."""
    code = frame.f_code
    return code.co_name in _FINALIZERS and ("gradcli" in code.co_filename or code.co_filename.endswith("weakref.py"))


def sympy():
    import sympy as sp

    return sp


# -- symbols ---------------------------------------------------------------------------


def symbol_name(name: str, index: tuple) -> str:
    return f"{name}[{', '.join(map(str, index))}]" if index else name


class Symbols:
    """Object arrays standing for the checked inputs: symbols at the chosen elements."""

    def __init__(self, sp, names, values, rng=None, max_symbols=MAX_SYMBOLS, sample=SAMPLE):
        self.arrays, self.symbols, self.columns, self.point, self.sampled = [], [], [], {}, []
        for name, value in zip(names, values):
            value = np.asarray(value, dtype=np.float64)
            n = value.size
            if n > max_symbols:
                picks = sorted((rng or np.random.default_rng(0)).choice(n, size=sample, replace=False).tolist())
            else:
                picks = list(range(n))
            arr = value.astype(object).reshape(-1)
            syms = []
            for j in picks:
                s = sp.Symbol(symbol_name(name, np.unravel_index(j, value.shape) if value.ndim else ()),
                              real=True)
                arr[j] = s
                syms.append(s)
                self.point[s] = float(value.reshape(-1)[j])
            self.arrays.append(arr.reshape(value.shape))
            self.symbols.append(syms)
            self.columns.append(np.asarray(picks, dtype=np.int64))
            self.sampled.append(len(picks) < n)


# -- evaluation -------------------------------------------------------------------------


def _number(value) -> float:
    try:
        c = complex(value)
    except (TypeError, ValueError):
        return math.nan
    if abs(c.imag) > 1e-12 * max(1.0, abs(c.real)):
        return math.nan
    return c.real


def _heaviside(x, h0=0.5):
    return 1.0 if x > 0 else 0.0 if x < 0 else h0


def _pow(a, b):
    try:
        return math.pow(a, b)
    except ZeroDivisionError:
        return math.inf
    except (ValueError, OverflowError):
        try:
            return _number(complex(a) ** b) if a >= 0 or float(b).is_integer() else math.nan
        except (OverflowError, ZeroDivisionError):
            return math.inf


def _guard(fn):
    def safe(*args):
        try:
            return fn(*args)
        except (ValueError, ZeroDivisionError):
            return math.nan
        except OverflowError:
            return math.inf
    return safe


# SymPy function name -> its value on floats. Anything else is evaluated by SymPy itself.
_FLOAT_FUNCTIONS = {name: _guard(fn) for name, fn in {
    "exp": math.exp, "log": math.log, "sin": math.sin, "cos": math.cos, "tan": math.tan,
    "asin": math.asin, "acos": math.acos, "atan": math.atan, "sinh": math.sinh, "cosh": math.cosh,
    "tanh": math.tanh, "asinh": math.asinh, "acosh": math.acosh, "atanh": math.atanh,
    "erf": math.erf, "erfc": math.erfc, "Abs": abs, "atan2": math.atan2,
    "sign": lambda x: math.copysign(1.0, x) if x else 0.0,
    "Heaviside": _heaviside, "DiracDelta": lambda x, k=0: 0.0 if x else math.nan,
    "Max": max, "Min": min, "sec": lambda x: 1 / math.cos(x), "csc": lambda x: 1 / math.sin(x),
    "cot": lambda x: 1 / math.tan(x), "floor": math.floor, "ceiling": math.ceil,
}.items()}


def _value_of(sp, e, args: list) -> float:
    """One node's value from its arguments' values."""
    if e.is_Add:
        try:
            return math.fsum(args)
        except (ValueError, OverflowError):
            return sum(args)
    if e.is_Mul:
        out = 1.0
        for a in args:
            out *= a
        return out
    if e.is_Pow:
        return _pow(args[0], args[1])
    fn = _FLOAT_FUNCTIONS.get(type(e).__name__)
    if fn is not None:
        return fn(*args)
    # SymPy knows the rest (and says when it cannot: an unevaluated derivative).
    value = e.func(*[sp.Float(a) for a in args])
    if getattr(value, "free_symbols", None) or not getattr(value, "is_number", False):
        raise _NoValue
    return _number(value)


class _NoValue(Exception):
    pass


def evaluate(sp, exprs: list, point: dict, budget: SympyBudget) -> tuple:
    """Each expression's value at `point` (symbol -> float), and whether SymPy gave one.

    Floats, not SymPy numbers: a walk of the expression graph that computes each
    distinct subexpression once (the memo is the common-subexpression elimination).
    """
    values = np.full(len(exprs), math.nan)
    known = np.ones(len(exprs), dtype=bool)
    memo = dict(point)
    for i, root in enumerate(exprs):
        if isinstance(root, (int, float)):
            values[i] = float(root)
            continue
        budget.check()
        try:
            values[i] = _walk(sp, root, memo)
        except _NoValue:
            known[i] = False
    return values, known


def _walk(sp, root, memo: dict) -> float:
    """Post-order over the expression without recursion (an expression may be deep)."""
    if root in memo:
        return memo[root]
    stack = [root]
    while stack:
        e = stack[-1]
        if e in memo:
            stack.pop()
            continue
        if e.is_Number or e.is_NumberSymbol:
            memo[e] = _number(e)
            stack.pop()
            continue
        if e.is_Symbol:
            raise _NoValue  # a symbol with no value at the point
        if type(e).__name__ in ("Derivative", "Subs"):
            raise _NoValue  # SymPy could not differentiate: no reference here
        if e.is_Relational or e.is_Boolean or type(e).__name__ == "Piecewise":
            memo[e] = _sympy_value(sp, e, memo)
            stack.pop()
            continue
        pending = [a for a in e.args if a not in memo]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        memo[e] = _value_of(sp, e, [memo[a] for a in e.args])
    return memo[root]


def _sympy_value(sp, e, memo) -> float:
    """SymPy's own evaluation, for the forms not computed on floats (Piecewise and friends)."""
    subs = {s: sp.Float(v) for s, v in memo.items() if getattr(s, "is_Symbol", False)}
    try:
        value = e.xreplace(subs)
    except (TypeError, ValueError):
        raise _NoValue from None
    if value.is_Boolean:
        return 1.0 if bool(value) else 0.0
    if getattr(value, "free_symbols", None) or not getattr(value, "is_number", False):
        raise _NoValue
    return _number(value)


def jacobian_exprs(outputs: np.ndarray, symbols: list, budget: SympyBudget) -> list:
    """Rows of d output / d symbol expressions (output flattened)."""
    rows = []
    for y in np.asarray(outputs, dtype=object).reshape(-1):
        budget.check()
        free = y.free_symbols if hasattr(y, "free_symbols") else set()
        rows.append([y.diff(s) if s in free else 0 for s in symbols])
    return rows


def hessian_exprs(rows: list, symbols: list, wanted: list, budget: SympyBudget) -> dict:
    """(i, c, d) -> d2 output_i / d symbol_c d symbol_d for c in `wanted`, from the Jacobian rows.

    Each pair is differentiated once (the Hessian is symmetric), and only where
    the symbol occurs.
    """
    out = {}
    for i, row in enumerate(rows):
        for c in wanted:
            budget.check()
            first = row[c]
            free = first.free_symbols if hasattr(first, "free_symbols") else ()
            for d, s in enumerate(symbols):
                if (i, d, c) in out:
                    out[(i, c, d)] = out[(i, d, c)]
                elif s in free:
                    out[(i, c, d)] = first.diff(s)
    return out


# -- formulas for grad --symbolic (program.symbolic_derivatives) -------------------------


def integral_floats(sp, expr):
    """`2.0*x` as `2*x`: a float with an integral value printed as the integer it is."""
    if not hasattr(expr, "replace"):
        return expr
    return expr.replace(lambda a: a.is_Float and float(a).is_integer(), lambda a: sp.Integer(int(a)))


def simplify_all(sp, exprs: list, seconds: float) -> list:
    """Simplified expressions while time lasts; the rest as they are."""
    budget = SympyBudget(seconds)
    out = []
    for e in exprs:
        try:
            budget.check()
            with budget.guard():
                out.append(sp.simplify(e) if hasattr(e, "free_symbols") else e)
        except OverBudget:
            out.append(e)
    return out
