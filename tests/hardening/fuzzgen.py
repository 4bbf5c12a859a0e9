"""Fuzzing gradcli: a generator of valid programs built from the op table, a mutator of
the sample and seed programs, and the properties every run must keep.

Used by `test_hardening_fuzz.py` (a bounded run with a fixed seed) and by
`benchmarks/fuzz.py` (the long run). Everything runs in-process: the CLI through
`gradcli.cli.app.run_app` (its one error boundary, so an exit 70 or a traceback
shows up exactly as a user would see it), the library through `compile_program`,
so a run costs milliseconds rather than a process start.

The properties:
  - every CLI run exits 0-4 (never 70), prints no traceback, ends within a time bound;
  - with --json, standard output is strict JSON (no NaN literals), one document per
    line with --points, and an error document for exit codes 3 and 4;
  - a generated program is valid: it runs, its backward agrees with central finite
    differences at the point (an element is skipped where the function is not smooth:
    the differences disagree across step sizes, or the backward a hair away differs),
    and the CLI's `grad --json` gives the library's numbers.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import shlex
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SEED_DIRS = (ROOT / "samples",)

# Budgets for fuzzed runs: small enough that a runaway program ends fast, in-process.
FUZZ_LIMITS = ("--max-elements", "1000000", "--max-steps", "20000")
TIME_BOUND_S = 20.0


# --- running the CLI in-process ------------------------------------------------------


class FuzzTimeout(BaseException):
    """A run exceeded its time bound (a BaseException, so no `except Exception` eats it)."""


@dataclass
class Outcome:
    argv: list
    code: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False


def _on_alarm(signum, frame):
    raise FuzzTimeout()


def run_cli(argv: list, stdin: bytes = b"", timeout: float = TIME_BOUND_S) -> Outcome:
    """`gradcli ARGV` in this process, as `gradcli.cli.main` runs it; stdout and stderr captured."""
    import sys

    from gradcli.cli.app import run_app

    out, err = io.StringIO(), io.StringIO()
    saved_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    # CPU time (the user time ITIMER_VIRTUAL counts; gradcli's own --max-seconds uses ITIMER_PROF),
    # not wall time: the bound is about the program's work, and a loaded machine
    # (a CI runner, a parallel suite) would otherwise fail programs that did nothing wrong
    previous = signal.signal(signal.SIGVTALRM, _on_alarm)
    start = time.process_time()
    code, timed_out = None, False
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                np.errstate(all="ignore"):
            signal.setitimer(signal.ITIMER_VIRTUAL, timeout)
            try:
                code = run_app(list(argv))
            finally:
                signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    except FuzzTimeout:
        timed_out = True
    finally:
        signal.signal(signal.SIGVTALRM, previous)
        sys.stdin = saved_stdin
    return Outcome(list(argv), code, out.getvalue(), err.getvalue(), time.process_time() - start,
                   timed_out)


def strict_json(text: str):
    """json.loads that refuses NaN/Infinity literals, as jq does."""
    def refuse(name):
        raise ValueError(f"not strict JSON: {name}")
    return json.loads(text, parse_constant=refuse)


def problems(outcome: Outcome, bound: float = TIME_BOUND_S) -> list:
    """What is wrong with one CLI run (empty if nothing)."""
    found = []
    if outcome.timed_out:
        return [f"no answer within {bound:.0f} s"]
    if outcome.code not in (0, 1, 2, 3, 4):
        found.append(f"exit code {outcome.code}")
    if "Traceback" in outcome.stderr or "Traceback" in outcome.stdout:
        found.append("a traceback")
    if outcome.seconds > bound:
        found.append(f"took {outcome.seconds:.1f} s")
    if "--json" in outcome.argv and outcome.code != 70:
        lines = [outcome.stdout] if "--points" not in outcome.argv else outcome.stdout.splitlines()
        for text in lines:
            if not text.strip():
                continue
            try:
                strict_json(text)
            except ValueError as exc:
                found.append(f"--json output does not parse: {exc}")
                break
        if outcome.code in (3, 4) and "--points" not in outcome.argv and "gradcheck" not in outcome.argv:
            try:
                doc = strict_json(outcome.stdout)
                if not (isinstance(doc, dict) and doc.get("error", {}).get("code") == outcome.code):
                    found.append("--json: no error document for a failed run")
            except ValueError:
                found.append("--json: no error document for a failed run")
    return found


# --- the op table as call templates ----------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """One argument of a template: a tensor of `shape` valued in [lo, hi], or a number."""

    shape: tuple | None  # None: a plain number
    lo: float
    hi: float


@dataclass(frozen=True)
class Template:
    """One way to call a function of the op table, with arguments its domain vouches for."""

    op: str
    function: str
    slots: tuple
    samples: tuple       # the domain's own arguments (arrays or floats), one per slot
    params: str          # ", dim=1, keepdim=True"
    out_shape: tuple
    suffix: str          # "[0]" when the function returns several tensors
    listed: bool         # cat/stack: the tensors are passed as one list
    method: bool         # also a Tensor method


def _literal(value) -> str | None:
    """A parameter value as program text, or None if the language cannot write it."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return repr(None if value is None else bool(value))
    if isinstance(value, (int, np.integer)):
        return repr(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tuple) and all(isinstance(v, (int, np.integer)) for v in value):
        return "(" + ", ".join(str(int(v)) for v in value) + ("," if len(value) == 1 else "") + ")"
    return None


