"""The forward-mode passes of `jacobian --mode forward --steps`, for people and as JSON.

Laid out as `backward --steps` lays out a backward pass, turned around: a leaf's step
gives its tangent (the seed), an op's step lists the tangent that came in along each
edge (`<- (node, output_nr)`) and its tangent rule's result (`tangent out`).
"""
from __future__ import annotations

from . import jsonout
from .human import numel, show
from .layout import block


def _text(label: str, value) -> str:
    return block(label, show(value) if value is not None else "None (no tangent)",
                 value is not None and numel(value) > 1)


def pass_lines(fp, title: str) -> list[str]:
    """One pass: its seeds, then a line (or block) per step."""
    seeds = ", ".join(f"{name} = {' '.join(show(v).split())}" for name, v in fp.seeds.items())
    lines = [f"{title}: tangents {seeds}"]
    for i, s in enumerate(fp.steps, 1):
        if s.variable is not None:
            lines.append(_text(f"step {i}: {s.node}: {s.variable} tangent", s.tangent))
            continue
        where = f" at {s.source[0]}:{s.source[1]}" if s.source else ""
        kind = s.rule["kind"].split(" (")[0] if s.rule else "no"
        lines.append(f"step {i}: {s.node}{where}  {s.op}, {kind} rule")
        for node, nr, t, var in s.tangents_in:
            source = "None" if node is None else (f"{node} ({var})" if var is not None else node)
            text = show(t) if t is not None else "-"
            lines.append("    " + block(f"<- ({source}, {nr})", text, t is not None and numel(t) > 1)
                         .replace(") = ", "): ").replace("\n", "\n    "))
        lines.append("    " + _text("tangent out", s.tangent).replace("\n", "\n    "))
    return lines


def print_passes(result) -> None:
    from .human import write

    out = []
    for title, fp in result.passes:
        out.extend(pass_lines(fp, title))
    write(out)


def _step_doc(s) -> dict:
    if s.variable is not None:
        return {"node": s.node, "variable": s.variable, "tangent": _value(s.tangent)}
    return {"node": s.node, "op": s.op, "rule": s.rule["kind"] if s.rule else None,
            "source": f"{s.source[0]}:{s.source[1]}" if s.source else None,
            "tangents_in": [{"next": node, "index": nr, "tangent": _value(t),
                             **({"variable": var} if var is not None else {})}
                            for node, nr, t, var in s.tangents_in],
            "tangent": _value(s.tangent)}


def _value(v):
    if v is None:
        return None
    if isinstance(v, tuple):
        return [_value(x) for x in v]
    return jsonout.value(v)


def passes_doc(result) -> list:
    """`"passes"` of `jacobian --steps`: per column, its seeds, its steps and the output's tangent."""
    return [{"seeds": {k: _value(v) for k, v in fp.seeds.items()}, "tangent": _value(fp.tangent),
             "steps": [_step_doc(s) for s in fp.steps]} for _, fp in result.passes]
