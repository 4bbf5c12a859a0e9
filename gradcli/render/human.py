"""Human output: plain tables (`layout`), tensors written as PyTorch writes them, and
the printed answer of each value and derivative command (`print_backward`, ...).

A tensor of more than one element is a block under its label, the same bytes
whatever $COLUMNS says, except a Jacobian or Hessian over several inputs: one grid of
numbers folded to the terminal's width (`grid`); colour (`style`) only on a terminal.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import get_default_dtype
from ..format import format_tensor
from .._tensor import Tensor
from .jsonout import shown
from .layout import Table, block, clean
from .style import terminal_safe


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
    """`[2, 3]`: the one shape style of every output (torch.Size's list, as the graph and
    the error messages write it)."""
    if isinstance(value, Tensor):
        return "[" + ", ".join(str(d) for d in value._data.shape) + "]"
    return type(value).__name__


def nested_rows(grads: dict, path=()):
    """(path of names, tensor) for every entry of a nested derivative dict."""
    for name, value in grads.items():
        if isinstance(value, dict):
            yield from nested_rows(value, path + (name,))
        else:
            yield path + (name,), value


def numel(value) -> int:
    if isinstance(value, Tensor):
        return int(value._data.size)
    if isinstance(value, (np.ndarray, np.generic)):
        return int(np.size(value))
    return 1


def write(*parts) -> None:
    """Lines (strings or lists of lines) to standard output, no line ending in a space."""
    import sys

    lines = []
    for part in parts:
        lines.extend(part if isinstance(part, list) else [part])
    if lines:
        sys.stdout.write(terminal_safe(clean("\n".join(lines))) + "\n")


def values_and_blocks(rows, headers, suffix=""):
    """A table of the rows whose value is one element, and a block for each other one,
    labelled name + `suffix`.

    `rows` are (name, value, shape, cells after the value...); the columns are `headers`.
    """
    t = Table(*headers)
    order = []  # ("row", index in the table) or ("block", text), in the program's order
    for label, value, *extra in rows:
        if value is not None and numel(value) > 1:
            info = "  ".join(e for e in extra[1:] if e)
            order.append(("block", block(f"{label}{suffix}  shape {shape_of(value)}" +
                                         (f"  {info}" if info else ""), show(value), True)))
        else:
            order.append(("row", len(t.rows)))
            t.add_row(label, *(extra[:1]), show(value), *(extra[1:]))
    table = t.lines()
    if len(table) != len(t.rows) + 2:  # folded into a list: the table first, then the blocks
        return table + [text for kind, text in order if kind == "block"]
    # one table's columns, its rows and the blocks interleaved in the program's order
    # (`fc1.weight`'s block before `fc2.bias`'s row), the header once, before the first row
    out, header = [], table[:2]
    for kind, item in order:
        if kind == "row":
            out.extend(header)
            header = []
            out.append(table[2 + item])
        else:
            out.append(item)
    return out


def output_line(name, value) -> str:
    return block(f"output {name}", show(value), numel(value) > 1)


# -- one renderer per command: the answer of `gradcli.answers.queries` to standard output --------


def print_eval(answer) -> None:
    name, values = answer
    rows = []
    for key, value in shown(values).items():
        if isinstance(value, Tensor):
            info = f"<{value.grad_fn.name()}>" if value.grad_fn is not None else (
                "requires_grad" if value.requires_grad else "")
        else:
            info = ""
        rows.append((key, value, shape_of(value), info))
    write(values_and_blocks(rows, ("name", "shape", "value", "grad_fn / requires_grad")),
          f"output: {name}" if name is not None else
          "output: none (the program assigns no name at its top level)")


def print_backward(r) -> None:
    lines = [output_line(r.output_name, r.output)]
    for i, s in enumerate(r.steps or (), 1):
        where = f" at {s.source[0]}:{s.source[1]}" if s.source else ""
        if s.variable is not None:
            lines.append(block(f"step {i}: {s.node}: {s.variable}.grad +=", show(s.grad_in),
                               numel(s.grad_in) > 1).replace(" += = ", " += "))
            continue
        lines.append(block(f"step {i}: {s.node}{where}  grad in", show(s.grad_in), numel(s.grad_in) > 1)
                     .replace("  grad in = ", "  grad in: "))
        for node, nr, g, var in s.edges:
            target = "None" if node is None else (f"{node} ({var})" if var is not None else node)
            text = show(g) if g is not None else "-"
            lines.append("    " + block(f"-> ({target}, {nr})", text, g is not None and numel(g) > 1)
                         .replace(") = ", "): ").replace("\n", "\n    "))
    lines += values_and_blocks([(name, g, shape_of(g) if g is not None else "") for name, g in r.grads.items()],
                               ("name", "shape", "grad"), ".grad")
    for name, g in r.grads.items():
        if g is None and r.why_none.get(name):
            lines.append(f"{name}.grad is None: {r.why_none[name]}")
    by_reason = {}
    for name, reason in r.why_none.items():
        if name not in r.grads:
            by_reason.setdefault(reason, []).append(name)
    for reason, group in by_reason.items():
        lines.append(f"no .grad for {', '.join(group)}: {reason if len(group) == 1 else _plural(reason)}")
    if getattr(r, "note", None):
        lines.append(f"note: {r.note}")
    write(lines)


# `why_no_grad`'s reasons speak of one tensor; for a group, of several
_PLURALS = (("it does not", "they do not"), ("it is not a leaf", "they are not leaves"),
            ("on it", "on each"), ("left it out", "left them out"), ("to it", "to them"))


def _plural(reason: str) -> str:
    for one, many in _PLURALS:
        reason = reason.replace(one, many)
    return reason


def print_grad(r) -> None:
    lines = [output_line(r.output_name, r.output)]
    sym = getattr(r, "symbolic_shown", None) or r.symbolic or {}
    several = len(r.wrt) > 1
    t = Table("derivative", "value", *(["formula"] if sym else []))
    blocks = []
    for path, value in nested_rows(r.grads):
        label = derivative_label(r.output_name, path, several)
        formula = str(_dig(sym, path) or "") if sym else None
        if value is not None and numel(value) > 1:
            blocks.append(block(f"{label}  shape {shape_of(value)}", show(value), True))
            if formula:
                blocks.append(f"  formula: {formula}")
        else:
            t.add_row(label, show(value), *([formula] if sym else []))
    lines += t.lines() + blocks
    filled = getattr(r, "symbolic_filled", None)
    if filled:
        values = ", ".join(f"{n} = {show(v)}" for n, v in filled.items())
        lines.append(f"formulas with {values} filled in (--symbolic=full keeps them as symbols)")
    write(lines)


def _dig(d, path):
    for p in path:
        if not isinstance(d, dict):
            return None
        d = d.get(p)
    return d


def derivative_label(out: str, path, partial: bool) -> str:
    """dz/dx; d²z/dx² for one input; ∂²z/∂x∂y (and ∂²z/∂x²) when there are several."""
    n = len(path)
    d = "∂" if partial else "d"
    groups = []  # runs of one name: x, x, y -> [(x, 2), (y, 1)]
    for p in path:
        p = f"[{p}]" if " " in p else p  # a reassigned leaf, `x (3:1)`: dy/d[x (3:1)]
        if groups and groups[-1][0] == p:
            groups[-1][1] += 1
        else:
            groups.append([p, 1])
    bottom = "".join(f"{d}{p}{_sup(k) if k > 1 else ''}" for p, k in groups)
    top = d if n == 1 else f"{d}{_sup(n)}"
    return f"{top}{out}/{bottom}"


def _sup(n):
    return str(n).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def _written_as_grid(lines, make) -> bool:
    """Several inputs: one labelled grid of numbers, folded to the terminal's width, written
    after `lines`; False where `make(grid module)` has none (then the blocks are written)."""
    from . import grid

    rows = make(grid)
    if rows is None:
        return False
    write(lines + rows)
    return True


def print_jacobian(r) -> None:
    lines = [output_line(r.output_name, r.output)]
    if getattr(r, "mode_reason", None):   # --mode auto says which it took
        lines.append(f"mode: {r.mode} ({r.mode_reason})")
    for x_name, j, steps in getattr(r, "forward_steps", None) or ():   # --steps: the forward passes
        lines.append(f"forward pass: tangent e{j} on {x_name}")
        for i, (op, span, _, tangent) in enumerate(steps, 1):
            where = f" at {span.line}:{span.col}" if span is not None else ""
            lines.append(block(f"  step {i}: {op}{where}  tangent out", show(tangent),
                               numel(tangent) > 1))
    partial = len(r.blocks) > 1
    if partial and _written_as_grid(lines, lambda grid: grid.jacobian_grid(r.output_name, r.output, r.blocks)):
        return
    for name, blk in r.blocks.items():
        lines.append(block(f"{derivative_label(r.output_name, (name,), partial)}  shape "
                           f"{list(blk._data.shape)}", show(blk), True))
    write(lines)


def print_hessian(r) -> None:
    lines = [output_line(r.output_name, r.output)]
    cells = {(a, b): r.blocks[a][b] for a in r.wrt for b in r.wrt}
    partial = len(r.wrt) > 1
    if partial and _written_as_grid(lines, lambda grid: grid.hessian_grid(r.output_name, r.wrt, r.blocks)):
        return
    if all(v is None or numel(v) <= 1 for v in cells.values()):
        t = Table("", *r.wrt)
        for a in r.wrt:
            t.add_row(a, *[show(cells[a, b]) for b in r.wrt])
        lines += t.lines()
    else:
        for (a, b), value in cells.items():
            label = derivative_label(r.output_name, (a, b), partial)
            if value is not None and numel(value) > 1:
                lines.append(block(f"{label}  shape {list(value._data.shape)}", show(value), True))
            else:
                lines.append(block(label, show(value), False))
    write(lines)


def print_ops(rows) -> None:
    """Every op: its name and node, then its derivative formula per input, uncut."""
    lines = []
    for row in rows:
        lines.append(f"{row['name']}  {row['node']}")
        lines.extend(f"  {inp}: {formula}" for inp, formula in row["formulas"].items())
    write(lines)


def print_op(op) -> None:
    """One op in full: signature, node, formulas, what the names in them mean."""
    params = [*op["inputs"], *(f"{p}={d!r}" if d is not None else p for p, d in op["params"])]
    lines = [f"{op['name']}({', '.join(params)})"]
    if op.get("doc"):
        lines.append(f"  {op['doc']}")
    lines.append(f"  node: {op['node'] or '- (not differentiable)'}")
    if op["formulas"]:
        lines.append("  derivatives (the gradient reaching each input):")
        lines.extend(f"    {inp}: {formula}" for inp, formula in op["formulas"].items())
    if op.get("tangent"):
        lines.append(f"  tangent (forward mode), {op['tangent']['kind']}:")
        lines.append(f"    {op['tangent']['formula']}")
    if op.get("vmap"):
        lines.append(f"  vmap: {op['vmap']}")
    lines.append("  where: grad is the gradient of the result (what flows in from the output),")
    one = len(op["inputs"]) == 1
    lines.append(f"         {', '.join(op['inputs'])} {'is the input' if one else 'are the inputs'} "
                 "as given to the op, and result is the value it computed")
    if op.get("tangent"):
        lines.append("         t_<input> is the tangent of an input (zero where it has none)")
    write(lines)
