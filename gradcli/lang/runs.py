"""What a finished run (`program.RunResult`) holds, by name: its output (or the value `--of`
picks) and its named tensors. Here, below the commands' answers (`answers.queries`,
`answers.hints`, `answers.graphmodel`) and the checker (`check.program`), so that those
import it downwards and neither `hints` nor `check` imports `queries`.
"""
from __future__ import annotations

from gradcli._tensor import Tensor
from gradcli.errors import ProgramTypeError, UsageError


def output_of(run, of: str | None = None) -> tuple[str, object]:
    """The output (SPEC 2.4), or the value `--of NAME` picks."""
    if of is not None:
        return run.select_output(of)
    return run.output_name, run.output


def tensor_output(run, of: str | None = None) -> tuple[str, Tensor]:
    name, value = output_of(run, of)
    if not isinstance(value, Tensor):
        raise ProgramTypeError(
            f"the output {name!r} is {_kind(value)}, not a tensor",
            hint="name a tensor with --of NAME" if of is None else None,
        )
    return name, value


def _kind(value) -> str:
    if value is None:
        return "None"
    return f"a {type(value).__name__}"


def tensors(run) -> dict[str, Tensor]:
    """The named tensors of a run, in the order they were first assigned, then the parameters
    and buffers of its nn modules, named by dotted path (`fc1.weight`, as torchviz names them,
    even when a variable such as a loop's `p` also holds one: `nn.modules.module_tensors`)."""
    named = {k: v for k, v in run.values.items() if isinstance(v, Tensor)}
    modules = getattr(run, "modules", None)
    if modules:
        from gradcli.nn.modules import module_tensors

        paths = module_tensors(modules)
        held = {id(t) for t in paths.values()}
        named = {k: v for k, v in named.items() if id(v) not in held}
        for k, t in paths.items():
            named.setdefault(k, t)
    return named


def lookup(run, names: list[str], option: str) -> list[Tensor]:
    found = []
    named = tensors(run)
    for name in names:
        if name not in named:
            import difflib

            close = difflib.get_close_matches(name, list(named), n=1)
            raise UsageError(f"{option}: no tensor named {name!r} in the program",
                             hint=f"did you mean {close[0]!r}?" if close else None)
        found.append(named[name])
    return found
