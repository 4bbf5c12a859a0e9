"""JSON that strict parsers accept: tensors as numbers or nested lists, NaN and
infinities as the strings "NaN", "Infinity", "-Infinity" (SPEC 5); and the
document each command prints with --json."""
from __future__ import annotations

import json
import math

import numpy as np

from .._tensor import Tensor
from ..dtypes import get_default_dtype
from ..errors import LimitError
from ..limits import measure


def _number(x: float):
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def _array(a: np.ndarray):
    if a.dtype == np.bool_ or a.dtype.kind in "iu":
        return a.tolist()   # JSON true/false and integers
    if a.ndim == 0:
        return _number(float(a))
    return [_array(row) for row in a] if a.ndim > 1 else [_number(float(v)) for v in a]


def value(v):
    """A program value as JSON: tensors, numbers, tuples and lists of them, None."""
    if isinstance(v, Tensor):
        return _array(v._data)
    if isinstance(v, np.ndarray):
        return _array(v)
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float, np.floating, np.integer)):
        return _number(float(v)) if isinstance(v, (float, np.floating)) else int(v)
    if isinstance(v, (tuple, list)):
        return [value(x) for x in v]
    if isinstance(v, dict):
        return {str(k): value(x) for k, x in v.items()}
    return None


# Lists nested deeper than this (`a = [a]` in a loop, a list that holds itself) have no
# JSON or printed form worth showing; they are left out rather than overflow the stack.
MAX_DEPTH = 100


# Items of a Python value shown in full, shared parts counted each time they are shown
# (`a = [a, a]` 60 times is 2^60 items in 60 lists): past this it is left out unwalked.
MAX_ITEMS = 10**6


