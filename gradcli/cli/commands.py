"""The value and derivative commands: eval, backward, grad, jacobian, hessian, run, ops.

Each reads its options, calls one function of `gradcli.queries` through
`drive`, and gives the result to a JSON or a human renderer.
"""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..render import jsonout
from .common import (Common, Expr, File, Json, MaxElements, MaxSteps, Of, Points, Set, Wrt,
                     drive, names, stdout_console)

J = jsonout.value


def _output_json(name, out):
    return {"name": name, "value": J(out)}


def _common(file, expr, of, sets, json, points, max_elements, max_steps):
    return Common(file, expr, of, sets, json, points, max_elements, max_steps)


def eval_cmd(file: File = None, expr: Expr = None, of: Of = None, set: Set = None, json: Json = False,
             points: Points = None, max_elements: MaxElements = 10**8, max_steps: MaxSteps = 10**6):
    """Forward values of every named tensor.

    Example: gradcli eval -e 'x = 2.0; y = 3.0; z = x * x * y'
    """
    from .. import queries

    def answer(run):
        name, _ = queries.output_of(run, of)
        return name, {k: v for k, v in run.values.items() if jsonout.is_value(v)}

    def to_json(result):
        name, values = result
        return {"output": name, "values": {k: J(v) for k, v in values.items()}}

    def human(result):
        from ..render.human import eval_table

        name, values = result
        console = stdout_console()
        console.print(eval_table(values))
        console.print(f"output: {name}")

    drive(_common(file, expr, of, set, json, points, max_elements, max_steps), answer, to_json, human)


def backward_cmd(
    file: File = None, expr: Expr = None, of: Of = None, set: Set = None, json: Json = False,
    points: Points = None, max_elements: MaxElements = 10**8, max_steps: MaxSteps = 10**6,
    gradient: Annotated[Optional[str], typer.Option("--gradient", help="The gradient argument: ones or a value such as [0.4, 0.6].")] = None,
    inputs: Annotated[Optional[str], typer.Option("--inputs", help="Accumulate only into these (comma-separated).")] = None,
    retain_graph: Annotated[bool, typer.Option("--retain-graph")] = False,
    create_graph: Annotated[bool, typer.Option("--create-graph")] = False,
    steps: Annotated[bool, typer.Option("--steps", help="Print every backward step.")] = False,
    detect_anomaly: Annotated[bool, typer.Option("--detect-anomaly", help="Stop at the first NaN a backward node produces.")] = False,
):
    """Run output.backward() and show the .grad of every leaf.

    Example: gradcli backward -e 'x = 2.0; y = 3.0; z = x * x * y'
    """
    from .. import queries
    from .common import parse_value

    grad_spec = gradient if gradient in (None, "ones") else parse_value(gradient, "--gradient")
    input_names = names(inputs, "--inputs") if inputs is not None else None

    def answer(run):
        return queries.run_backward(run, of, grad_spec, input_names, retain_graph, create_graph, steps)

    def to_json(r):
        doc = {"output": _output_json(r.output_name, r.output),
               "grads": {k: J(v) for k, v in r.grads.items()}}
        if r.why_none:
            doc["why_none"] = r.why_none
        if r.steps is not None:
            doc["steps"] = [_step_json(s) for s in r.steps]
        return doc

    def human(r):
        from ..render.human import grads_table, show

        console = stdout_console()
        console.print(f"output {r.output_name} = {show(r.output)}")
        if r.steps is not None:
            lines = []  # printed in blocks: one console.print per line cost ~1 ms each
            for i, s in enumerate(r.steps, 1):
                where = f" at {s.source[0]}:{s.source[1]}" if s.source else ""
                if s.variable is not None:
                    lines.append(f"step {i}: {s.node}: {s.variable}.grad += {show(_t(s.grad_in))}")
                    continue
                lines.append(f"step {i}: {s.node}{where}  grad in: {show(_t(s.grad_in))}")
                for node, nr, g, var in s.edges:
                    target = "None" if node is None else (f"{node} ({var})" if var is not None else node)
                    lines.append(f"    -> ({target}, {nr}): {show(_t(g)) if g is not None else '-'}")
            for start in range(0, len(lines), 256):  # (rich splits a text in O(lines^2))
                console.print("\n".join(lines[start:start + 256]))
        console.print(grads_table(r.grads, r.why_none))
        by_reason = {}
        for name, reason in r.why_none.items():
            if name not in r.grads:
                by_reason.setdefault(reason, []).append(name)
        for reason, group in by_reason.items():
            console.print(f"no .grad for {', '.join(group)}: {reason}")

    from ..autograd import anomaly

    with anomaly.detect_anomaly_if(detect_anomaly):
        drive(_common(file, expr, of, set, json, points, max_elements, max_steps), answer, to_json, human)


