"""The formats of `gradcli graph`: json, list, tree, dot, mermaid.

Each is a pure function of a `gradcli.answers.graphmodel.GraphModel` and returns text
(a JSON document, or lines). Every node is written once; a node reached a second
time is referred to by its id, so the output grows linearly with the graph. The
tree is drawn by hand (Rich's Tree recurses and re-indents every level, which is
quadratic on deep chains): guides are box-drawing characters on a terminal and
ASCII otherwise, and the indentation restarts every MAX_DEPTH levels.
"""
from __future__ import annotations

from ..dtypes import get_default_dtype
from ..format import format_tensor
from .._tensor import Tensor
from . import jsonout
from .graphparts import clusters, shape_text

MAX_DEPTH = 40  # levels drawn indented before the tree continues un-indented

UNICODE_GUIDES = ("├── ", "└── ", "│   ", "    ")
ASCII_GUIDES = ("|-- ", "\\-- ", "|   ", "    ")

# ANSI styles: only used when the caller asks for colour (a terminal, no NO_COLOR)
_STYLES = {"name": "1;36", "tensor": "32", "variable": "33", "dim": "2", "none": "2;35",
           "output": "1;33"}


def _style(text: str, kind: str, color: bool) -> str:
    return f"\x1b[{_STYLES[kind]}m{text}\x1b[0m" if color else text


def show_value(value) -> str:
    """A saved value or a produced tensor on one line, as PyTorch prints it."""
    if isinstance(value, Tensor):
        text = format_tensor(value._data, default=get_default_dtype().np)
    elif value is None:
        text = "None"
    else:
        text = repr(value)
    return " ".join(text.split())


# -- json -------------------------------------------------------------------------


def to_json(model) -> dict:
    """SPEC 5: {"root": 0, "nodes": [{"id", "name", "tensor"?, "variable"?, "source"?, "next"}]}."""
    nodes = []
    for n in model.nodes:
        doc = {"id": n.id, "name": n.name}
        if n.tensor is not None:
            doc["tensor"] = n.tensor
        if n.variable is not None:
            doc["variable"] = n.variable
        if n.source is not None:
            doc["source"] = n.source
        doc["next"] = [[j, nr] for j, nr in n.edges]
        if model.with_saved:
            doc["saved"] = [_saved_json(name, shape, value) for name, shape, value in n.saved or ()]
        if model.with_values:
            doc["value"] = jsonout.value(n.value) if n.value is not None else None
            if n.tangent is not None:
                doc["tangent"] = jsonout.value(n.tangent)
        nodes.append(doc)
    return {"root": model.root, "nodes": nodes}


def _saved_json(name, shape, value) -> dict:
    doc = {"name": name}
    if shape is not None:
        doc["shape"] = shape
    if jsonout.is_value(value):
        doc["value"] = jsonout.value(value)
    else:
        doc["value"] = repr(value)
    return doc


# -- list -------------------------------------------------------------------------


def _who(n) -> str:
    if n.variable is not None:
        return f"variable {n.variable}"
    if n.tensor is not None:
        return f"tensor {n.tensor}"
    return ""


def _edge_text(j, nr) -> str:
    return f"(None, {nr})" if j is None else f"(#{j}, {nr})"


def to_list(model) -> list[str]:
    """One line per node: id, name, tensor or variable, source, next_functions."""
    rows = []
    for n in model.nodes:
        edges = ", ".join(_edge_text(j, nr) for j, nr in n.edges) or "-"
        rows.append((f"#{n.id}", n.name, _who(n), n.source or "", edges))
    header = ("id", "node", "tensor/variable", "source", "next_functions")
    widths = [max(len(header[c]), max((len(r[c]) for r in rows), default=0)) for c in range(4)]
    lines = [_row(header, widths)]
    for n, row in zip(model.nodes, rows):
        lines.append(_row(row, widths))
        pad = " " * (widths[0] + 2)
        lines.extend(pad + d for d in _details(model, n))
    return lines


def _row(row, widths) -> str:
    cells = [row[c].ljust(widths[c]) for c in range(4)] + [row[4]]
    return "  ".join(cells).rstrip()


def _details(model, n, values: bool = True) -> list[str]:
    """The extra lines of a node: its value and what it saved, when asked for."""
    out = []
    if values and model.with_values:
        out.append(f"value: {show_value(n.value) if n.value is not None else '(not kept)'}")
        if n.tangent is not None:
            out.append(f"tangent: {show_value(n.tangent)}")
    if model.with_saved:
        if not n.saved and n.variable is None and n.name != "AccumulateGrad":
            out.append("saved: nothing")
        for name, shape, value in n.saved or ():
            where = f" (shape {shape})" if shape else ""
            label = name if name.startswith("_saved_") else f"saved {name}"  # PyTorch's attribute names
            out.append(f"{label}{where}: {show_value(value)}")
    return out


# -- tree -------------------------------------------------------------------------


