"""The picture of `gradcli graph`: a Graphviz graph that teaches, and rendering it.

`to_dot` writes the graph (the output highlighted and named, leaves blue with their
names and shapes, every node's shape and `at line:col` with the source line as
its tooltip, edge labels only where the output index is not 0, `None` edges faint,
saved tensors as torchviz's `show_saved` draws them, short value summaries).
`render` runs Graphviz's `dot` (the one on PATH, else the `graphviz-pure` wheel's)
to SVG or PNG. Imported only by `graph` when it draws.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig

import numpy as np

from ..errors import GradcliError, LimitError, ProgramError, UsageError
from .._tensor import Tensor
from .errors import printable
from .graphparts import clusters, shape_text

SHARED_LEAF = 4  # a leaf used more often is drawn again beside each further use
MAX_NODES = 500
DOT_TIMEOUT = 120  # seconds  # default of --max-nodes: a larger picture is unreadable, and slow to lay out
WHEEL_PROGRAM = "graphviz-pure"
LARGE = MAX_NODES   # nodes past which dot lays the picture out with fewer iterations
NSLIMIT = 0.01      # network simplex iterations per node (dot's nslimit) past LARGE
INSTALL_HINT = ("install Graphviz (e.g. `apt-get install graphviz`, `brew install graphviz`) or the "
                "self-contained wheel: pip install 'gradcli[pictures]'")

# colours: one place, shared with the walk-through's style sheet
OUTPUT_FILL = "#ffd479"
LEAF_FILL = "#bfe0ff"
NAMED_FILL = "#e8f5e0"
OP_FILL = "#f4f4f4"
SAVED_FILL = "#ffe2c0"
FAINT = "#b0b0b0"


# -- short summaries ---------------------------------------------------------------


def _num(x) -> str:
    x = float(x)
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x)}."
    return f"{x:.4g}"


def summary(value, with_shape: bool = True) -> str:
    """A tensor in a few characters: its value if it has at most 4 elements, else its
    shape (unless the caller shows it already) with min and max; never the whole tensor."""
    if isinstance(value, Tensor):
        value = value._data
    if not isinstance(value, np.ndarray):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    data = value
    if data.size <= 4:
        if data.ndim == 0:
            return _num(data) if data.dtype.kind == "f" else str(data.item())
        flat = ", ".join(_num(x) if data.dtype.kind == "f" else str(x) for x in data.ravel())
        return f"[{flat}]" if data.ndim == 1 or not with_shape else f"{shape_text(data.shape)} [{flat}]"
    shape = shape_text(data.shape) + " " if with_shape else ""
    if data.dtype.kind not in "fiu":
        return shape.strip() or "..."
    return f"{shape}min {_num(data.min())} max {_num(data.max())}"


# -- dot ------------------------------------------------------------------------------


# A program's text (a ModuleDict key, a source line) may hold control characters, which
# XML (the SVG) refuses and a terminal obeys (the dot format): escaped as `printable` does.
def _html(text: str) -> str:
    return (printable(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def _quoted(text: str) -> str:
    text = printable(text, "\n")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def node_kind(model, n) -> str:
    """output, leaf, named or op: what the picture (and the walk-through) colours by."""
    if n.id == model.root:
        return "output"
    if n.name == "AccumulateGrad":
        return "leaf"
    return "named" if n.tensor is not None else "op"


def _label(model, n, kind: str) -> str:
    """An HTML-like label: the title line, the name, the shape, the source position, summaries."""
    small = '<font point-size="10" color="#555555">{}</font>'
    leaf = n.name == "AccumulateGrad"
    rows = [f"<b>{_html(n.variable or '(leaf)')}</b>" if leaf else f"<b>{_html(n.name)}</b>"]
    if kind == "output":
        name = n.variable if leaf else (model.output_name or n.tensor or "")
        if len(name) > 30:
            name = name[:27] + "..."
        rows.append(f'<font color="#a05000"><b>output</b></font> {_html(name)}'.rstrip())
    elif not leaf and n.tensor is not None:
        rows.append(_html(n.tensor))
    if leaf:
        rows.append(small.format("AccumulateGrad"))
    if n.shape is not None:
        rows.append(shape_text(n.shape))
    if n.source is not None:
        rows.append(small.format(f"at {n.source}"))
    if model.with_values and n.value is not None:
        rows.append(small.format("= " + _html(summary(n.value, with_shape=n.shape is None))))
    if model.with_saved:
        for name, shape, value in n.saved or ():
            if shape is None:
                rows.append(small.format(f"{_html(name)}: {_html(summary(value))}"))
    return "<" + "<br/>".join(rows) + ">"


def _tooltip(model, n) -> str:
    line = model.source_line(n)
    where = f"line {n.source.split(':')[0]}: {line}" if line else (f"at {n.source}" if n.source else "")
    return f"{n.name}" + (f"\n{where}" if where else "")


def to_dot(model) -> list[str]:
    """The teaching picture as Graphviz lines: root on top, arrows along next_functions
    (the way gradients flow in backward)."""
    # past LARGE nodes, dot's network simplex that places nodes across (most of its time) stops
    # after NSLIMIT iterations per node: a somewhat wider picture, 30% less of dot's time
    large = f", nslimit={NSLIMIT}" if len(model.nodes) > LARGE else ""
    out = ["digraph grad_fn {",
           f'  graph [fontname="Helvetica", nodesep=0.3, ranksep=0.35{large}]; '
           'node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=12, '
           f'fillcolor="{OP_FILL}", color="#666666", margin="0.12,0.05"]; '
           'edge [fontname="Helvetica", fontsize=10, color="#444444", arrowsize=0.7];']
    fills = {"output": OUTPUT_FILL, "leaf": LEAF_FILL, "named": NAMED_FILL, "op": OP_FILL}
    for n in model.nodes:
        kind = node_kind(model, n)
        attrs = [f'id="n{n.id}"', f'class="gnode {kind}"', f"label={_label(model, n, kind)}",
                 f"tooltip={_quoted(_tooltip(model, n))}"]
        if kind != "op":
            attrs.append(f'fillcolor="{fills[kind]}"')
        if kind == "output":
            attrs.append('penwidth=2.5, color="#c07000"')
        out.append(f"  n{n.id} [{', '.join(attrs)}];")
        if model.with_saved:
            for s, (name, shape, value) in enumerate(n.saved or ()):
                if shape is None:
                    continue  # a number or option: in the node's label
                label = f"{name}\n{shape_text(shape)}"
                if model.with_values:
                    label += "\n" + summary(value, with_shape=False)
                out.append(f'  s{n.id}_{s} [id="s{n.id}_{s}", class="saved", label={_quoted(label)}, '
                           f'shape=box, style="filled", fillcolor="{SAVED_FILL}", fontsize=10];')
                out.append(f'  s{n.id}_{s} -> n{n.id} [style=dotted, arrowhead=none, color="#d08030"];')
    copies = _leaf_copies(model)
    for n in model.nodes:
        for k, (j, nr) in enumerate(n.edges):
            label = f', label=" {nr}"' if nr != 0 else ""
            if (n.id, k) in copies:
                leaf = model.nodes[j]
                copy = f"n{j}_u{n.id}_{k}"
                out.append(f'  {copy} [id="{copy}", class="gnode leaf copy", label={_quoted(leaf.variable or "(leaf)")}, '
                           f'tooltip="the leaf #{j} again: it is used {leaf.in_degree} times", '
                           f'fillcolor="{LEAF_FILL}", style="rounded,filled,dashed", fontsize=10];')
                out.append(f'  n{n.id} -> {copy} [id="e{n.id}_{k}", class="flow"{label}];')
            elif j is None:
                out.append(f'  none{n.id}_{k} [id="none{n.id}_{k}", class="none", label="None", '
                           f'shape=plaintext, style="", fontcolor="{FAINT}", fontsize=10];')
                out.append(f'  n{n.id} -> none{n.id}_{k} [id="e{n.id}_{k}", class="none", style=dashed, '
                           f'color="{FAINT}"{label}];')
            else:
                out.append(f'  n{n.id} -> n{j} [id="e{n.id}_{k}", class="flow"{label}];')
    out.extend(clusters(model, lambda i, label: f'subgraph cluster_{i} {{ label={_quoted(label)}; '
                                                 'style="rounded,dashed"; color="#7a7a7a";',
                         lambda n: f"n{n.id};", "}"))
    out.append("}")
    return out


def _leaf_copies(model) -> set:
    """The edges (node id, edge index) drawn to a copy of their leaf: every use but the
    first of a leaf used more than SHARED_LEAF times. Long edges from all over the graph
    into one leaf make Graphviz's layout quadratic (a 2,000-node graph with one hub took
    minutes); a leaf has no edges of its own, so its copies change nothing else."""
    copies = set()
    for n in model.nodes:
        for k, (j, _) in enumerate(n.edges):
            if j is None:
                continue
            leaf = model.nodes[j]
            if leaf.in_degree > SHARED_LEAF and not leaf.edges and leaf.reached_from != (n.id, k):
                copies.add((n.id, k))
    return copies


# -- running dot --------------------------------------------------------------------------


def find_dot() -> list[str]:
    """The command of a Graphviz `dot`: PATH's `dot` first, then the graphviz-pure wheel
    (on PATH, or beside this Python when its environment is not activated)."""
    found = shutil.which("dot")
    if found:
        return [found]
    found = shutil.which(WHEEL_PROGRAM)
    if found:
        return [found]
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = os.path.join(folder or "", WHEEL_PROGRAM + (".exe" if os.name == "nt" else ""))
        if folder and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return [candidate]
    raise UsageError("drawing a picture needs Graphviz's dot, and none was found", hint=INSTALL_HINT)


def check_size(model, max_nodes: int) -> None:
    if len(model.nodes) > max_nodes:
        raise LimitError(f"the graph has {len(model.nodes)} nodes, more than --max-nodes {max_nodes} "
                         "for a picture", hint="raise the limit with --max-nodes N, or draw it as "
                                               "text with --tree")


def render(dot_lines: list[str], fmt: str, dot: list[str] | None = None) -> bytes:
    """Graphviz output (`svg` or `png`) of a graph."""
    command = (dot or find_dot()) + [f"-T{fmt}"]
    source = ("\n".join(dot_lines) + "\n").encode("utf-8")
    try:
        proc = subprocess.run(command, input=source, capture_output=True, timeout=DOT_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise LimitError(f"{command[0]} took more than {DOT_TIMEOUT} s to lay the graph out",
                         hint="draw part of it (--of NAME) or draw it as text with --tree") from None
    except OSError as exc:
        raise GradcliError(f"running {command[0]} failed: {exc}") from None
    if proc.returncode != 0 or not proc.stdout:
        raise renderer_failed(command[0], proc.returncode, proc.stderr)
    return proc.stdout


def renderer_failed(name: str, code: int, stderr: bytes = b"") -> ProgramError:
    """A renderer (Graphviz, matplotlib's child) that died, by a signal (its memory or CPU
    ceiling, or killed) or with an error: the picture cannot be drawn, a run error (exit 3)
    that says so, not a bug of gradcli."""
    message = printable(stderr.decode("utf-8", "replace").strip()[-500:], "\n")
    if code is not None and code < 0:
        import signal

        try:
            how = f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"was killed by signal {-code}"
        return ProgramError(f"{name} {how} while drawing the picture",
                            hint="the graph may be too large to draw: draw part of it (--of NAME) "
                                 "or draw it as text with --tree")
    return ProgramError(f"{name} failed (exit {code})" + (f": {message}" if message else ""),
                        hint="draw it as text with --tree, or check the Graphviz installation")


def svg_body(svg: bytes) -> str:
    """An SVG document without its XML prolog and doctype, to inline in HTML."""
    text = svg.decode("utf-8")
    start = text.find("<svg")
    return text[start:] if start >= 0 else text