def _t(g):
    from .._tensor import Tensor

    if g is None or isinstance(g, Tensor):
        return g
    if isinstance(g, list):
        return tuple(_t(x) for x in g)
    return Tensor._make(g)


def _step_json(s):
    return {"node": s.node,
            **({"variable": s.variable} if s.variable is not None else {}),
            "source": f"{s.source[0]}:{s.source[1]}" if s.source else None,
            "grad_in": J(_t(s.grad_in)),
            "edges": [{"next": node, "index": nr, "grad": J(_t(g)) if g is not None else None,
                       **({"variable": var} if var is not None else {})}
                      for node, nr, g, var in s.edges]}


def grad_cmd(
    file: File = None, expr: Expr = None, of: Of = None, set: Set = None, json: Json = False,
    points: Points = None, max_elements: MaxElements = 10**8, max_steps: MaxSteps = 10**6,
    wrt: Wrt = None,
    order: Annotated[int, typer.Option("--order", help="The order of the derivative (N >= 2 needs a scalar output).")] = 1,
    grad_outputs: Annotated[Optional[str], typer.Option("--grad-outputs", help="ones or a value.")] = None,
    allow_unused: Annotated[bool, typer.Option("--allow-unused")] = False,
    symbolic: Annotated[bool, typer.Option("--symbolic", help="Also print each derivative's SymPy formula.")] = False,
):
    """autograd.grad of the output with respect to --wrt; --order N for higher order.

    Example: gradcli grad -e 'x = 3.0; y = x**2 * sin(x)' --wrt x
    """
    from .. import queries
    from .common import parse_value

    if wrt is None:
        raise typer.BadParameter("Missing option '--wrt'.", param_hint="--wrt")
    wrt_names = names(wrt, "--wrt")
    seed = grad_outputs if grad_outputs in (None, "ones") else parse_value(grad_outputs, "--grad-outputs")

    def answer(run):
        result = queries.run_grad(run, wrt_names, of, order, seed, allow_unused)
        if symbolic:
            from ..check.symbolic import symbolic_derivatives

            result.symbolic = symbolic_derivatives(run, result)
        return result

    def to_json(r):
        doc = {"output": _output_json(r.output_name, r.output), "order": r.order, "wrt": r.wrt,
               "grads": _nested_json(r.grads)}
        if getattr(r, "symbolic", None) is not None:
            doc["symbolic"] = r.symbolic
        return doc

    def human(r):
        from ..render.human import nested_rows, show, table

        console = stdout_console()
        console.print(f"output {r.output_name} = {show(r.output)}")
        t = table("derivative", "value")
        sym = getattr(r, "symbolic", None) or {}
        if sym:
            t.add_column("formula")
        for path, value in nested_rows(r.grads):
            label = _label(r.output_name, path)
            row = [label, show(value)]
            if sym:
                row.append(str(_dig(sym, path) or ""))
            t.add_row(*row)
        console.print(t)

    drive(_common(file, expr, of, set, json, points, max_elements, max_steps), answer, to_json, human,
          requires_grad=tuple(wrt_names))


def _dig(d, path):
    for p in path:
        if not isinstance(d, dict):
            return None
        d = d.get(p)
    return d


def _label(out, path):
    n = len(path)
    top = "d" if n == 1 else f"d{_sup(n)}"
    bottom = " ".join(f"d{p}" for p in path)
    return f"{top}{out}/{bottom}"


def _sup(n):
    return str(n).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _nested_json(d):
    if isinstance(d, dict):
        return {k: _nested_json(v) for k, v in d.items()}
    return J(d)


