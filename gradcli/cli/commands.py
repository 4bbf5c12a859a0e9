"""The value and derivative commands: eval, backward, grad, jacobian, hessian, run, ops.

Each reads its options, calls one function of `gradcli.answers.queries` through
`drive`, and gives the result to its renderer in `gradcli.render`.
"""
from __future__ import annotations

import sys
from typing import Annotated, List, Optional

from ..render import human, jsonout
from .common import Batched, default_wrt, drive, emit, names, parse_value, wrt_names
from .options import LIMIT_OPTIONS, Argument, Common, Option, Wrt, common_options

DetectAnomaly = Annotated[bool, Option("--detect-anomaly",
                                             help="Stop at the first NaN a backward node produces.")]


@common_options()
def eval_cmd(opts: Common):
    """Forward values of every named tensor.

    Example: gradcli eval -e 'x = 2.0; y = 3.0; z = x * x * y'
    """
    from ..answers import queries

    drive(opts, lambda run: queries.run_eval(run, opts.of), jsonout.eval_doc, human.print_eval,
          batched=Batched(lambda run, size: queries.run_eval(run, opts.of)))


@common_options()
def backward_cmd(
    opts: Common,
    gradient: Annotated[Optional[str], Option(
        "--gradient", help="The gradient argument: ones or a value such as [0.4, 0.6].",
        metavar="ones|VALUE")] = None,
    inputs: Annotated[Optional[str], Option(
        "--inputs", help="Accumulate only into these (comma-separated).", metavar="NAMES")] = None,
    retain_graph: Annotated[bool, Option(
        "--retain-graph", help="Keep the graph's saved tensors after the backward pass.")] = False,
    create_graph: Annotated[bool, Option(
        "--create-graph", help="Record the backward pass, so the gradients can be differentiated.")] = False,
    steps: Annotated[bool, Option("--steps", help="Print every backward step.")] = False,
    detect_anomaly: DetectAnomaly = False,
    wrt: Annotated[Optional[str], Option("--wrt", hidden=True)] = None,
):
    """Run output.backward() and show the .grad of every leaf.

    Example: gradcli backward -e 'x = 2.0; y = 3.0; z = x * x * y'
    """
    from ..answers import queries
    from ..autograd import anomaly

    if wrt is not None:
        from ..errors import UsageError

        raise UsageError("backward has no --wrt: it accumulates into the .grad of every leaf",
                         hint=f"--inputs {wrt} accumulates into those only (backward(inputs=...)); "
                              f"`gradcli grad FILE --wrt {wrt}` gives the derivatives without .grad")
    grad_spec = gradient if gradient in (None, "ones") else parse_value(gradient, "--gradient")
    input_names = names(inputs, "--inputs") if inputs is not None else None

    def finish(result):
        if not detect_anomaly:
            nan_hint(result.grads, "run again with --detect-anomaly to stop")
        return result

    def answer(run):
        return finish(queries.run_backward(run, opts.of, grad_spec, input_names, retain_graph, create_graph,
                                           steps))

    def batched(run, size):
        from ..answers import batch

        return batch.backward(run, size, opts.of, grad_spec, input_names, retain_graph, create_graph, steps)

    with anomaly.detect_anomaly_if(detect_anomaly):
        drive(opts, answer, jsonout.backward_doc, human.print_backward,
              batched=None if detect_anomaly else Batched(batched, finish))


@common_options()
def grad_cmd(
    opts: Common,
    wrt: Wrt = None,
    order: Annotated[int, Option(
        "--order", help="The order of the derivative (N >= 2 needs a scalar output).", metavar="N")] = 1,
    grad_outputs: Annotated[Optional[str], Option(
        "--grad-outputs", help="The vector of the vector-Jacobian product: ones or a value.",
        metavar="ones|VALUE")] = None,
    allow_unused: Annotated[bool, Option(
        "--allow-unused", help="An input the output does not depend on gets None, not an error.")] = False,
    symbolic: Annotated[bool, Option(
        "--symbolic", help="Also print each derivative's SymPy formula; the inputs not in --wrt are "
                           "filled in with their values, or kept as symbols with --symbolic=full.")] = False,
    symbolic_full: Annotated[bool, Option("--symbolic-full", hidden=True)] = False,
    latex: Annotated[bool, Option(
        "--latex", help="With --symbolic (implied): the formulas in LaTeX.")] = False,
):
    """autograd.grad of the output with respect to --wrt; --order N for higher order.

    Example: gradcli grad -e 'x = 3.0; y = x**2 * sin(x)' --wrt x
    """
    from ..answers import queries

    wrt_list = wrt_names(wrt)
    seed = grad_outputs if grad_outputs in (None, "ones") else parse_value(grad_outputs, "--grad-outputs")
    full = symbolic_full

    def finish(result):
        nan_hint(result.grads)
        return result

    def batched(run, size):
        from ..answers import batch

        return batch.grad(run, size, wrt_list or default_wrt(run), opts.of, order, seed, allow_unused)

    def answer(run):
        result = finish(queries.run_grad(run, wrt_list or default_wrt(run), opts.of, order, seed,
                                         allow_unused))
        if symbolic or full or latex:
            from ..check.program import filled_inputs, symbolic_derivatives

            result.symbolic = symbolic_derivatives(run, result, full=full, latex=latex)
            filled = [] if full else filled_inputs(run, result.wrt)
            result.symbolic_filled = {n: run.values[n] for n in filled}
        return result

    drive(opts, answer, jsonout.grad_doc, human.print_grad, requires_grad=tuple(wrt_list),
          batched=None if symbolic or full or latex else Batched(batched, finish))