def is_value(v) -> bool:
    """Whether a program value has a JSON form (functions, modules and nodes do not)."""
    if v.__class__ in (list, tuple, dict):
        try:
            _depth, size, _distinct = measure(v, MAX_DEPTH)
        except LimitError:
            return False
        if size > MAX_ITEMS:
            return False
    stack = [(v, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (Tensor, bool, int, float, str, np.floating)) or v is None:
            continue
        if not isinstance(v, (tuple, list)) or depth >= MAX_DEPTH:
            return False
        stack.extend((x, depth + 1) for x in v)
    return True


def dumps(doc, compact: bool | None = None) -> str:
    """Indented for a reader in a terminal, one compact line when piped (or `compact`)."""
    if compact is None:
        import sys

        compact = not sys.stdout.isatty()
    if compact:
        return json.dumps(doc, separators=(",", ":"), allow_nan=False)
    return json.dumps(doc, indent=2, allow_nan=False)


def shown(values: dict) -> dict:
    """The named values that have a JSON (and a printed) form."""
    return {k: v for k, v in values.items() if is_value(v)}


# -- one document per command: the answer of `gradcli.answers.queries` as JSON -------------------


def _output(name, out) -> dict:
    doc = {"name": name, "value": value(out)}
    if isinstance(out, Tensor) and out._data.dtype != get_default_dtype().np:
        doc["dtype"] = out.dtype.name
    return doc


def _with_dtypes(doc: dict, values: dict) -> dict:
    """`doc` with "dtypes": the dtype of each tensor not of the command's default dtype."""
    default = get_default_dtype().np
    other = {k: v.dtype.name for k, v in values.items() if isinstance(v, Tensor) and v._data.dtype != default}
    if other:
        doc["dtypes"] = other
    return doc


def _nested(d):
    if isinstance(d, dict):
        return {k: _nested(v) for k, v in d.items()}
    return value(d)


def eval_doc(answer) -> dict:
    name, values = answer
    values = shown(values)
    return _with_dtypes({"output": name, "values": {k: value(v) for k, v in values.items()}}, values)


def backward_doc(r) -> dict:
    doc = {"output": _output(r.output_name, r.output), "grads": {k: value(v) for k, v in r.grads.items()}}
    if r.why_none:
        doc["why_none"] = r.why_none
    if getattr(r, "by_program", None) is not None:
        # the .grad values are the ones the program's own backward call left (issue 28.1)
        doc["by_program"] = {"line": r.by_program[0], "col": r.by_program[1], "note": r.note}
    if r.steps is not None:
        doc["steps"] = [_step(s) for s in r.steps]
    return doc


def _step(s) -> dict:
    return {"node": s.node,
            **({"variable": s.variable} if s.variable is not None else {}),
            "source": f"{s.source[0]}:{s.source[1]}" if s.source else None,
            "grad_in": value(s.grad_in),
            "edges": [{"next": node, "index": nr, "grad": value(g) if g is not None else None,
                       **({"variable": var} if var is not None else {})}
                      for node, nr, g, var in s.edges]}


def grad_doc(r) -> dict:
    doc = {"output": _output(r.output_name, r.output), "order": r.order, "wrt": r.wrt,
           "grads": _nested(r.grads)}
    if r.symbolic is not None:
        doc["symbolic"] = r.symbolic
        filled = getattr(r, "symbolic_filled", None)
        if filled:
            doc["symbolic_filled"] = {k: value(v) for k, v in filled.items()}
    return doc


def jacobian_doc(r) -> dict:
    doc = {"output": _output(r.output_name, r.output), "wrt": r.wrt,
           "jacobian": {k: value(v) for k, v in r.blocks.items()}}
    if getattr(r, "mode", None):
        doc["mode"] = r.mode
    if getattr(r, "forward_steps", None) is not None:   # --steps: each forward pass's ops
        doc["steps"] = [{"input": x_name, "element": j,
                         "ops": [{"op": op, "source": None if span is None else f"{span.line}:{span.col}",
                                  "tangent": value(t)} for op, span, _, t in steps]}
                        for x_name, j, steps in r.forward_steps]
    return doc


def hessian_doc(r) -> dict:
    return {"output": _output(r.output_name, r.output), "wrt": r.wrt, "hessian": _nested(r.blocks)}


def run_doc(answer) -> dict:
    """`run --json`: what the script printed, its values, and the .grad of its tensors."""
    printed, run = answer
    grads = {k: value(v.grad) for k, v in run.values.items() if isinstance(v, Tensor) and v.grad is not None}
    values = shown(run.values)
    return _with_dtypes({"printed": printed, "values": {k: value(v) for k, v in values.items()},
                         "grads": grads}, values)


def ops_doc(rows) -> dict:
    return {"ops": rows}


# -- plot: gaps (NaN, infinite, undefined at a kink) are null -------------------------


def _gap(v):
    """A plotted sample: NaN or infinite is a gap, null in plot's JSON (not the "NaN" strings above)."""
    v = float(v)
    return v if math.isfinite(v) else None


def curve_json(c) -> dict:
    """`plot --json` of one input: a row per sample, f and its derivatives (an answers.sampling.Curve)."""
    keys = ["y"] + [f"d{k}" for k in range(1, c.order + 1)]
    rows = [{"x": float(x), **{key: _gap(v[i]) for key, v in zip(keys, c.values)}}
            for i, x in enumerate(c.xs)]
    return {"output": c.output_name, "wrt": [c.wrt], "order": c.order,
            "range": [float(c.xs[0]), float(c.xs[-1])],
            "kinks": [{"x": x, "order": k} for x, k in c.kinks],
            "samples": rows}


def surface_json(s) -> dict:
    """`plot --json` of two inputs: a row per grid point (an answers.sampling.Surface)."""
    norm = s.norm
    rows = []
    for j, y in enumerate(s.ys):
        for i, x in enumerate(s.xs):
            rows.append({"x": float(x), "y": float(y), "z": _gap(s.z[j, i]),
                         "dx": _gap(s.grads[0][j, i]), "dy": _gap(s.grads[1][j, i]),
                         "norm": _gap(norm[j, i])})
    return {"output": s.output_name, "wrt": list(s.wrt),
            "range": {s.wrt[0]: [float(s.xs[0]), float(s.xs[-1])],
                      s.wrt[1]: [float(s.ys[0]), float(s.ys[-1])]},
            "samples": rows}
