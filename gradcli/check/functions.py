"""Which custom Function's backward is wrong, and which gradient it returns wrongly.

A program's gradcheck compares the whole output's derivatives; when a custom
`autograd.Function` is in the graph, the mistake is usually one line of its
`backward`. `find_culprits` checks each application of each Function on its own,
at the arguments it was applied to in the run: its `backward`'s returned gradients
(one per argument of `forward`) against central differences of its `forward`,
for a fixed grad_output (ones for a one-element output, else a seeded vector that
the report shows). It names the class, `backward`'s place, the position and the
`forward` parameter of the first wrong gradient, and the element where it is wrong.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..autograd import engine
from ..autograd.function import FunctionCtx
from ..autograd.gradcheck import mismatch
from ..errors import GradcliError
from ..graph import nodes as _graph
from .._tensor import Tensor, enable_grad, no_grad

MAX_ELEMENTS = 2_000  # per argument: past this, the first elements only (each costs 2 forwards)


@dataclass
class Culprit:
    """A returned gradient of a custom Function's backward that its forward contradicts."""

    cls: str
    file: str
    backward_line: int | None   # the `def backward` line
    return_line: int | None     # the line of its `return` (one return statement)
    position: int               # which returned gradient (0-based): the forward argument's place
    parameter: str | None       # forward's name for that argument
    element: list
    analytical: float
    expected: float
    grad_output: object = None  # the grad_output used when the output has several elements

    def where(self) -> str:
        line = self.return_line or self.backward_line
        return f"{self.file}:{line}" if line else self.file

    def text(self) -> str:
        which = f"gradient {self.position}" + (f" (for {self.parameter!r})" if self.parameter else "")
        at = f"[{', '.join(map(str, self.element))}]"
        seed = "" if self.grad_output is None else f" (grad_output {self.grad_output})"
        return (f"{self.cls}.backward ({self.where()}) returns a wrong {which}\n"
                f"  element {at}: {self.analytical:.6g}; the central differences of "
                f"{self.cls}.forward give {self.expected:.6g}{seed}")


@dataclass
class Unchecked:
    """A custom Function the run applied whose result the checked output does not use: its
    backward is no part of the check (PyTorch's gradcheck would pass it as silently)."""

    cls: str
    applied: str             # FILE:LINE of the first such application
    output: str              # the checked output
    holder: str | None       # a name of the program's that holds its result (--of NAME)

    def text(self) -> str:
        instead = (f"; gradcheck --of {self.holder} checks it" if self.holder
                   else "; name its result and check that with --of NAME")
        return (f"{self.cls} (applied at {self.applied}) is not used by {self.output}: "
                f"its backward is not checked{instead}")


def unchecked_functions(tape, filename: str, output: str, named: dict) -> list:
    """One Unchecked per custom Function class applied in the run (and still held) whose
    applications all lie off the output's graph. `named`: the program's tensors by name."""
    on_path = {node._cls for node in tape.order if isinstance(node, FunctionCtx)}
    held = {}   # class -> a name holding the result of one of its applications
    for name, t in named.items():
        node = t.grad_fn
        if isinstance(node, FunctionCtx):
            held.setdefault(node._cls, name)
    found = []
    for cls, source in getattr(tape.notes, "applied", {}).items():
        if cls not in on_path:
            line = source.line if source is not None else None
            found.append(Unchecked(cls.__name__, f"{filename}:{line}" if line else filename, output,
                                   held.get(cls)))
    return found


def find_culprits(tape, filename: str, eps: float, atol: float, rtol: float, seed: int = 0) -> list:
    """One Culprit per custom Function class whose backward is wrong at a point of the run."""
    found, seen = [], set()
    for node in tape.order:
        if not isinstance(node, FunctionCtx) or node._cls in seen or node not in tape.notes:
            continue
        try:
            culprit = _check_application(node, tape.notes[node], filename, eps, atol, rtol, seed)
        except (GradcliError, ValueError, TypeError, ArithmeticError):
            continue  # a Function that cannot be applied alone: the whole-program check stands
        if culprit is not None:
            seen.add(node._cls)
            found.append(culprit)
    return found


