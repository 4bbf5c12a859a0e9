"""`--points` in one run: a program whose control flow no input decides, run once on the
vector of all the points, each point's answer then taken out of the vectors.

Element i of every tensor goes through the same ops, with the same numbers, as the run of
point i alone would (the ops are elementwise, each input a vector of the points' numbers),
so the answers are bit-equal to one run per point. What may differ is refused up front
(`batchable`, a static check) or afterwards (the CLI compares the first point of every
batch with its own run, and runs the batch point by point on any difference or error):

- the program: assignments of elementwise arithmetic on scalars (sampling's `_elementwise`:
  numbers, names, + - * / **, the elementwise functions), `+=`-style updates, and `for`
  loops over `range` of integer literals; no condition, call of anything else, indexing,
  list, print or random number, so no value decides what runs and no point meets another;
- every input a scalar, each one a vector of the points' values (an input no point sets
  repeats its value), so no gradient is summed over the points and no 0-d tensor changes
  type promotion;
- the answer: each command's own function (`queries`) where it is elementwise (eval,
  backward, grad at order 1), else its mirror here (`_rows`: a seed of ones for the one
  output element of each point; the Jacobian's and the N-th derivative's stack and reshape
  only move numbers, so they are left out).
"""
from __future__ import annotations

import numpy as np

from ..autograd import engine
from .._tensor import Tensor
from . import queries
from .hints import explained
from ..lang.runs import lookup, tensor_output


class Refused(Exception):
    """This command or option has no batched answer: the points run one by one."""


# -- the program ------------------------------------------------------------------


def batchable(program) -> bool:
    """Whether one run on vectors of the inputs gives every point what its own run gives
    (see the module's docstring); the inputs are scalar literals assigned once."""
    from ..lang import nodes as n
    from ..lang.builtins import CONSTANTS
    from .sampling import _elementwise, _number_exponents, _scalar_literal

    if program.is_pytorch:
        return False
    inputs = set(program.input_names)
    body = program.module.body
    assigned: set = set()
    seen_inputs: set = set()
    # walk in program order: a name must be assigned before it is read
    stack = [(stmt, True, k == len(body) - 1) for k, stmt in reversed(list(enumerate(body)))]
    while stack:
        stmt, top, last = stack.pop()
        cls = stmt.__class__
        if cls is n.Assign and len(stmt.targets) == 1 and stmt.targets[0].__class__ is n.Name:
            target = stmt.targets[0].id
            site = program.input_sites.get(id(stmt)) if top else None
            if site is not None:
                if site[0] != "literal" or target in seen_inputs or target in assigned \
                        or not _scalar_literal(stmt.value, n):
                    return False
                seen_inputs.add(target)
            elif target in inputs or not _elementwise(stmt.value, assigned, CONSTANTS, n) \
                    or not _number_exponents(stmt.value, n):
                return False
            assigned.add(target)
        elif cls is n.AugAssign and stmt.target.__class__ is n.Name and stmt.op in ("+", "-", "*", "/"):
            target = stmt.target.id
            if target in inputs or target not in assigned \
                    or not _elementwise(stmt.value, assigned, CONSTANTS, n) \
                    or not _number_exponents(stmt.value, n):
                return False
        elif cls is n.For and stmt.target.__class__ is n.Name and not stmt.orelse \
                and _literal_range(stmt.iter, assigned, n):
            if stmt.target.id in inputs:
                return False
            assigned.add(stmt.target.id)
            stack.extend((s, False, False) for s in reversed(stmt.body))
        elif cls is n.Pass:
            continue
        elif cls is n.ExprStmt and top and last:
            if not _elementwise(stmt.value, assigned, CONSTANTS, n) or not _number_exponents(stmt.value, n):
                return False
        else:
            return False
    return bool(seen_inputs)


def _literal_range(node, assigned: set, n) -> bool:
    """`range(a)`, `range(a, b)` or `range(a, b, c)` of integer literals."""
    func = getattr(node, "func", None)
    if node.__class__ is not n.Call or func.__class__ is not n.Name or func.id != "range" \
            or "range" in assigned or node.keywords or not 1 <= len(node.args) <= 3:
        return False
    for arg in node.args:
        if arg.__class__ is n.UnaryOp and arg.op == "-":
            arg = arg.operand
        if arg.__class__ is not n.Num or arg.value.__class__ is not int:
            return False
    return True


