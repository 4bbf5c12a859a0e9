"""The questions the commands ask about a program run, as library functions.

Each takes a finished run (`gradcli.lang` result) and returns plain data: the
CLI only reads options, calls one of these and renders what it returns.
(`optable` answers `gradcli ops`, which asks about the op table instead of a run.)
"""
from __future__ import annotations

import numpy as np

from ..autograd import engine
from ..autograd.functional import _rows
from ..errors import LimitError, ProgramError, UsageError
from .hints import explained, place_of
from ..lang.runs import lookup, output_of, tensor_output, tensors
from .._tensor import Tensor, check_elements


def run_eval(run, of: str | None = None) -> tuple[str, dict]:
    """The output's name (or the one `--of` picks) and every named value of the run."""
    name, _ = output_of(run, of)
    return name, run.values


def as_gradient(spec, like: Tensor) -> Tensor | None:
    """A `--gradient`/`--grad-outputs` value: None, 'ones', a number or a nested list."""
    if spec is None:
        return None
    if isinstance(spec, str) and spec.strip() == "ones":
        return Tensor._make(np.ones_like(like._data, dtype=np.float64))
    if isinstance(spec, Tensor):
        return spec
    try:
        data = np.array(spec, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"--gradient: {spec!r} is not a number or a list of numbers") from exc
    return Tensor._make(data)


def check_gradient_shape(gradient: Tensor | None, out: Tensor, name: str, option: str) -> None:
    """A --gradient/--grad-outputs of another shape than the output is a wrong command line
    (exit 2), said in PyTorch's words with the shape to give."""
    if gradient is None or gradient._data.shape == out._data.shape:
        return
    want = list(out._data.shape)
    raise UsageError(f"{option}: Mismatch in shape: the gradient has shape "
                     f"{list(gradient._data.shape)} and the output {name!r} has shape {want}",
                     hint=f"give a value of shape {want} (such as {option} ones)")


# -- backward ------------------------------------------------------------------


# The answers below are plain classes, not dataclasses: making them cost each command ~3 ms
# at import, and nothing compares or prints them. No __slots__: a command adds attributes
# (`symbolic_filled`).


class Step:
    """One node run by backward: the gradient in, and what went out along each edge.

    Gradients are arrays (a tuple of them for a node with several outputs), or None.
    """

    def __init__(self, node: str, source: object, grad_in: object, edges: list | None = None,
                 variable: str | None = None, fn: object = None):
        self.node = node
        self.source = source
        self.grad_in = grad_in
        self.edges = [] if edges is None else edges  # (next node name or None, output_nr, grad, leaf name)
        self.variable = variable  # for AccumulateGrad: the leaf accumulated into
        self.fn = fn              # the node itself (the walk-through maps it to the graph)


class BackwardResult:
    def __init__(self, output_name: str, output: Tensor, grads: dict, why_none: dict,
                 steps: list | None = None, note: str | None = None, by_program=None):
        self.output_name = output_name
        self.output = output
        self.grads = grads        # name -> Tensor or None
        self.why_none = why_none  # name -> reason its .grad is None
        self.steps = steps
        self.note = note              # who computed the .grad values, when the program did
        self.by_program = by_program  # the span of the program's own backward call, if it made them


def why_no_grad(t: Tensor, reached: bool, left_out: bool = False) -> str | None:
    if not t.requires_grad:
        return "it does not require grad"
    if left_out:
        return "--inputs left it out"
    if not t.is_leaf and not t.retains_grad:
        return "it is not a leaf: call .retain_grad() on it to keep its gradient"
    if not reached:
        return "no path leads from the output to it"
    return None