def number_text(x: float) -> str:
    text = f"{x:.6g}"
    return text if any(c in text for c in ".en") else text + "."


def tensor_text(a) -> str:
    """A numpy array as a list literal (a 0-d array as a number)."""
    a = np.asarray(a, dtype=float)
    if a.ndim == 0:
        return number_text(float(a))
    return "[" + ", ".join(tensor_text(row) for row in a) + "]"


def catalog(seed: int = 0) -> list:
    """Call templates for every op of the table whose domain the language can write."""
    from gradcli._tensor import Tensor
    from gradcli.ops import FUNCTIONS, METHODS, OPS

    rng = np.random.default_rng(seed)
    templates = []
    for name, op in OPS.items():
        if op.domain is None or not op.differentiable:
            continue
        candidates = [f for f in (name, name.split("_")[0]) if f in FUNCTIONS]
        if not candidates:
            continue
        try:
            draws = [op.domain(rng) for _ in range(4)]
        except Exception:  # noqa: BLE001 - a domain the generator cannot use
            continue
        for index, (inputs, params) in enumerate(draws[0]):
            texts = {k: _literal(v) for k, v in params.items() if k != "sizes"}
            if any(t is None for t in texts.values()):
                continue
            listed = op.inputs[0].startswith("tensors[")
            if not all(isinstance(x, (np.ndarray, float, int)) and not isinstance(x, bool)
                       for x in inputs):
                continue
            slots = []
            for position, x in enumerate(inputs):
                if not isinstance(x, np.ndarray):
                    slots.append(Slot(None, float(x), float(x)))
                    continue
                values = np.concatenate([np.ravel(np.asarray(d[index][0][position], float))
                                         for d in draws if len(d) > index and len(d[index][0]) > position])
                lo, hi = float(values.min()), float(values.max())
                slots.append(Slot(tuple(x.shape), lo, hi))
            for function in candidates:
                args = [Tensor(np.asarray(x, float)) if isinstance(x, np.ndarray) else float(x)
                        for x in inputs]
                kwargs = {k: v for k, v in params.items() if k != "sizes"}
                try:
                    with np.errstate(all="ignore"):
                        out = FUNCTIONS[function](args, **kwargs) if listed else \
                            FUNCTIONS[function](*args, **kwargs)
                except Exception:  # noqa: BLE001 - this calling form is not the function's
                    continue
                suffix = ""
                if isinstance(out, tuple):
                    out, suffix = out[0], "[0]"
                if not isinstance(out, Tensor) or not np.all(np.isfinite(out._data)):
                    continue
                param_text = "".join(f", {k}={t}" for k, t in texts.items())
                templates.append(Template(name, function, tuple(slots), tuple(inputs), param_text,
                                          tuple(out._data.shape), suffix, listed,
                                          function in METHODS and not listed))
                break
    return templates


# --- the generator -----------------------------------------------------------------------


@dataclass
class Case:
    """A program and what is known about it."""

    source: str
    leaves: dict = field(default_factory=dict)  # input name -> value (for --set / overrides)
    output: str = "out"
    script_ok: bool = True      # every input is a torch.tensor(...): `run` (script mode) works too
    used: list = field(default_factory=list)  # inputs the output depends on (set by check_gradients)


_FORMS = ("call", "torch", "method")
FRESH_ONLY = frozenset({"inverse"})  # ops whose inputs only their domain may give
_GLUE = ("sin({a})", "tanh({a})", "({a} * 0.5)", "sigmoid({a})", "({a} * {a})", "cos({a}) * 0.3")