# -- the inputs -------------------------------------------------------------------


def point_number(value):
    """A point's value as its own run turns it into a tensor's number (`_to_float`), or
    None when it is not one number (a list; an int too large for a float)."""
    if value.__class__ is float:
        return value
    if value.__class__ is int:
        try:
            return float(value)
        except OverflowError:
            return None
    return None


def input_defaults(run, program) -> dict | None:
    """{input: its number} of a run with no point set, or None if one is not a scalar tensor."""
    out = {}
    for name in program.input_names:
        value = run.values.get(name)
        if not isinstance(value, Tensor) or value._data.shape != ():
            return None
        out[name] = float(value._data)
    return out


def overrides(points: list, defaults: dict) -> dict:
    """Each input as the list of its numbers at the points."""
    return {name: [p.get(name, d) for p in points] for name, d in defaults.items()}


# -- the answers ------------------------------------------------------------------


def _seed(spec, out: Tensor) -> Tensor:
    """The seed of one backward per point: 1 (of the output's dtype, as the engine makes it
    for a scalar output) or the number given (float64, as `queries.as_gradient` makes it)."""
    if spec is None:
        return Tensor._make(np.ones(out._data.shape, dtype=out._data.dtype))
    if isinstance(spec, str) and spec.strip() == "ones":
        return Tensor._make(np.ones(out._data.shape, dtype=np.float64))
    if isinstance(spec, (int, float)) and not isinstance(spec, bool):
        return Tensor._make(np.full(out._data.shape, spec, dtype=np.float64))
    raise Refused("a gradient that is not one number")


def _batched_output(run, of, size: int) -> tuple:
    name, out = tensor_output(run, of)
    if out._data.shape != (size,):
        raise Refused("the output does not depend on the points")
    return name, out


def backward(run, size: int, of, gradient, inputs, retain_graph, create_graph, steps):
    if steps:
        raise Refused("--steps")
    _, out = _batched_output(run, of, size)
    result = queries.run_backward(run, of, _seed(gradient, out), inputs, retain_graph, create_graph)
    if result.by_program is not None or result.note is not None:
        raise Refused("the program's own backward")
    return result


def grad(run, size: int, wrt: list, of, order: int, grad_outputs, allow_unused):
    name, out = _batched_output(run, of, size)
    if order == 1:
        result = queries.run_grad(run, wrt, of, 1, _seed(grad_outputs, out), allow_unused)
        result.grad_outputs = None if grad_outputs is None else queries.as_gradient(grad_outputs, out)
        return result
    return _higher(run, size, wrt, of, order, "grad")