@common_options()
def jacobian_cmd(opts: Common, wrt: Wrt = None, mode: Annotated[str, Option(
        "--mode", help="reverse: one backward pass per output element; forward: one forward-mode run per "
                       "input element; auto: the fewer (and says which).", metavar="forward|reverse|auto")]
        = "reverse",
        steps: Annotated[bool, Option(
            "--steps", help="With --mode forward: print each op's tangent, pass by pass.")] = False):
    """The full Jacobian of a tensor output: shape output.shape + x.shape for each x.

    Example: gradcli jacobian -e 'x = [2., 3.]; y = x * x' --wrt x --mode forward
    """
    from ..answers import queries

    wrt_list = wrt_names(wrt)

    def finish(result):
        nan_hint(result.blocks)
        _unreached_note(result)
        return result

    def batched(run, size):
        from ..answers import batch

        return batch.jacobian(run, size, wrt_list or default_wrt(run), opts.of, mode)

    drive(opts, lambda run: finish(queries.run_jacobian(run, wrt_list or default_wrt(run), opts.of, mode, steps)),
          jsonout.jacobian_doc, human.print_jacobian, requires_grad=tuple(wrt_list),
          batched=None if steps else Batched(batched, finish))


@common_options()
def hessian_cmd(opts: Common, wrt: Wrt = None):
    """All second partial derivatives of a scalar output.

    Example: gradcli hessian -e 'x = 2.0; y = 3.0; z = x * x * y' --wrt x,y
    """
    from ..answers import queries

    wrt_list = wrt_names(wrt)

    def finish(result):
        nan_hint(result.blocks)
        return result

    def batched(run, size):
        from ..answers import batch

        return batch.hessian(run, size, wrt_list or default_wrt(run), opts.of)

    drive(opts, lambda run: finish(queries.run_hessian(run, wrt_list or default_wrt(run), opts.of)),
          jsonout.hessian_doc, human.print_hessian, requires_grad=tuple(wrt_list),
          batched=Batched(batched, finish))


def _unreached_note(result) -> None:
    """A Jacobian block of zeros because no path leads from the output to the input (PyTorch's
    jacobian gives them too, strict=False): say so on standard error, and why when the output
    has no graph at all (made without create_graph, or from tensors that need no grad)."""
    from ..render.style import paint

    if not getattr(result, "unreached", None):   # (a batch's Jacobian says nothing of paths)
        return
    name, names = result.output_name, ", ".join(repr(w) for w in result.unreached)
    why = (f"{name!r} has no grad_fn: it was computed outside the graph (under no_grad, by "
           "autograd.grad or functional.jacobian without create_graph=True, or from tensors that "
           "need no grad)" if result.output.grad_fn is None
           else f"{name!r} is not computed from {'them' if len(result.unreached) > 1 else 'it'} "
                "(no path in its graph leads there)")
    sys.stderr.write(paint(f"note: the Jacobian of {name!r} in {names} is zeros because {why}",
                           "hint", "stderr") + "\n")


def nan_hint(grads: dict, how: str = "`gradcli backward FILE --detect-anomaly` stops") -> None:
    """A NaN among the derivatives passes silently in PyTorch; say where and how to find its
    origin (standard error: standard output stays the answer)."""
    import numpy as np

    from ..render.style import paint
    from .._tensor import Tensor

    found, stack = [], [((), grads)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((path + (k,), v) for k, v in reversed(list(value.items())))
        elif isinstance(value, Tensor) and value._data.dtype.kind in "fc" and np.isnan(value._data).any():
            found.append("/".join(path))
    if found:
        sys.stderr.write(paint(f"hint: the derivative of {', '.join(found[:4])} holds NaN (a 0/0, "
                               f"sqrt or log at 0, inf - inf ...): {how} at the backward node "
                               "that first produced it", "hint", "stderr") + "\n")


@common_options("file", "expr", "sets", "json", "dtype", *LIMIT_OPTIONS)
def run_cmd(opts: Common, detect_anomaly: DetectAnomaly = False):
    """Run the program as a PyTorch script: what it prints goes to standard output.

    Example: gradcli run samples/s07_training.py
    """
    from ..autograd import anomaly

    printed = []

    def out(line):
        printed.append(line)
        if not opts.json:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    with anomaly.detect_anomaly_if(detect_anomaly):
        drive(opts, lambda run: (printed, run), jsonout.run_doc, lambda answer: None, script=True,
              printer=out)


OpNames = Annotated[Optional[List[str]], Argument(
    help="Ops to show in full (signature, node, formulas); none: list every op.", metavar="[NAMES]...",
    show_default=False)]


@common_options("json", "dtype")
def ops_cmd(opts: Common, op_names: OpNames = None):
    """The built-in ops: name, backward node, derivative formula per input; NAMES: those in full.

    Example: gradcli ops mul sin
    """
    from ..answers import optable

    if op_names:
        details = [optable.op_detail(n) for n in op_names]
        if opts.json:
            emit(jsonout.dumps(jsonout.ops_doc(details)))
        else:
            for i, d in enumerate(details):
                if i:
                    emit("")
                human.print_op(d)
        return
    rows = optable.op_table()
    if opts.json:
        emit(jsonout.dumps(jsonout.ops_doc(rows)))
    else:
        human.print_ops(rows)
