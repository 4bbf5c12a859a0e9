"""What every graph format shares: a shape as text, and the nn modules' clusters.

Below both `graph` (list, JSON, dot, mermaid) and `picture` (the teaching dot and its
colours), so that `graph` can hand dot to `picture` without `picture` importing it back.
"""
from __future__ import annotations


def shape_text(shape) -> str:
    """[4, 5]; a 0-d tensor is `scalar`."""
    return "scalar" if len(shape) == 0 else f"[{', '.join(map(str, shape))}]"


def clusters(model, opening, member, closing: str, depth: int = 1, parent=None) -> list[str]:
    """The modules' clusters, nested as the modules are: each holds the nodes its forward made."""
    out = []
    for i, (path, kind, up) in enumerate(model.modules):
        if up != parent:
            continue
        pad = "  " * depth
        out.append(pad + opening(i, f"{path} ({kind})"))
        out.extend(pad + "  " + member(n) for n in model.nodes if n.module == i)
        out.extend(clusters(model, opening, member, closing, depth + 1, i))
        out.append(pad + closing)
    return out