class Generator:
    """Valid programs composed from the op table: ops on their domains, results fed into
    other ops through a squashing map onto the next op's domain, broadcasting between
    results, defs, lambdas, loops, branches, custom Functions."""

    def __init__(self, seed: int, templates: list | None = None):
        self.rng = np.random.default_rng(seed)
        self.templates = templates if templates is not None else catalog()

    def choice(self, items):
        return items[int(self.rng.integers(len(items)))]

    def program(self) -> Case:
        rng = self.rng
        self.lines: list[str] = []
        self.leaves: dict = {}
        self.pool: list = []  # (name, shape)
        self.counter = 0
        self.script_ok = True
        self.lines.append(self.choice(["", "import torch", "import torch\nimport torch.nn.functional as F"]))
        for _ in range(int(rng.integers(1, 6))):
            self.step()
        if len(self.pool) >= 2 and rng.random() < 0.6:
            self.broadcast()
        if rng.random() < 0.25:
            self.custom_function()
        self.finish()
        if not self.script_ok:
            # literal inputs make an expression; a file that imports torch is a PyTorch
            # program, whose literals are Python numbers and lists (SPEC 2.1, issue 32)
            self.lines[0] = ""
        source = "\n".join(line for line in self.lines if line) + "\n"
        return Case(source, dict(self.leaves), script_ok=self.script_ok)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def leaf(self, value) -> str:
        name = self.fresh(self.choice(["x", "w", "a", "p"]))
        array = np.asarray(value, float)
        text = tensor_text(array)
        if self.rng.random() < 0.2:
            self.lines.append(f"{name} = torch.tensor({text}, requires_grad=True)")
        else:
            self.lines.append(f"{name} = {text}")
            self.script_ok = False  # in script mode a literal is a Python number or list
        # the value the program holds: the literal's digits, not the sample's
        rounded = np.array([float(number_text(v)) for v in array.reshape(-1)]).reshape(array.shape)
        self.leaves[name] = rounded.tolist()
        return name

    def argument(self, slot: Slot, sample, fresh: bool = False) -> str:
        if slot.shape is None:
            return number_text(float(sample))
        same = [name for name, shape in self.pool if shape == slot.shape]
        if same and not fresh and self.rng.random() < 0.6:
            source = self.choice(same)
            lo, hi = slot.lo, slot.hi
            width = hi - lo
            if width <= 1e-12:
                return self.leaf(sample)
            squash = self.choice(["sigmoid({v})", "torch.sigmoid({v})", "{v}.sigmoid()"]).format(v=source)
            return f"({number_text(lo)} + {number_text(width)} * {squash})"
        return self.leaf(sample)

    def call(self, template: Template, args: list) -> str:
        form = self.choice(_FORMS)
        if template.listed:
            return f"{'torch.' if form == 'torch' else ''}{template.function}([{', '.join(args)}]" \
                   f"{template.params}){template.suffix}"
        if form == "method" and template.method and args and template.slots[0].shape is not None:
            head, rest = args[0], args[1:]
            inner = ", ".join(rest) + template.params if rest else template.params.lstrip(", ")
            return f"{head}.{template.function}({inner}){template.suffix}"
        prefix = "torch." if form == "torch" else ""
        return f"{prefix}{template.function}({', '.join(args)}{template.params}){template.suffix}"

    def step(self):
        tensors = [(name, shape) for name, shape in self.pool if shape]
        if tensors and self.rng.random() < 0.15:
            return self.in_place(*self.choice(tensors))
        template = self.choice(self.templates)
        # a squashed result can still be a singular matrix (rows made equal by `sign`), where
        # inverse fails as PyTorch's does: its matrices come from its domain
        fresh = template.op in FRESH_ONLY
        args = [self.argument(slot, sample, fresh)
                for slot, sample in zip(template.slots, template.samples)]
        expr = self.call(template, args)
        target = self.fresh("v")
        kind = self.rng.random()
        if kind < 0.45:
            self.lines.append(f"{target} = {expr}")
        elif kind < 0.6:
            self.wrap_def(target, expr, args)
        elif kind < 0.7:
            self.wrap_lambda(target, expr, args)
        elif kind < 0.8:
            self.wrap_loop(target, expr, template.out_shape)
        elif kind < 0.9:
            self.wrap_branch(target, expr)
        else:
            self.wrap_while(target, expr, template.out_shape)
        self.pool.append((target, template.out_shape))

    def in_place(self, name: str, shape: tuple):
        """An in-place op on a copy of `name` or on a view of it (`c[0].mul_(0.5)`, `c[1:] = ...`,
        `c.t().tanh_()`): the base's gradient must follow, as PyTorch's CopySlices does."""
        target = self.fresh("c")
        self.lines.append(f"{target} = {name} * 1")
        views = ["", "[0]", "[-1]", f"[{shape[0] // 2}:]", "[::2]"]
        if len(shape) >= 2:
            views += ["[:, 0]", "[0, 1:]", ".transpose(0, 1)[0]", ".reshape(-1)[1:]"]
        if len(shape) == 2:
            views.append(".t()")
        view = self.choice(views)
        other = self.choice([name for name, s in self.pool if s == ()] or ["0.25"])
        change = self.choice([".mul_(0.5)", ".add_(0.25)", ".tanh_()", ".sin_()", ".sigmoid_()",
                              f".mul_(tanh({other}))", f".add_({other} * 0.5)", " = {t}{v} * 0.5 + 0.1",
                              " = 0.3"])
        if change.startswith(" = "):
            if not view or view.startswith("."):
                view = "[0]"   # assignment needs an index
            self.lines.append(f"{target}{view}{change.format(t=target, v=view)}")
        else:
            self.lines.append(f"{target}{view}{change}")
        self.pool.append((target, shape))

    def _parameterized(self, expr: str, args: list) -> tuple:
        """`expr` with each leaf argument replaced by a parameter name."""
        params, call_args = [], []
        for arg in args:
            if re.fullmatch(r"[a-z]+\d+", arg) and arg in expr:
                p = f"t{len(params)}"
                expr = re.sub(rf"\b{arg}\b", p, expr)
                params.append(p)
                call_args.append(arg)
        return expr, params, call_args

    def wrap_def(self, target, expr, args):
        body, params, call_args = self._parameterized(expr, args)
        fn = self.fresh("f")
        self.lines.append(f"def {fn}({', '.join(params)}):")
        if self.rng.random() < 0.5:
            self.lines.append(f"    r = {body}")
            self.lines.append("    return r")
        else:
            self.lines.append(f"    return {body}")
        self.lines.append(f"{target} = {fn}({', '.join(call_args)})")

    def wrap_lambda(self, target, expr, args):
        body, params, call_args = self._parameterized(expr, args)
        fn = self.fresh("g")
        self.lines.append(f"{fn} = lambda {', '.join(params)}: {body}")
        self.lines.append(f"{target} = {fn}({', '.join(call_args)})")

    def wrap_loop(self, target, expr, shape):
        n = int(self.rng.integers(1, 4))
        zeros = f"zeros({', '.join(map(str, shape))})" if shape else "tensor(0.)"
        self.lines.append(f"{target} = {zeros}")
        self.lines.append(f"for i in range({n}):")
        self.lines.append(f"    {target} = {target} + {expr} * (i + 1) / {n}")

    def wrap_while(self, target, expr, shape):
        n = int(self.rng.integers(1, 4))
        k = self.fresh("k")
        self.lines.append(f"{k} = int(0)")
        self.lines.append(f"{target} = {expr}")
        self.lines.append(f"while {k} < {n}:")
        self.lines.append(f"    {target} = {target} * 0.5 + {expr} * 0.5")
        self.lines.append(f"    {k} += 1")

    def wrap_branch(self, target, expr):
        test = self.choice(["len([1, 2]) == 2", "True", "3 > 4", "not False"])
        self.lines.append(f"if {test}:")
        self.lines.append(f"    {target} = {expr}")
        self.lines.append("else:")
        self.lines.append(f"    {target} = ({expr}) * 2.0")

    def broadcast(self):
        (a, sa), (b, sb) = self.pool[-1], self.choice(self.pool[:-1])
        try:
            shape = np.broadcast_shapes(sa, sb)
        except ValueError:
            return
        op = self.choice(["+", "-", "*"])
        target = self.fresh("v")
        glue = self.choice(_GLUE)
        self.lines.append(f"{target} = {glue.format(a=a)} {op} {glue.format(a=b)}")
        self.pool.append((target, tuple(shape)))

    def custom_function(self):
        name, shape = self.choice(self.pool)
        cls = self.fresh("Cube")
        self.lines.append(f"class {cls}(torch.autograd.Function):")
        self.lines.append("    @staticmethod")
        self.lines.append("    def forward(ctx, x):")
        self.lines.append("        ctx.save_for_backward(x)")
        self.lines.append("        return x * x * x")
        self.lines.append("    @staticmethod")
        self.lines.append("    def backward(ctx, grad_output):")
        self.lines.append("        x, = ctx.saved_tensors")
        self.lines.append("        return grad_output * 3 * x * x")
        target = self.fresh("v")
        self.lines.append(f"{target} = {cls}.apply(tanh({name}))")
        self.pool.append((target, shape))

    def finish(self):
        chosen = [self.pool[-1]] + [p for p in self.pool[:-1] if self.rng.random() < 0.5]
        terms = []
        for name, _ in chosen:
            form = self.choice(["{v}.sum()", "({v} * {v}).mean()", "torch.sum(sin({v}))",
                                "{v}.tanh().sum() * 0.7"])
            terms.append(form.format(v=name))
        self.lines.append("out = " + " + ".join(terms))


