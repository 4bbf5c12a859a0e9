"""Human output: Rich tables, tensors written as PyTorch writes them.

Colour only on a terminal and never with NO_COLOR (Rich's own rules); the
tables fall back to ASCII when the output cannot show box characters.
"""
from __future__ import annotations


from ..format import format_tensor
from .._tensor import Tensor


def show(value) -> str:
    """A value as PyTorch would print it, without the graph suffixes."""
    if isinstance(value, Tensor):
        return format_tensor(value._data)
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