def run_backward(run, of=None, gradient=None, inputs=None, retain_graph=False,
                 create_graph=False, steps=False) -> BackwardResult:
    from ..autograd.kept import differentiated

    name, out = tensor_output(run, of)
    grad_tensor = as_gradient(gradient, out)
    check_gradient_shape(grad_tensor, out, name, "--gradient")
    input_tensors = lookup(run, inputs, "--inputs", out) if inputs else None
    trace = [] if steps else None
    named = tensors(run, out)
    own = differentiated(getattr(run, "calls", ()), out)
    note = by_program = None
    if own is not None:
        where = _call_text(run, own.source)
        if gradient is None and not inputs and not steps and not create_graph:
            # the snippet's own `y.backward()` made the .grad values: report them, and do not
            # add a second backward's on top (issue 28.1)
            by_program = own.source
            note = (f"these are the .grad values the program's own {where} left (just after "
                    "its last run); gradcli did not call backward again")
        else:
            for t in named.values():
                if t.is_leaf and t.requires_grad:
                    t.grad = None
            note = (f"the program called {where} itself; these .grad values are gradcli's own "
                    f"{name}.backward() with the options given, from .grad = None")
    if by_program is None:
        with explained(run, name, out):
            engine.backward([out], None if grad_tensor is None else [grad_tensor],
                            retain_graph or None, create_graph, inputs=input_tensors, trace=trace)
    grads, why = {}, {}
    chosen = {id(t) for t in input_tensors or ()}
    left = own.grads if by_program is not None else None
    for key, t in named.items():
        # with --inputs, PyTorch accumulates into exactly those, non-leaves included
        if id(t) in chosen or (t.is_leaf and t.requires_grad) or t.retains_grad:
            grads[key] = t.grad if left is None else left.get(id(t), (None, None))[1]
            if left is not None and grads[key] is None and t.is_leaf:
                why[key] = f"the program's {where} did not reach it"
            elif grads[key] is None:
                left_out = input_tensors is not None and id(t) not in chosen
                why[key] = "no path leads from the output to it" if id(t) in chosen \
                    else why_no_grad(t, False, left_out)
        elif t.grad is None and t is not out:
            why[key] = why_no_grad(t, True)
            first = next((k for k in named if k.startswith(key + " (")), None)
            if first is not None and not t.is_leaf:
                why[key] = f"it is not a leaf (the leaf first bound to {key} is {first!r})"
    return BackwardResult(name, out, grads, why, _steps(trace, run, out) if steps else None,
                          note, by_program)


def _call_text(run, span) -> str:
    """`y.backward()` at 4:1: the program's line at a call's place, for a note."""
    if span is None:
        return "backward() call"
    lines = run.interpreter.program.source.splitlines()
    text = lines[span.line - 1].strip() if 0 < span.line <= len(lines) else ""
    if len(text) > 60:
        text = text[:57] + "..."
    return f"`{text}` (line {span.line})" if text else f"backward() call (line {span.line})"


def _steps(trace, run, out=None) -> list[Step]:
    """The trace as steps; an edge into a leaf names the leaf's variable."""
    names = {id(t): k for k, t in reversed(list(tensors(run, out).items()))}
    out = []
    for node, grad_in, grads in trace:
        leaf = getattr(node, "variable", None)
        step = Step(node.name(), node.source, _array(grad_in),
                    variable=None if leaf is None else names.get(id(leaf), "?"), fn=node)
        for (nxt, nr), g in zip(node.next_functions, grads or [None] * len(node.next_functions)):
            variable = getattr(nxt, "variable", None)
            step.edges.append((None if nxt is None else nxt.name(), nr, _array(g),
                               None if variable is None else names.get(id(variable), "?")))
        out.append(step)
    return out


def _array(g):
    """A gradient the engine passed (an array, a Tensor under create_graph, a list for several
    outputs) as an array, a tuple of arrays, or None."""
    if isinstance(g, Tensor):
        return g._data
    if isinstance(g, list):
        return tuple(_array(x) for x in g)
    return g


# -- grad, jacobian, hessian ------------------------------------------------------


class GradResult:
    def __init__(self, output_name: str, output: Tensor, wrt: list[str], order: int, grads: dict,
                 symbolic: dict | None = None, grad_outputs: Tensor | None = None):
        self.output_name = output_name
        self.output = output
        self.wrt = wrt
        self.order = order
        self.grads = grads        # name -> Tensor/None, nested `order` deep
        self.symbolic = symbolic  # the SymPy formulas, nested the same way (`grad --symbolic`)
        self.grad_outputs = grad_outputs  # order 1: the seed given (--grad-outputs)