# --- finite differences -------------------------------------------------------------------


def check_gradients(case: Case, atol: float = 1e-5, rtol: float = 1e-3) -> list:
    """Compare the program's backward with central differences at its point (library only).

    An element where the function is not smooth (on a kink, a branch boundary or a
    singularity) has no reference and is skipped: there the differences at other step sizes
    disagree, or the backward at nearby points differs. Every other element must agree.
    Returns the disagreements.
    """
    import gradcli.autograd as autograd
    from gradcli._tensor import Tensor
    from gradcli.lang import Limits, compile_program

    program = compile_program(case.source, "<fuzz>")
    limits = Limits(max_elements=10**6, max_steps=20000)
    with np.errstate(all="ignore"):
        run = program.run(limits=limits)
        out = run.values.get(case.output)
        if not isinstance(out, Tensor) or out._data.size != 1 or not out.requires_grad:
            return [f"the output {case.output} is not a scalar that requires grad"]
        if not np.isfinite(out._data).all():
            return []
        names = [n for n in case.leaves if isinstance(run.values.get(n), Tensor)]
        leaves = [run.values[n] for n in names]
        grads = autograd.grad(out, leaves, allow_unused=True)
        case.used = [n for n, g in zip(names, grads) if g is not None]

        def value(name, flat_index, delta):
            point = np.array(case.leaves[name], dtype=float)
            point.reshape(-1)[flat_index] += delta
            overrides = {name: point.tolist() if point.ndim else float(point)}
            result = program.run(overrides, limits=limits).values[case.output]
            return float(result._data)

        def central(name, i, x, h):
            step = h * max(1.0, abs(x))
            return (value(name, i, step) - value(name, i, -step)) / (2 * step)

        def nearby_gradients(seed):
            """The backward at a point a hair away: if it differs, the gradient is not continuous
            here (`std` of equal elements, a tie in `max`) and no reference exists."""
            jitter = np.random.default_rng(seed)
            overrides = {}
            for name in names:
                point = np.array(case.leaves[name], dtype=float)
                point = point + 1e-7 * np.maximum(1, abs(point)) * jitter.standard_normal(point.shape)
                overrides[name] = point.tolist() if point.ndim else float(point)
            moved = program.run(overrides, limits=limits).values
            result = autograd.grad(moved[case.output], [moved[n] for n in names], allow_unused=True)
            return {n: (None if r is None else np.asarray(r._data, float)) for n, r in zip(names, result)}

        def continuous(name, i, a):
            for seed in (1, 2):
                g = nearby_gradients(seed)[name]
                b = 0.0 if g is None else float(g.reshape(-1)[i])
                if not abs(a - b) <= 1e-4 * (1 + abs(a)):
                    return False
            return True

        # a difference quotient's own rounding: the output's terms are summed in float64, and a
        # change of a few ulps of a large output is lost (an output of 2e5 over a step of 1e-6:
        # a derivative of 1e-4 gave a difference quotient of 0), so the reference resolves
        # nothing below some tens of the output's ulps per step
        spacing = float(np.spacing(abs(float(out._data))))
        found = []
        for name, leaf, g in zip(names, leaves, grads):
            analytical = np.zeros(leaf._data.shape) if g is None else np.asarray(g._data, float)
            point = np.array(case.leaves[name], dtype=float).reshape(-1)
            for i, x in enumerate(point):
                a = float(analytical.reshape(-1)[i])
                fd = central(name, i, x, 1e-6)
                if not (math.isfinite(fd) and math.isfinite(a)):
                    continue
                rounding = 64 * spacing / (2e-6 * max(1.0, abs(x)))
                if abs(a - fd) <= atol + rounding + rtol * max(abs(fd), abs(a)):
                    continue
                coarse, fine = central(name, i, x, 1e-4), central(name, i, x, 1e-7)
                if abs(coarse - fd) > 1e-3 * (1 + abs(fd)) or abs(fine - fd) > 1e-3 * (1 + abs(fd)) \
                        or not continuous(name, i, a):
                    continue  # the function is not smooth here: no reference
                found.append(f"d{case.output}/d{name}[{i}]: backward {a!r}, finite differences {fd!r}")
        return found