def _label(model, n, color: bool) -> str:
    parts = [_style(n.name, "name", color)]
    if model.is_shared(n.id):
        parts.append(f"#{n.id}")
    if n.variable is not None:
        parts.append(_style(f"variable {n.variable}", "variable", color))
    elif n.tensor is not None:
        parts.append(_style(f"tensor {n.tensor}", "tensor", color))
    if n.shape is not None:
        parts.append(shape_text(n.shape))
    if n.source is not None:
        parts.append(_style(f"at {n.source}", "dim", color))
    if model.with_values and n.value is not None:
        parts.append(f"= {show_value(n.value)}")
        if n.tangent is not None:
            parts.append(f"tangent={show_value(n.tangent)}")
    if n.id == model.root:
        parts.append(_style("(output)", "output", color))
    return " ".join(parts)


def to_tree(model, unicode: bool = True, color: bool = False) -> list[str]:
    """The nested next_functions as text lines: `[output_nr]` on each edge, `None` for
    an edge to nothing, and `-> Name #id (see above)` for a node drawn before."""
    tee, ell, bar, gap = UNICODE_GUIDES if unicode else ASCII_GUIDES
    nodes = model.nodes
    lines = [_label(model, nodes[model.root], color)]
    # stack entries: ("edge", parent id, edge index, prefix, is_last, depth of the child)
    #             or ("mark", prefix, depth) for the line that says the tree goes on un-indented
    stack: list = []

    def push_children(n, prefix: str, depth: int) -> None:
        extra = _details(model, n, values=False)  # the value is on the node's own line
        if extra:
            guide = bar if n.edges else gap
            lines.extend(prefix + guide + _style(d, "dim", color) for d in extra)
        if not n.edges:
            return
        child_prefix = prefix
        if depth > 0 and depth % MAX_DEPTH == 0:
            child_prefix = ""
        last = len(n.edges) - 1
        for k in range(last, -1, -1):
            stack.append(("edge", n.id, k, child_prefix, k == last, depth))
        if child_prefix != prefix:
            stack.append(("mark", prefix, depth))

    push_children(nodes[model.root], "", 1)
    while stack:
        entry = stack.pop()
        if entry[0] == "mark":
            _, prefix, depth = entry
            lines.append(prefix + gap + _style(f"... (continued at depth {depth}, un-indented)", "dim", color))
            continue
        _, parent, k, prefix, is_last, depth = entry
        j, nr = nodes[parent].edges[k]
        head = prefix + (ell if is_last else tee) + f"[{nr}] "
        if j is None:
            lines.append(head + _style("None", "none", color))
            continue
        child = nodes[j]
        if child.reached_from != (parent, k):
            lines.append(head + _style(f"-> {child.name} #{child.id} (see above)", "dim", color))
            continue
        lines.append(head + _label(model, child, color))
        push_children(child, prefix + (gap if is_last else bar), depth + 1)
    return lines


# -- dot and mermaid ---------------------------------------------------------------


def _node_lines(model, n) -> list[str]:
    lines = [n.name]
    if n.variable is not None:
        lines.append(f"variable {n.variable}")
    elif n.tensor is not None:
        lines.append(f"tensor {n.tensor}")
    if n.shape is not None:
        lines.append(shape_text(n.shape))
    if n.source is not None:
        lines.append(f"at {n.source}")
    lines.extend(_details(model, n))
    return lines


def to_dot(model) -> list[str]:
    """Graphviz: the teaching picture (`gradcli.render.picture`), modules as clusters."""
    from .picture import to_dot as picture_dot

    return picture_dot(model)


def _mermaid_text(text: str) -> str:
    return (text.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;")
            .replace(">", "#gt;"))


def to_mermaid(model) -> list[str]:
    """A Mermaid flowchart, top to bottom from the root: the output highlighted, leaves
    blue, named tensors green, an edge labelled only where its output index is not 0,
    `None` edges faint."""
    from .picture import FAINT, LEAF_FILL, NAMED_FILL, OUTPUT_FILL, node_kind

    out = ["flowchart TD"]
    used = set()
    for n in model.nodes:
        lines = _node_lines(model, n)
        if n.id == model.root:  # "output NAME" instead of "tensor NAME"
            if n.tensor is not None and n.variable is None:
                lines.pop(1)
            lines.insert(1, f"output {model.output_name}" if model.output_name else "output")
        label = "<br/>".join(_mermaid_text(s) for s in lines)
        kind = node_kind(model, n)
        style = f":::{kind}" if kind != "op" else ""
        used.add(kind)
        out.append(f'  n{n.id}["{label}"]{style}')
    for n in model.nodes:
        for k, (j, nr) in enumerate(n.edges):
            label = f"|{nr}|" if nr != 0 else ""
            if j is None:
                out.append(f'  n{n.id} -.->{label} none{n.id}_{k}(["None"]):::none')
                used.add("none")
            else:
                out.append(f"  n{n.id} -->{label} n{j}")
    out.extend(clusters(model, lambda i, label: f'subgraph m{i} ["{_mermaid_text(label)}"]',
                         lambda n: f"n{n.id}", "end"))
    styles = {"output": f"fill:{OUTPUT_FILL},stroke:#c07000,stroke-width:3px", "leaf": f"fill:{LEAF_FILL}",
              "named": f"fill:{NAMED_FILL}", "none": f"fill:#ffffff,stroke:{FAINT},color:{FAINT}"}
    out.extend(f"  classDef {kind} {style}" for kind, style in styles.items() if kind in used)
    return out


FORMATS = {"list": to_list, "dot": to_dot, "mermaid": to_mermaid}
