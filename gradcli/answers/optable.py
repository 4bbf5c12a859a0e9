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
            "tangent": tangent_text(op),
            "vmap": batching_text(op),
            "doc": op.doc or ""}


def batching_text(op) -> str:
    """How vmap runs the op on a batch (ops/batching_rules.py): its rule, or per sample."""
    from ..ops import batching, batching_rules as rules

    rule = batching.RULES.get(op.name)
    if rule is None:
        return "per sample, stacked (no batching rule)"
    described = {rules.elementwise: "elementwise: broadcast with the batch dims in front",
                 rules.shifted: "its dims shifted past the batch dims",
                 rules.unsqueezed: "its dims shifted past the batch dims",
                 rules.loss: "elementwise with reduction='none', then reduced per sample",
                 rules.product: "one matmul over the batch", rules.addmm: "one matmul over the batch, then add",
                 rules.same_shape: "run on the whole batch as it is",
                 rules.last_two: "run on the whole batch (numpy batches its leading dims)"}
    return described.get(rule, "a rule of its own (ops/batching_rules.py)")


def tangent_text(op) -> dict:
    """The op's forward-mode rule (ops/dual.py) as {"kind", "formula"}: the tangent of the
    result from the inputs' tangents t_<input>; None for an op with no derivative."""
    import re

    from ..ops.dual import BILINEAR, LINEAR, POINTWISE, SYMMETRIC, TRANSPOSE

    kind = op.tangent
    inputs = [i for i, r in zip(op.inputs, op.rules) if r is not None]
    params = "".join(f", {p}" for p in op.params)
    if kind is None:
        return None
    if kind == POINTWISE:
        terms = [re.sub(r"\bgrad\b", f"t_{i}", f) for i, f, r in zip(op.inputs, op.formulas, op.rules)
                 if r is not None]
        return {"kind": "pointwise (derived: the backward rule applied to the tangent)",
                "formula": " + ".join(f"({t})" if len(terms) > 1 else t for t in terms)}
    if kind == SYMMETRIC:
        terms = [re.sub(r"\bgrad\b", f"t_{i}", f) for i, f, r in zip(op.inputs, op.formulas, op.rules)
                 if r is not None]
        return {"kind": "symmetric Jacobian (derived: the backward rule applied to the tangent)",
                "formula": " + ".join(terms)}
    if kind == LINEAR:
        return {"kind": "linear (derived: the op applied to the tangents)",
                "formula": f"{op.name}({', '.join(f't_{i}' for i in op.inputs)}{params})"}
    if kind == BILINEAR:
        terms = [f"{op.name}({', '.join(f't_{j}' if j == i else j for j in op.inputs)}{params})" for i in inputs]
        return {"kind": "bilinear (derived: the op with one input replaced by its tangent, summed)",
                "formula": " + ".join(terms)}
    if kind == TRANSPOSE:
        return {"kind": "transposed backward (derived: each backward rule is linear in grad)",
                "formula": " + ".join(f"d<({f}), t_{i}>/dgrad" for i, f, r in zip(op.inputs, op.formulas, op.rules)
                                      if r is not None)}
    return {"kind": "written", "formula": " + ".join((r.__doc__ or f"rule for {i}").strip()
                                                  for i, r in zip(op.inputs, kind) if r is not None)}


def _plain(v):
    """A parameter's default as JSON can hold it."""
    return v if v is None or isinstance(v, (bool, int, float, str)) else repr(v)