def jacobian_cmd(
    file: File = None, expr: Expr = None, of: Of = None, set: Set = None, json: Json = False,
    points: Points = None, max_elements: MaxElements = 10**8, max_steps: MaxSteps = 10**6,
    wrt: Wrt = None,
):
    """The full Jacobian of a tensor output: shape output.shape + x.shape for each x.

    Example: gradcli jacobian -e 'x = [2., 3.]; y = x * x' --wrt x
    """
    from .. import queries

    if wrt is None:
        raise typer.BadParameter("Missing option '--wrt'.", param_hint="--wrt")
    wrt_names = names(wrt, "--wrt")

    def answer(run):
        return queries.run_jacobian(run, wrt_names, of)

    def to_json(r):
        return {"output": _output_json(r.output_name, r.output), "wrt": r.wrt,
                "jacobian": {k: J(v) for k, v in r.blocks.items()}}

    def human(r):
        from ..render.human import show

        console = stdout_console()
        console.print(f"output {r.output_name} = {show(r.output)}")
        for name, block in r.blocks.items():
            console.print(f"d{r.output_name}/d{name}  shape {list(block._data.shape)}")
            console.print(show(block))

    drive(_common(file, expr, of, set, json, points, max_elements, max_steps), answer, to_json, human,
          requires_grad=tuple(wrt_names))


def hessian_cmd(
    file: File = None, expr: Expr = None, of: Of = None, set: Set = None, json: Json = False,
    points: Points = None, max_elements: MaxElements = 10**8, max_steps: MaxSteps = 10**6,
    wrt: Wrt = None,
):
    """All second partial derivatives of a scalar output.

    Example: gradcli hessian -e 'x = 2.0; y = 3.0; z = x * x * y' --wrt x,y
    """
    from .. import queries

    if wrt is None:
        raise typer.BadParameter("Missing option '--wrt'.", param_hint="--wrt")
    wrt_names = names(wrt, "--wrt")

    def answer(run):
        return queries.run_hessian(run, wrt_names, of)

    def to_json(r):
        return {"output": _output_json(r.output_name, r.output), "wrt": r.wrt,
                "hessian": _nested_json(r.blocks)}

    def human(r):
        from ..render.human import show, table

        console = stdout_console()
        console.print(f"output {r.output_name} = {show(r.output)}")
        t = table("", *r.wrt)
        for a in r.wrt:
            t.add_row(a, *[show(r.blocks[a][b]) for b in r.wrt])
        console.print(t)

    drive(_common(file, expr, of, set, json, points, max_elements, max_steps), answer, to_json, human,
          requires_grad=tuple(wrt_names))


def run_cmd(
    file: File = None, expr: Expr = None, set: Set = None, json: Json = False,
    max_elements: MaxElements = 10**8, max_steps: MaxSteps = 10**6,
    detect_anomaly: Annotated[bool, typer.Option("--detect-anomaly", help="Stop at the first NaN a backward node produces.")] = False,
):
    """Run the program as a PyTorch script: what it prints goes to standard output.

    Example: gradcli run samples/training.py
    """
    import sys

    printed = []

    def out(line):
        printed.append(line)
        if not json:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def answer(run):
        return run

    def to_json(run):
        from .._tensor import Tensor

        values = {k: J(v) for k, v in run.values.items() if jsonout.is_value(v)}
        grads = {k: J(v.grad) for k, v in run.values.items() if isinstance(v, Tensor) and v.grad is not None}
        return {"printed": printed, "values": values, "grads": grads}

    opts = Common(file, expr, None, set, json, None, max_elements, max_steps)
    from ..autograd import anomaly

    with anomaly.detect_anomaly_if(detect_anomaly):
        drive(opts, answer, to_json, lambda run: None, script=True, printer=out)


def ops_cmd(json: Json = False):
    """The built-in ops: name, backward node, derivative formula per input.

    Example: gradcli ops
    """
    from ..ops import OPS
    from ..render.jsonout import dumps

    rows = []
    for op in OPS.values():
        if not op.differentiable:
            continue
        rows.append({"name": op.name, "node": op.node, "inputs": list(op.inputs),
                     "formulas": {i: f for i, f, r in zip(op.inputs, op.formulas, op.rules) if r is not None}})
    if json:
        print(dumps({"ops": rows}))
        return
    from ..render.human import table

    t = table("op", "node", "input", "derivative")
    for row in rows:
        first = True
        for inp, formula in row["formulas"].items():
            t.add_row(row["name"] if first else "", row["node"] if first else "", inp, formula)
            first = False
    stdout_console().print(t)
