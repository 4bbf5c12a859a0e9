"""The answer of `gradcli ops`: the op table as plain data. Apart from `queries`, which
asks about a run, so that listing the ops loads neither the language nor the engine.
"""
from __future__ import annotations


def op_table() -> list[dict]:
    """The differentiable built-in ops: name, backward node, inputs, the derivative per input."""
    from ..ops import OPS

    return [{"name": op.name, "node": op.node, "inputs": list(op.inputs),
             "formulas": {i: f for i, f, r in zip(op.inputs, op.formulas, op.rules) if r is not None}}
            for op in OPS.values() if op.differentiable]


def op_detail(name: str) -> dict:
    """One built-in op in full: its row of `op_table` plus its parameters and description."""
    import difflib

    from ..errors import UsageError
    from ..ops import OPS

    op = OPS.get(name)
    if op is None:
        close = difflib.get_close_matches(name, list(OPS), n=3)
        raise UsageError(f"no op named {name!r}",
                         hint=f"did you mean {' or '.join(close)}?" if close else "gradcli ops lists them")
    return {"name": op.name, "node": op.node, "inputs": list(op.inputs),
            "params": [[p, _plain(op.defaults.get(p))] for p in op.params],
            "formulas": {i: f for i, f, r in zip(op.inputs, op.formulas, op.rules) if r is not None},
            "doc": op.doc or ""}


def _plain(v):
    """A parameter's default as JSON can hold it."""
    return v if v is None or isinstance(v, (bool, int, float, str)) else repr(v)