# --- the mutator ---------------------------------------------------------------------------

_TOKEN = re.compile(r"[ \t]+|\r?\n|[A-Za-z_]\w*|\d+\.?\d*(?:[eE][-+]?\d+)?|\"[^\"\n]*\"|'[^'\n]*'"
                    r"|\*\*|//|==|!=|<=|>=|[-+*/%@<>=()\[\]{},:;.~&|^!#\\]|.", re.S)
from fuzzwords import INTERESTING, NUMBERS, OPERATORS, STATEMENTS  # noqa: E402


def _vocabulary() -> list:
    from gradcli.ops import FUNCTIONS, METHODS

    return sorted(set(FUNCTIONS) | set(METHODS) | {"x", "y", "z", "w", "a", "b", "grad", "data",
                                                   "grad_fn", "next_functions", "torch", "F"})


def seed_programs() -> list:
    """(name, text) of every sample and seed-case program."""
    found = []
    for directory in SEED_DIRS:
        for path in sorted(directory.glob("*")):
            if path.suffix in (".py", ".txt"):
                found.append((f"{directory.name}/{path.name}", path.read_text()))
    return found


class Mutator:
    """Damaged versions of the sample and seed programs: tokens deleted, duplicated,
    swapped or replaced by fragments from INTERESTING, and raw bytes."""

    def __init__(self, seed: int, seeds: list | None = None):
        self.rng = np.random.default_rng(seed)
        self.seeds = seeds if seeds is not None else seed_programs()
        self.names = _vocabulary()
        self.base = len(self.seeds)

    def add_seed(self, name: str, text: str, keep: int = 100):
        """Mutate this program too (a generated one); the newest `keep` of these are kept."""
        self.seeds.append((name, text))
        if len(self.seeds) > self.base + keep:
            del self.seeds[self.base]

    def choice(self, items):
        return items[int(self.rng.integers(len(items)))]

    def mutant(self) -> tuple:
        """(seed name, program text or bytes)."""
        name, text = self.choice(self.seeds)
        tokens = _TOKEN.findall(text)
        for _ in range(int(self.rng.integers(1, 4))):
            tokens = self.mutate(tokens)
        out = "".join(tokens)
        if self.rng.random() < 0.08:
            data = bytearray(out.encode("utf-8", "surrogatepass"))
            for _ in range(int(self.rng.integers(1, 4))):
                position = int(self.rng.integers(len(data) + 1))
                data[position:position] = bytes([int(self.rng.integers(256))])
            return name, bytes(data)
        return name, out

    def mutate(self, tokens: list) -> list:
        if not tokens:
            return [self.choice(INTERESTING)]
        rng = self.rng
        solid = [i for i, t in enumerate(tokens) if t.strip()] or list(range(len(tokens)))
        i = self.choice(solid)
        kind = rng.random()
        tokens = list(tokens)
        token = tokens[i]
        if kind < 0.3:
            # same kind of token: the program most likely still parses, and means something odd
            if re.fullmatch(r"[A-Za-z_]\w*", token):
                tokens[i] = self.choice(self.names)
            elif re.fullmatch(r"[\d.]+(?:[eE][-+]?\d+)?", token):
                tokens[i] = self.choice(NUMBERS)
            elif token in OPERATORS:
                tokens[i] = self.choice(OPERATORS)
                if tokens[i].isalpha():
                    tokens[i] = f" {tokens[i]} "
            else:
                tokens.insert(i, self.choice(INTERESTING))
        elif kind < 0.45:
            # a whole statement at a line boundary, with that line's indentation
            text = "".join(tokens)
            lines = text.split("\n")
            at = int(rng.integers(len(lines) + 1))
            indent = re.match(r"[ \t]*", lines[at] if at < len(lines) else "").group()
            statement = self.choice(STATEMENTS).replace("\n", "\n" + indent)
            names = re.findall(r"^\s*([A-Za-z_]\w*)\s*=[^=]", text, re.M)
            if names:  # about the program's own variables
                statement = re.sub(r"\bx\b", self.choice(names), statement)
            lines.insert(at, indent + statement)
            return _TOKEN.findall("\n".join(lines))
        elif kind < 0.55:
            del tokens[i]
        elif kind < 0.62:
            tokens.insert(i, tokens[i])
        elif kind < 0.7:
            j = self.choice(solid)
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif kind < 0.85:
            tokens.insert(i if rng.random() < 0.5 else i + 1, self.choice(INTERESTING))
        elif kind < 0.93:
            tokens[i] = self.choice(INTERESTING)
        else:
            j = min(len(tokens), i + int(rng.integers(1, 20)))
            tokens[i:j] = tokens[i:j][::-1] if rng.random() < 0.5 else []
        return tokens


