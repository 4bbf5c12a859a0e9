"""What every graph format shares: a shape as text, and the nn modules' clusters.

Below both `graph` (list, JSON, dot, mermaid) and `picture` (the teaching dot and its
colours), so that `graph` can hand dot to `picture` without `picture` importing it back.
"""
from __future__ import annotations


def shape_text(shape) -> str:
    """[4, 5]; a 0-d tensor is `scalar`."""
    return "scalar" if len(shape) == 0 else f"[{', '.join(map(str, shape))}]"


def clusters(model, opening, member, closing: str, depth: int = 1, parent=None) -> list[str]:
    """The modules' clusters, nested as the modules are: each holds the nodes its forward made.
    Nodes and submodules are grouped by module once (not scanned once per module: 3,000
    modules over 12,000 nodes took 3 s), and the nesting is walked without recursion."""
    members, inner = {}, {}
    for n in model.nodes:
        if n.module is not None:
            members.setdefault(n.module, []).append(n)
    for i, (_path, _kind, up) in enumerate(model.modules):
        inner.setdefault(up, []).append(i)
    out = []
    stack = [("open", i, depth) for i in reversed(inner.get(parent, ()))]
    while stack:
        what, i, level = stack.pop()
        pad = "  " * level
        if what == "close":
            out.append(pad + closing)
            continue
        path, kind, _ = model.modules[i]
        out.append(pad + opening(i, f"{path} ({kind})"))
        out.extend(pad + "  " + member(n) for n in members.get(i, ()))
        stack.append(("close", i, level))
        stack.extend(("open", j, level + 1) for j in reversed(inner.get(i, ())))
    return out
