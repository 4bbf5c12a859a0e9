"""Human output: Rich tables, tensors written as PyTorch writes them, and the
printed answer of each value and derivative command (`print_backward`, ...).

Colour only on a terminal and never with NO_COLOR (Rich's own rules); the
tables fall back to ASCII when the output cannot show box characters.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import get_default_dtype
from ..format import format_tensor
from .._tensor import Tensor
from .jsonout import shown


def show(value) -> str:
    """A value as PyTorch would print it, without the graph suffixes; an array as a tensor."""
    if isinstance(value, Tensor):
        return format_tensor(value._data, default=get_default_dtype().np)
    if isinstance(value, (np.ndarray, np.generic)):
        return format_tensor(value, default=get_default_dtype().np)
    if value is None:
        return "None"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(show(v) for v in value)
        return f"({inner},)" if isinstance(value, tuple) and len(value) == 1 else (
            f"({inner})" if isinstance(value, tuple) else f"[{inner}]")
    return repr(value)


def shape_of(value) -> str:
    if isinstance(value, Tensor):
        return "(" + ", ".join(str(d) for d in value._data.shape) + ("," if value._data.ndim == 1 else "") + ")"
    return type(value).__name__


def table(*columns, title=None):
    """A table with a rule under its header: box drawing on a terminal, ASCII when piped."""
    import sys

    from rich import box
    from rich.table import Table

    rule = box.SIMPLE_HEAD if sys.stdout.isatty() else _ASCII_SIMPLE_HEAD()
    return Table(*columns, title=title, box=rule, title_justify="left", show_edge=False, pad_edge=False)


def _ASCII_SIMPLE_HEAD():
    from rich.box import Box

    return Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)


def eval_table(result):
    t = table("name", "shape", "value", "grad_fn / requires_grad")
    for name, value in result.items():
        if isinstance(value, Tensor):
            info = f"<{value.grad_fn.name()}>" if value.grad_fn is not None else (
                "requires_grad" if value.requires_grad else "")
        else:
            info = ""
        t.add_row(name, shape_of(value), show(value), info)
    return t


def grads_table(grads: dict, why: dict | None = None, header: str = "grad"):
    t = table("name", "shape", header)
    for name, g in grads.items():
        if g is None:
            reason = (why or {}).get(name)
            t.add_row(name, "", "None" + (f"  ({reason})" if reason else ""))
        else:
            t.add_row(name, shape_of(g), show(g))
    return t


def nested_rows(grads: dict, path=()):
    """(path of names, tensor) for every entry of a nested derivative dict."""
    for name, value in grads.items():
        if isinstance(value, dict):
            yield from nested_rows(value, path + (name,))
        else:
            yield path + (name,), value


def stdout_console():
    """Rich's console on standard output; a reader that closes the pipe ends the command
    at the CLI's boundary, not with Rich's own exit 1."""
    from rich.console import Console

    class StdoutConsole(Console):
        def on_broken_pipe(self) -> None:
            # Rich exits 1 here ("a check failed" to gradcli); let the boundary decide.
            self.quiet = True
            raise BrokenPipeError()

    return StdoutConsole(highlight=False, soft_wrap=False)


# -- one renderer per command: the answer of `gradcli.queries` to standard output --------


def print_eval(answer) -> None:
    name, values = answer
    console = stdout_console()
    console.print(eval_table(shown(values)))
    console.print(f"output: {name}")


def print_backward(r) -> None:
    console = stdout_console()
    console.print(f"output {r.output_name} = {show(r.output)}")
    for i, s in enumerate(r.steps or (), 1):
        where = f" at {s.source[0]}:{s.source[1]}" if s.source else ""
        if s.variable is not None:
            console.print(f"step {i}: {s.node}: {s.variable}.grad += {show(s.grad_in)}")
            continue
        console.print(f"step {i}: {s.node}{where}  grad in: {show(s.grad_in)}")
        for node, nr, g, var in s.edges:
            target = "None" if node is None else (f"{node} ({var})" if var is not None else node)
            console.print(f"    -> ({target}, {nr}): {show(g) if g is not None else '-'}")
    console.print(grads_table(r.grads, r.why_none))
    by_reason = {}
    for name, reason in r.why_none.items():
        if name not in r.grads:
            by_reason.setdefault(reason, []).append(name)
    for reason, group in by_reason.items():
        console.print(f"no .grad for {', '.join(group)}: {reason}")


def print_grad(r) -> None:
    console = stdout_console()
    console.print(f"output {r.output_name} = {show(r.output)}")
    t = table("derivative", "value")
    sym = r.symbolic or {}
    if sym:
        t.add_column("formula")
    for path, value in nested_rows(r.grads):
        row = [_label(r.output_name, path), show(value)]
        if sym:
            row.append(str(_dig(sym, path) or ""))
        t.add_row(*row)
    console.print(t)


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


def print_jacobian(r) -> None:
    console = stdout_console()
    console.print(f"output {r.output_name} = {show(r.output)}")
    for name, block in r.blocks.items():
        console.print(f"d{r.output_name}/d{name}  shape {list(block._data.shape)}")
        console.print(show(block))


def print_hessian(r) -> None:
    console = stdout_console()
    console.print(f"output {r.output_name} = {show(r.output)}")
    t = table("", *r.wrt)
    for a in r.wrt:
        t.add_row(a, *[show(r.blocks[a][b]) for b in r.wrt])
    console.print(t)


def print_ops(rows) -> None:
    t = table("op", "node", "input", "derivative")
    for row in rows:
        first = True
        for inp, formula in row["formulas"].items():
            t.add_row(row["name"] if first else "", row["node"] if first else "", inp, formula)
            first = False
    stdout_console().print(t)