# --- one round --------------------------------------------------------------------------------

COMMANDS = [
    ["eval"], ["backward"], ["run"], ["graph", "--tree"], ["graph", "--format", "json"],
    ["graph", "--format", "dot"], ["graph", "--format", "mermaid"], ["graph", "--saved", "--values"],
    ["grad", "--wrt", "x"], ["grad", "--wrt", "x,y"], ["grad", "--wrt", "x", "--order", "2"],
    ["jacobian", "--wrt", "x"], ["hessian", "--wrt", "x,y"], ["backward", "--steps"],
    ["backward", "--gradient", "ones"], ["backward", "--create-graph", "--retain-graph"],
    ["gradcheck", "--no-sympy"], ["gradcheck"], ["eval", "--of", "y"], ["backward", "--detect-anomaly"],
]


# Odd option values, added now and then to a mutant's command line.
OPTIONS = [
    ["--set", "x=[1, 2, 3]"], ["--set", "x=nan"], ["--set", "x=[[]]"], ["--set", "x=1e999"],
    ["--set", "y=" + "[" * 3000 + "]" * 3000], ["--set", "nosuch=1"], ["--set", "x"],
    ["--of", "nosuch"], ["--of", "x"], ["--gradient", "[1, 2]"], ["--gradient", "nan"],
    ["--grad-outputs", "ones"], ["--inputs", "x"], ["--order", "3"], ["--order", "0"],
    ["--order", "40"], ["--max-steps", "0"], ["--max-steps", "-1"], ["--max-elements", "0"],
    ["--max-elements", "3"], ["--eps", "1e300"], ["--eps", "nan"], ["--atol", "-1"],
    ["--retain-graph"], ["--create-graph"], ["--allow-unused"], ["--steps"], ["--fast"],
    ["--detect-anomaly"], ["--symbolic"], ["--wrt", "x,x"], ["--wrt", ","], ["--format", "nope"],
    ["--eps", "nan"], ["--atol", "nan"], ["--rtol", "nan"], ["--order", "100000000000"],
]

# Broken standard streams (issue 19), run now and then in a real process: the expected exit.
STREAMS = [
    ("stdout full", {"stdout": "/dev/full"}, 2), ("stdout closed", {"stdout": None}, 2),
    ("stdin closed, program from -", {"stdin": None, "program": "-"}, 2),
    ("stdin closed, -e", {"stdin": None}, 0),
]


@dataclass
class Failure:
    kind: str
    origin: str
    argv: list
    program: str | bytes
    detail: str
    stdin: bytes = b""

    def describe(self) -> str:
        program = self.program if isinstance(self.program, str) else repr(self.program)
        return (f"[{self.kind}] {self.origin}: gradcli {' '.join(self.argv)}\n  {self.detail}\n"
                f"  --- program ---\n" + "\n".join("  " + line for line in program.splitlines()[:60]))