# The highest --order: each order is one more level of nesting (of the passes, and of the
# answer's dicts and JSON); order 250 of a one-line program takes seconds, 500 overflows.
MAX_ORDER = 200


def derivatives(f: Tensor, xs: list[Tensor], order: int, create_graph: bool = False) -> list:
    """All `order`-th partial derivatives of f, nested: entry [i][j] has shape x_i.shape + x_j.shape."""
    level = _rows(f, xs, create_graph=order > 1 or create_graph)
    if order == 1:
        return level
    return [derivatives(d, xs, order - 1, create_graph) for d in level]


def run_grad(run, wrt: list[str], of=None, order: int = 1, grad_outputs=None,
             allow_unused=False, create_graph=False, command: str = "grad") -> GradResult:
    if order < 1:
        raise UsageError("--order must be 1 or more")
    name, out = tensor_output(run, of)
    xs = lookup(run, wrt, "--wrt", out)
    if order == 1:
        seed = as_gradient(grad_outputs, out)
        check_gradient_shape(seed, out, name, "--grad-outputs")
        with explained(run, name, out, wrt, "grad"):
            grads = engine.grad(out, xs, seed, create_graph=create_graph, allow_unused=allow_unused)
        return GradResult(name, out, list(wrt), 1, dict(zip(wrt, grads)), grad_outputs=seed)
    if out._data.size != 1:
        what = "hessian" if command == "hessian" else f"--order {order}"
        raise ProgramError(f"{what} needs a scalar output, and {name!r} has shape {list(out._data.shape)}",
                           place_of(run, name, out),
                           hint="reduce it in the program (e.g. .sum()), pick a scalar with --of NAME, "
                                "or use `gradcli jacobian`")
    # every N-th partial derivative: (elements of the inputs)^N numbers, one backward pass per
    # number of the order below; refused before the passes, as one tensor of that size would be
    n = sum(x._data.size for x in xs)
    if n > 1 and order * (n.bit_length() - 1) > 4096:  # n ** order is not even computed
        raise LimitError(f"--order {order} of {n} input elements has more than 2**4096 partial "
                         "derivatives", hint="ask for a lower --order")
    check_elements(n ** order)
    _check_passes(run, order if n <= 1 else (n ** order - 1) // (n - 1))
    if order > MAX_ORDER:  # (after the budget's refusals, which name the work)
        raise UsageError(f"--order {order} is more than the highest order gradcli computes, {MAX_ORDER}",
                         hint=f"each order nests the answer one level deeper: ask for --order "
                              f"{MAX_ORDER} or less")
    with explained(run, name, out, wrt, command):
        nested = derivatives(out.reshape(()), xs, order)
    return GradResult(name, out, list(wrt), order, _name_nested(nested, wrt))


def _name_nested(nested, names):
    if isinstance(nested, Tensor):
        return nested
    return {n: _name_nested(v, names) for n, v in zip(names, nested)}


class MatrixResult:
    def __init__(self, output_name: str, output: Tensor, wrt: list[str], blocks: dict):
        self.output_name = output_name
        self.output = output
        self.wrt = wrt
        self.blocks = blocks  # name -> Tensor (jacobian) or name -> name -> Tensor (hessian)


def _check_passes(run, passes: int) -> None:
    """One backward pass per row of a Jacobian: count them as steps of the run's budget."""
    budget = run.interpreter.max_steps - run.interpreter.steps
    if passes > budget:
        raise LimitError(f"this needs {passes} backward passes, more than the {budget} steps left "
                         f"of --max-steps {run.interpreter.max_steps}",
                         hint="raise the limit with --max-steps")


def run_jacobian(run, wrt: list[str], of=None, mode: str = "reverse", steps: bool = False) -> MatrixResult:
    """The Jacobian by rows (reverse mode: one backward pass per output element) or by
    columns (forward mode: the program re-run once per input element, that input made
    dual); "auto" takes the fewer passes and says which it took."""
    name, out = tensor_output(run, of)
    xs = lookup(run, wrt, "--wrt", out)
    n_in = sum(x._data.size for x in xs)
    chosen = mode
    if mode == "auto":
        chosen = "forward" if n_in < out._data.size else "reverse"
    if mode not in ("forward", "reverse", "auto"):
        raise UsageError(f"--mode must be forward, reverse or auto, not {mode!r}")
    if steps and chosen != "forward":
        raise UsageError("jacobian --steps shows forward-mode passes: add --mode forward",
                         hint="`gradcli backward FILE --steps` shows a backward pass")
    forward_steps = [] if steps else None
    if chosen == "forward":
        _check_passes(run, n_in)
        blocks = _forward_columns(run, name, out, wrt, xs, forward_steps)
    else:
        _check_passes(run, out._data.size)
        with explained(run, name, out, wrt, "jacobian"):
            blocks = _rows(out, xs, create_graph=False)
    result = MatrixResult(name, out, list(wrt), dict(zip(wrt, blocks)))
    result.forward_steps = forward_steps
    # zeros that come from no path in the graph, not from the arithmetic: the command says so
    result.unreached = [w for w, x in zip(wrt, xs) if not _depends(out, x)]
    result.mode = chosen
    result.mode_reason = None if mode != "auto" else (
        f"{n_in} input elements {'<' if chosen == 'forward' else '>='} {out._data.size} output elements")
    return result


def _depends(out: Tensor, x: Tensor, limit: int = 1_000_000) -> bool:
    """Whether `out`'s graph reaches `x` (its node, or its AccumulateGrad for a leaf)."""
    if out is x:
        return True
    target = x.grad_fn
    seen, stack = set(), [out.grad_fn]
    while stack and len(seen) < limit:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if node is target if target is not None else getattr(node, "variable", None) is x:
            return True
        stack.extend(nxt for nxt, _ in node.next_functions)
    return len(seen) >= limit   # too large to tell: say nothing


def _forward_columns(run, name: str, out: Tensor, wrt: list[str], xs: list, steps=None) -> list:
    """Forward-mode Jacobian blocks: one re-run of the program per input element, with the
    tangent e_j given to that input when it is assigned; column j is the output's tangent.
    With `steps` (a list), each pass's ops and the tangents they gave are appended to it
    as (input name, element index, [(op, source span, value, tangent)])."""
    from ..ops import dual

    interp = run.interpreter
    columns = [[] for _ in xs]
    for k, (x_name, x) in enumerate(zip(wrt, xs)):
        for j in range(x._data.size):
            basis = np.zeros(x._data.size)
            basis[j] = 1.0
            level = dual.enter_level(graph=False)
            dual.NAMED_TANGENTS.update({other: (level, basis.reshape(x._data.shape) if other == x_name
                                                else np.zeros(np.shape(y._data)))
                                        for other, y in zip(wrt, xs)})
            if steps is not None:
                dual.TRACE[0] = (level, [])
                steps.append((x_name, j, dual.TRACE[0][1]))
            try:
                again = interp.program.run(interp.overrides, stdout=lambda line: None, limits=interp.limits,
                                        script=interp.script)
                _, value = tensor_output(again, name if name in again.values else None)
                tangent = level.get(value)
                columns[k].append(np.zeros(out._data.shape) if tangent is None else tangent._data)
            finally:
                dual.TRACE[0] = None
                dual.NAMED_TANGENTS.clear()
                dual.exit_level(level)
    return [Tensor._make(np.stack(cols, axis=-1).reshape(out._data.shape + x._data.shape)
                         .astype(out._data.dtype, copy=False)) for cols, x in zip(columns, xs)]


def run_hessian(run, wrt: list[str], of=None) -> MatrixResult:
    """Forward over reverse when it is cheaper (answers/forward_hessian.py), else reverse over
    reverse (`--order 2`)."""
    from .forward_hessian import hessian_blocks

    name, out = tensor_output(run, of)
    xs = lookup(run, wrt, "--wrt", out)
    blocks = hessian_blocks(run, name, out, list(wrt), xs)
    if blocks is not None:
        return MatrixResult(name, out, list(wrt), blocks)
    result = run_grad(run, wrt, of=of, order=2, command="hessian")
    return MatrixResult(result.output_name, result.output, result.wrt, result.grads)