def _higher(run, size: int, wrt: list, of, order: int, command: str) -> queries.GradResult:
    """`queries.run_grad` at order >= 2, point by point in one pass per derivative."""
    if order > queries.MAX_ORDER or order < 1:
        raise Refused("the order's error")
    name, out = _batched_output(run, of, size)
    xs = lookup(run, wrt, "--wrt", out)
    n = len(xs)  # each input one element at each point
    queries._check_passes(run, order if n <= 1 else (n ** order - 1) // (n - 1))
    with explained(run, name, out, wrt, command):
        nested = _derivatives(out, xs, order)
    return queries.GradResult(name, out, list(wrt), order, queries._name_nested(nested, wrt))


def _derivatives(f: Tensor, xs: list, order: int, create_graph: bool = False) -> list:
    level = _rows(f, xs, create_graph=order > 1 or create_graph)
    if order == 1:
        return level
    return [_derivatives(d, xs, order - 1, create_graph) for d in level]


def _rows(output: Tensor, xs: list, create_graph: bool) -> list:
    """`functional.jacobian_blocks` of a scalar output at every point: its one backward pass,
    seeded with 1 in the output's dtype, on all the points at once."""
    if output.requires_grad:
        seed = Tensor._make(np.ones(output._data.shape, dtype=output._data.dtype))
        grads = engine.grad(output, xs, seed, retain_graph=True, create_graph=create_graph,
                            allow_unused=True)
    else:
        grads = (None,) * len(xs)
    blocks = []
    for g, x in zip(grads, xs):
        if g is None:
            g = Tensor._make(np.zeros_like(x._data))
        elif g._data.shape != x._data.shape:
            raise Refused("a derivative that is not one number per point")
        blocks.append(g)
    return blocks


def jacobian(run, size: int, wrt: list, of, mode: str):
    if mode not in ("reverse", "auto"):
        raise Refused("forward mode")
    name, out = _batched_output(run, of, size)
    xs = lookup(run, wrt, "--wrt", out)
    queries._check_passes(run, 1)
    with explained(run, name, out, wrt, "jacobian"):
        blocks = _rows(out, xs, create_graph=False)
    result = queries.MatrixResult(name, out, list(wrt), dict(zip(wrt, blocks)))
    result.mode = "reverse"
    result.mode_reason = None if mode != "auto" else f"{len(xs)} input elements >= 1 output elements"
    return result


def hessian(run, size: int, wrt: list, of):
    result = _higher(run, size, wrt, of, 2, "hessian")
    return queries.MatrixResult(result.output_name, result.output, result.wrt, result.grads)


# -- one point's answer -------------------------------------------------------------


def points_of(result, size: int) -> list:
    """The answer of each point: every tensor of `result` with one number per point replaced
    by that point's number (a 0-d tensor of the same dtype, a view); the rest shared."""
    fixed, make = _plan(result, size, 0)
    return [result] * size if fixed else [make(i) for i in range(size)]


def nan_points(result, size: int) -> np.ndarray:
    """Whether the answer of each point holds a NaN (where a command adds its hint)."""
    found = np.zeros(size, dtype=bool)
    stack = [(result, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, Tensor):
            if v._data.dtype.kind in "fc":
                found |= np.isnan(v._data) if v._data.shape == (size,) else bool(np.isnan(v._data).any())
        elif isinstance(v, dict) and depth < 64:
            stack.extend((x, depth + 1) for x in v.values())
        elif isinstance(v, (list, tuple)) and depth < 64:
            stack.extend((x, depth + 1) for x in v)
        elif isinstance(v, _RESULTS):
            stack.extend((x, depth + 1) for x in vars(v).values())
    return found


_RESULTS = (queries.BackwardResult, queries.GradResult, queries.MatrixResult)


def _plan(v, size: int, depth: int) -> tuple:
    """(True, None) for a value every point shares, else (False, make) with make(i) the
    value at point i."""
    if depth > 64:
        raise Refused("an answer nested too deeply")
    if isinstance(v, Tensor):
        data = v._data
        if data.shape == ():
            return True, None
        if data.shape != (size,):
            raise Refused("a tensor of another shape")
        rows, requires_grad, wrap = data.reshape(size, 1), v.requires_grad, Tensor._make
        return False, lambda i: wrap(rows[i].reshape(()), requires_grad=requires_grad)
    if isinstance(v, dict):
        parts = [(k, x, _plan(x, size, depth + 1)) for k, x in v.items()]
        if all(fixed for _, _, (fixed, _) in parts):
            return True, None
        makers = [(k, (lambda i, x=x: x) if fixed else make) for k, x, (fixed, make) in parts]
        return False, lambda i: {k: make(i) for k, make in makers}
    if isinstance(v, (list, tuple)):
        parts = [(x, _plan(x, size, depth + 1)) for x in v]
        if all(fixed for _, (fixed, _) in parts):
            return True, None
        makers = [(lambda i, x=x: x) if fixed else make for x, (fixed, make) in parts]
        kind = type(v) if type(v) in (list, tuple) else None
        if kind is None:
            raise Refused(f"an answer holding a {type(v).__name__}")
        return False, lambda i: kind(make(i) for make in makers)
    if isinstance(v, _RESULTS):
        fixed, make = _plan(vars(v), size, depth + 1)
        if fixed:
            return True, None
        cls = type(v)

        def made(i):
            out = cls.__new__(cls)
            out.__dict__.update(make(i))
            return out
        return False, made
    if v is None or isinstance(v, (bool, int, float, str)):
        return True, None
    raise Refused(f"an answer holding a {type(v).__name__}")
