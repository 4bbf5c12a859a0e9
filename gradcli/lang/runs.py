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
    if name is None and value is None:
        raise no_output()
    if not isinstance(value, Tensor):
        raise ProgramTypeError(
            f"the output {name!r} is {_kind(value)}, not a tensor",
            hint="name a tensor with --of NAME" if of is None else None,
        )
    return name, value


def no_output():
    """The error of a program with no output (SPEC 2.4): an empty one, or one that assigns
    nothing at its top level."""
    from gradcli.errors import ProgramError

    return ProgramError("the program has no output: it assigns no name at its top level and "
                        "does not end with an expression",
                        hint="the output is the last name assigned at the top level (z = x * y) "
                             "or a final bare expression; --of NAME picks a top-level value")


def _kind(value) -> str:
    if value is None:
        return "None"
    return f"a {type(value).__name__}"


def tensors(run, out=None) -> dict[str, Tensor]:
    """The named tensors of a run, in the order they were first assigned, then the parameters
    and buffers of its nn modules, named by dotted path (`fc1.weight`, as torchviz names them,
    even when a variable such as a loop's `p` also holds one: `nn.modules.module_tensors`),
    then the leaves that require grad that no name holds any more but the output (`out`, by
    default the run's) is computed from, each named by the name it was first bound to and
    where: `x (2:1)` for the x of line 2 after `x = x * 2` (issue 32)."""
    named = _named(run)
    out = run.output if out is None else out
    cache = run.__dict__.setdefault("_orphans", {})
    orphans = cache.get(id(out))
    if orphans is None:
        orphans = cache[id(out)] = orphan_leaves(run, out, named)
    if orphans:
        named = {**named, **orphans}
    return named


def orphan_leaves(run, out, named: dict | None = None) -> dict[str, Tensor]:
    """{`name (line:col)`: leaf} of the leaves that require grad, were bound to a top-level
    name that no longer holds them, and that `out` is computed from."""
    bindings = getattr(run, "first_bindings", None)
    if not bindings or not isinstance(out, Tensor) or out.grad_fn is None:
        return {}
    named = _named(run) if named is None else named
    held = {id(t) for t in named.values()}
    candidates = {id(t): (name, span, t) for name, span, t in bindings
                  if t.requires_grad and id(t) not in held}
    if not candidates:
        return {}
    reached = _reached_leaves(out, candidates)
    found = {}
    for name, span, t in bindings:
        if id(t) not in reached:
            continue
        key = f"{name} ({span.line}:{span.col})" if span is not None else f"{name} (unnamed)"
        base, k = key, 2
        while key in named or key in found:
            key, k = f"{base} #{k}", k + 1
        found[key] = t
    return found


def _reached_leaves(out: Tensor, candidates: dict, limit: int = 1_000_000) -> set:
    """The ids of the candidate leaves whose AccumulateGrad `out`'s graph reaches."""
    reached, seen, stack = set(), set(), [out.grad_fn]
    while stack and len(seen) < limit:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        leaf = getattr(node, "variable", None)
        if leaf is not None and id(leaf) in candidates:
            reached.add(id(leaf))
        stack.extend(nxt for nxt, _ in node.next_functions)
    return reached


def _named(run) -> dict[str, Tensor]:
    named = {k: v for k, v in run.values.items() if isinstance(v, Tensor)}
    modules = getattr(run, "modules", None)
    if modules:
        from gradcli.nn.modules.module import module_tensors

        paths = module_tensors(modules)
        held = {id(t) for t in paths.values()}
        named = {k: v for k, v in named.items() if id(v) not in held}
        for k, t in paths.items():
            named.setdefault(k, t)
    return named


def lookup(run, names: list[str], option: str, out=None) -> list[Tensor]:
    found = []
    named = tensors(run, out)
    for name in names:
        if name not in named:
            import difflib

            close = [k for k in named if k.lower() == name.lower()] or \
                difflib.get_close_matches(name, list(named), n=1)
            inputs = [k for k, t in named.items() if t.requires_grad and t.is_leaf]
            hint = f"did you mean {close[0]!r}?" if close else (
                "the tensors that require grad are " + ", ".join(inputs[:12]) if inputs else None)
            raise UsageError(f"{option}: no tensor named {name!r} in the program", hint=hint)
        found.append(named[name])
    return found