@dataclass
class Tally:
    programs: int = 0
    runs: int = 0
    gradient_checks: int = 0
    codes: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)
    slowest: float = 0.0

    def count(self, outcome: Outcome):
        self.runs += 1
        self.codes[outcome.code] = self.codes.get(outcome.code, 0) + 1
        self.slowest = max(self.slowest, outcome.seconds)


class Fuzzer:
    """Runs generated and mutated programs through the CLI and the library and keeps a tally."""

    def __init__(self, seed: int, workdir: str | None = None):
        self.rng = np.random.default_rng(seed)
        self.generator = Generator(seed)
        self.mutator = Mutator(seed + 1)
        self.tally = Tally()
        self.workdir = workdir or tempfile.mkdtemp(prefix="gradcli-fuzz-")

    def choice(self, items):
        return items[int(self.rng.integers(len(items)))]

    def cli(self, argv, program, origin, stdin=b""):
        outcome = run_cli(argv, stdin=stdin)
        self.tally.count(outcome)
        for problem in problems(outcome):
            detail = problem + ("\n  stderr: " + outcome.stderr.strip()[-800:] if outcome.stderr else "")
            self.tally.failures.append(Failure("cli", origin, argv, program, detail, stdin))
        return outcome

    def program_argv(self, program, base: list) -> tuple:
        """How to hand the program over: -e TEXT, a file, or standard input."""
        how = self.rng.random()
        if isinstance(program, bytes) or how < 0.15:
            data = program if isinstance(program, bytes) else program.encode("utf-8", "surrogatepass")
            if how < 0.5 or isinstance(program, str):
                path = os.path.join(self.workdir, "program.py")
                with open(path, "wb") as fh:
                    fh.write(data)
                return base[:1] + [path] + base[1:], b""
            return base[:1] + ["-"] + base[1:], data
        return base[:1] + ["-e", program] + base[1:], b""

    def generated(self):
        """A valid program: it must run, agree with finite differences, and pass the CLI."""
        case = self.generator.program()
        self.tally.programs += 1
        self.mutator.add_seed("a generated program", case.source)
        origin = "generated"
        try:
            disagreements = check_gradients(case)
            self.tally.gradient_checks += 1
        except Exception as exc:  # noqa: BLE001 - a valid program must run
            disagreements = [f"the library raised {type(exc).__name__}: {exc}"]
        for detail in disagreements:
            self.tally.failures.append(Failure("gradient", origin, ["(library)"], case.source, detail))
        names = list(case.used)
        wrt = ",".join(names[: int(self.rng.integers(1, len(names) + 1))]) if names else ""
        choices = [
            ["grad", "--wrt", wrt, "--json"], ["backward", "--json"], ["eval"], ["graph", "--tree"],
            ["jacobian", "--wrt", wrt], ["hessian", "--wrt", wrt, "--json"],
            ["gradcheck", "--no-sympy", "--json"], ["graph", "--format", "json", "--json"],
            ["grad", "--wrt", wrt, "--order", "2", "--json"], ["backward", "--steps", "--json"],
            ["graph", "--saved", "--values"], ["backward", "--create-graph", "--json"],
            ["gradcheck", "--no-sympy", "--order", "2", "--fast"], ["eval", "--json"],
        ]
        if self.rng.random() < 0.05:  # SymPy is slow to load and to run: now and then
            choices = [["grad", "--wrt", wrt, "--symbolic", "--json"], ["gradcheck", "--json"]]
        if not names:  # no gradient reaches any input (every path is through a zero rule)
            choices = [["eval", "--json"], ["graph", "--tree"], ["backward", "--json"]]
        if case.script_ok:
            choices.append(["run", "--json"])
        argv = self.choice(choices) + list(FUZZ_LIMITS)
        if argv[0] == "hessian":   # a backward pass (and its graph) per input element: tens of
            argv = argv[:-2]       # times a valid program's work, over 20,000 steps: the default
        argv, stdin = self.program_argv(case.source, argv)
        outcome = self.cli(argv, case.source, origin, stdin)
        if outcome.code not in (0, 1) and not outcome.timed_out:
            self.tally.failures.append(Failure("valid", origin, argv, case.source,
                                               f"a valid program failed with exit {outcome.code}: "
                                               f"{outcome.stderr.strip()[-600:]}"))
        elif argv[0] == "grad" and "--order" not in argv and outcome.code == 0 and not disagreements:
            self.compare_cli_grads(case, wrt.split(","), outcome)
        if self.rng.random() < 0.1 and case.used:
            self.points(case)

    def compare_cli_grads(self, case, wrt, outcome):
        """The CLI's `grad --json` agrees with the library's autograd.grad."""
        import gradcli.autograd as autograd
        from gradcli.lang import Limits, compile_program

        with np.errstate(all="ignore"):
            run = compile_program(case.source).run(requires_grad=wrt,
                                                   limits=Limits(10**6, 20000))
            out = run.values[case.output]
            leaves = [run.values[n] for n in wrt]
            grads = autograd.grad(out, leaves, allow_unused=True)
        doc = strict_json(outcome.stdout)
        for name, g in zip(wrt, grads):
            got = doc["grads"].get(name)
            want = None if g is None else g._data
            if want is None:
                continue
            got_array = np.array(_decode(got), dtype=float)
            if got_array.shape != want.shape or not np.allclose(got_array, want, rtol=1e-12,
                                                                 atol=1e-12, equal_nan=True):
                self.tally.failures.append(Failure("cli-vs-library", "generated", outcome.argv,
                                                   case.source, f"{name}: CLI {got} library {want}"))

    def points(self, case):
        """A --points stream with good and bad lines: one JSON line each, the run goes on."""
        good = json.dumps({k: v for k, v in case.leaves.items()})
        lines = [good, "not json", "[1, 2]", json.dumps({"nosuch": 1.0}), good,
                 json.dumps({next(iter(case.leaves)): "text"}), "{\"x\": NaN}", "", good]
        self.rng.shuffle(lines)
        path = os.path.join(self.workdir, "points.jsonl")
        with open(path, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        argv = ["grad", "-e", case.source, "--wrt", case.used[0], "--points", path,
                *FUZZ_LIMITS]
        outcome = self.cli(argv, case.source, "generated+points")
        count = sum(1 for line in lines if line.strip())
        got = [line for line in outcome.stdout.splitlines() if line.strip()]
        if len(got) != count:
            self.tally.failures.append(Failure("points", "generated", argv, case.source,
                                               f"{count} points, {len(got)} lines of output"))

    def mutated(self):
        """A damaged program: any answer is fine, as long as it is a clean one."""
        origin, program = self.mutator.mutant()
        self.tally.programs += 1
        base = list(self.choice(COMMANDS))
        if self.rng.random() < 0.6:
            base.append("--json")
        extra = list(self.choice(OPTIONS)) if self.rng.random() < 0.2 else []
        argv, stdin = self.program_argv(program, base + list(FUZZ_LIMITS) + extra)
        self.cli(argv, program, "mutant of " + origin, stdin)
        if isinstance(program, str) and self.rng.random() < 0.5:
            self.library(program, origin)

    def library(self, program, origin):
        """The library raises only gradcli's errors (never a bare Python one)."""
        from gradcli.errors import GradcliError
        from gradcli.lang import Limits, compile_program

        previous = signal.signal(signal.SIGVTALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_VIRTUAL, TIME_BOUND_S)
        try:
            with np.errstate(all="ignore"):
                run = compile_program(program).run(stdout=lambda line: None,
                                                   limits=Limits(10**6, 20000))
                if run.output is not None and hasattr(run.output, "backward") \
                        and getattr(run.output, "requires_grad", False):
                    run.output.sum().backward()
        except GradcliError:
            pass
        except FuzzTimeout:
            self.tally.failures.append(Failure("library", "mutant of " + origin, ["(library)"],
                                               program, f"no answer within {TIME_BOUND_S:.0f} s"))
        except RecursionError:
            self.tally.failures.append(Failure("library", "mutant of " + origin, ["(library)"],
                                               program, "RecursionError escaped the library"))
        except Exception as exc:  # noqa: BLE001 - what this looks for
            self.tally.failures.append(Failure("library", "mutant of " + origin, ["(library)"],
                                               program, f"{type(exc).__name__}: {exc}"))
        finally:
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            signal.signal(signal.SIGVTALRM, previous)

    def streams(self):
        """`gradcli eval` with a full or closed stream, as a real process: its exit code, and
        one line on stderr, never a traceback."""
        import subprocess
        import sys

        name, how, expected = self.choice(STREAMS)
        program = "-" if how.get("program") == "-" else None
        argv = ["eval", *(["-"] if program else ["-e", "x = 2.0\ny = x * x"])]
        redirect = ""
        if "stdout" in how:
            redirect += " >/dev/full" if how["stdout"] else " >&-"
        if "stdin" in how:
            redirect += " <&-"
        command = f"exec {sys.executable} -m gradcli {' '.join(map(shlex.quote, argv))}{redirect}"
        proc = subprocess.run(["bash", "-c", command], cwd=ROOT, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        self.tally.runs += 1
        self.tally.codes[proc.returncode] = self.tally.codes.get(proc.returncode, 0) + 1
        err = proc.stderr.decode(errors="replace")
        if proc.returncode != expected or "Traceback" in err or len(err.strip().splitlines()) > 1 \
                and expected == 2:
            self.tally.failures.append(Failure("streams", name, argv, "", f"exit {proc.returncode}, "
                                               f"expected {expected}; stderr: {err[-600:]}"))

    def round(self):
        draw = self.rng.random()
        if draw < 0.005:
            self.streams()
        elif draw < 0.4:
            self.generated()
        else:
            self.mutated()


def _decode(value):
    """JSON's "NaN"/"Infinity" strings back to floats."""
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[value]
    return value
