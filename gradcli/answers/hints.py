"""Where and why for the autograd mistakes people make most: a non-scalar output, a
tensor that does not require grad, an input the output does not use.

The engine raises PyTorch's words with no place; `explained` (around what a command
computes from a run) adds the place in the program and a hint in terms of the
command's options. `general_hint` gives a program's own `y.backward()` a hint too.
"""
from __future__ import annotations

import re
from contextlib import contextmanager

from ..errors import AutogradError, GradcliError, Span

NON_SCALAR = "grad can be implicitly created only for scalar outputs"
NO_GRAD_FN = "does not require grad and does not have a grad_fn"
WRT_NO_GRAD = "One of the differentiated Tensors does not require grad"
INPLACE = "has been modified by an inplace operation"
# (a pattern, compiled by `re` on its first search: not at start-up, where it cost 0.8M instructions)
UNUSED = r"The differentiated Tensor at index (\d+) appears to not have been used"

_GENERAL = {
    NON_SCALAR: "pass a gradient of the output's shape (y.backward(torch.ones_like(y))), reduce it "
                "first (y.sum().backward()), or use torch.autograd.functional.jacobian",
    NO_GRAD_FN: "no tensor it is computed from requires grad: create the input with "
                "requires_grad=True (torch.tensor(..., requires_grad=True)) or call .requires_grad_() on it",
}


def general_hint(err: GradcliError) -> str | None:
    """A hint for an autograd error a program's own call raised (none of the CLI's options apply)."""
    if not isinstance(err, AutogradError):
        return None
    return next((hint for key, hint in _GENERAL.items() if key in err.message), None)


def made_at(run, name: str) -> Span | None:
    """Where the program last assigns `name` at its top level: the value's place."""
    found = None
    for stmt in run.interpreter.program.module.body:
        for target in getattr(stmt, "targets", ()):
            if getattr(target, "id", None) == name:
                found = stmt.value.span
    return found


def place_of(run, name: str, tensor) -> Span | None:
    """The op that made `tensor` (its node's source), else the assignment of `name`."""
    node = getattr(tensor, "grad_fn", None)
    return getattr(node, "source", None) or made_at(run, name)


@contextmanager
def explained(run, name: str, out, wrt: list[str] | None = None, command: str = "backward"):
    """Add the place and a hint to an autograd error raised inside the block."""
    try:
        yield
    except AutogradError as err:
        _explain(err, run, name, out, wrt or [], command)
        raise


def _explain(err: AutogradError, run, name: str, out, wrt: list[str], command: str) -> None:
    from ..lang.runs import tensors  # here: `cli.common` imports this module at start-up

    named = tensors(run)
    message = err.message
    if NON_SCALAR in message:
        option = "--gradient ones" if command == "backward" else "--grad-outputs ones"
        err.at(place_of(run, name, out))
        summed = f"{name}.sum()" if name.isidentifier() else f"({name}).sum()"
        err.hint = (f"{name!r} has shape {list(out.shape)}: pass {option} (the gradient of "
                    f"{summed}), reduce it in the program with .sum(), or use `gradcli jacobian`")
    elif NO_GRAD_FN in message:
        if wrt and all(k in named and named[k].requires_grad for k in wrt):
            err.at(made_at(run, name))  # --wrt made them require grad: the output does not use them
            err.hint = (f"{name!r} is not computed from {', '.join(map(repr, wrt))}: nothing it is "
                        "computed from requires grad")
        elif name in run.interpreter.program.input_names:  # made here, from a literal
            err.at(made_at(run, name))
            err.hint = f"make {name!r} with requires_grad=True: torch.tensor(..., requires_grad=True)"
        else:
            leaves = [k for k, t in named.items() if t.is_leaf and not t.requires_grad
                      and t._data.dtype.kind == "f" and k != name]
            err.at(made_at(run, leaves[0]) if leaves else made_at(run, name))
            which = f"{leaves[0]!r}" if leaves else "its inputs"
            err.hint = (f"{name!r} is not computed from any tensor that requires grad: make {which} "
                        "with requires_grad=True: torch.tensor(..., requires_grad=True)")
    elif WRT_NO_GRAD in message:
        culprit = next((k for k in wrt if k in named and not named[k].requires_grad), None)
        if culprit is not None:
            err.at(made_at(run, culprit))
            err.hint = (f"{culprit!r} does not require grad: make it with requires_grad=True, or "
                        "differentiate with respect to a tensor it is computed from")
    elif INPLACE in message and getattr(run, "calls", None):
        # a training loop: loss.backward(), then optimizer.step() changed the parameters the
        # last loss was computed from (issue 28.1)
        err.hint = (f"the program changed a tensor {name!r} is computed from in place after "
                    f"computing it (an optimizer's step() after its own backward?), so {name!r} "
                    "cannot be differentiated again: `gradcli backward` shows the .grad values the "
                    "program's own backward left, or pick with --of a value computed after the "
                    "last change")
    else:
        unused = re.search(UNUSED, message)
        if unused and int(unused.group(1)) < len(wrt):
            input_name = wrt[int(unused.group(1))]
            err.at(made_at(run, input_name))
            err.hint = (f"{name!r} does not use {input_name!r}: pass --allow-unused to get None for "
                        "it, or leave it out of --wrt")


def complete(err: GradcliError) -> GradcliError:
    """Before an error is shown: the place of the backward node that raised it (an error
    inside the engine), and the general hint if it has none."""
    if err.span is None and err.node is not None:
        err.at(getattr(err.node, "source", None))
    if err.hint is None:
        err.hint = general_hint(err)
    return err