def _check_application(node, note, filename, eps, atol, rtol, seed):
    cls = node._cls
    args, kwargs = note
    args = list(args)
    checked = []  # (position in forward's arguments, the leaf put there)
    for pos in node._tensor_positions:
        a = args[pos]
        if isinstance(a, Tensor) and a.requires_grad and a._data.dtype.kind == "f":
            leaf = Tensor(np.array(a._data, dtype=np.float64), requires_grad=True)
            args[pos] = leaf
            checked.append((pos, leaf))
    if not checked:
        return None
    before = _graph._current_source[0]
    _graph.set_current_source(node.source)
    try:
        with enable_grad():
            outs = _outputs(cls.apply(*args, **kwargs))
        # grad_output ones first (the numbers are then those of the output's sum); a random
        # one next, which finds a mistake ones can hide, shown in the report
        rng = np.random.default_rng(seed)
        for seeds in ([np.ones(o._data.shape) for o in outs],
                      [rng.uniform(-1.0, 1.0, o._data.shape) for o in outs]):
            culprit = _compare(cls, node, args, kwargs, checked, outs, seeds, filename, eps, atol, rtol)
            if culprit is not None or all(o._data.size == 1 for o in outs):
                return culprit
    finally:
        _graph.set_current_source(before)
    return None


def _compare(cls, node, args, kwargs, checked, outs, seeds, filename, eps, atol, rtol):
    """The first wrong returned gradient for grad_output `seeds`, as a Culprit, or None."""
    used = [(o, v) for o, v in zip(outs, seeds) if o.requires_grad]
    if not used:
        return None
    grads = engine.grad([o for o, _ in used], [leaf for _, leaf in checked],
                        [Tensor._make(v) for _, v in used], allow_unused=True)

    def f(values):
        with no_grad():
            result = _outputs(cls.apply(*values, **kwargs))
        return sum(float(np.sum(v * r._data)) for r, v in zip(result, seeds))

    for (pos, leaf), g in zip(checked, grads):
        analytical = np.zeros(leaf._data.size) if g is None else np.asarray(g._data, float).reshape(-1)
        n = min(leaf._data.size, MAX_ELEMENTS)
        reference = np.empty(n)
        for j in range(n):
            values = list(args)
            plus = leaf._data.copy().reshape(-1)
            minus = plus.copy()
            plus[j] += eps
            minus[j] -= eps
            values[pos] = Tensor._make(plus.reshape(leaf._data.shape))
            up = f(values)
            values[pos] = Tensor._make(minus.reshape(leaf._data.shape))
            reference[j] = (up - f(values)) / (2 * eps)
        bad = mismatch(analytical[:n], reference, atol, rtol)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            shown = None
            if any(v.size > 1 for v in seeds):
                shown = [np.round(v, 4).tolist() for v in seeds]
                shown = shown[0] if len(shown) == 1 else shown
                if all((v == 1).all() for v in seeds):
                    shown = "ones"
            return Culprit(cls.__name__, filename, *_lines(cls), pos, _parameter(cls, pos),
                           [int(i) for i in np.unravel_index(j, leaf._data.shape)],
                           float(analytical[j]), float(reference[j]), shown)
    return None


def _outputs(out) -> list:
    return [o for o in (out if isinstance(out, tuple) else (out,)) if isinstance(o, Tensor)]


def _closure(cls, name: str):
    """The program's def behind a Function's staticmethod (None if it is something else)."""
    member = cls.__dict__.get(name)
    func = getattr(member, "__func__", member)
    node = getattr(func, "node", None)
    return node if getattr(node, "params", None) is not None else None


def _lines(cls) -> tuple:
    node = _closure(cls, "backward") or _closure(cls, "vjp")
    if node is None:
        return None, None
    from ..lang import nodes as n

    returns = [stmt for stmt in _walk(node.body) if stmt.__class__ is n.Return]
    return node.span[0], returns[0].span[0] if len(returns) == 1 else None


def _walk(body):
    stack = list(body)
    while stack:
        stmt = stack.pop()
        yield stmt
        for attr in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, attr, None)
            if isinstance(inner, list):
                stack.extend(inner)
        for _, branch in getattr(stmt, "branches", ()) or ():
            stack.extend(branch)


def _parameter(cls, position: int) -> str | None:
    """forward's name for its argument `position` (after ctx, unless setup_context is used)."""
    node = _closure(cls, "forward")
    if node is None:
        return None
    names = [p.name for p in node.params.args]
    uses_ctx = "setup_context" not in cls.__dict__
    names = names[1:] if uses_ctx else names
    return names[position] if position < len(names) else None
