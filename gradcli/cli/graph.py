"""The `graph` command: the grad_fn graph of the output, as a tree, list, dot, mermaid or JSON.

It walks the graph once (`gradcli.answers.graphmodel`) and hands the model to one of the
pure formatters of `gradcli.render.graph`.
"""
from __future__ import annotations

import os
import sys
from contextlib import nullcontext
from enum import Enum
from typing import Annotated, Optional

import typer

from ..render.style import terminal_safe
from .common import drive
from .options import Common, Option, common_options


class GraphFormat(str, Enum):
    tree = "tree"
    list = "list"
    dot = "dot"
    mermaid = "mermaid"
    json = "json"
    svg = "svg"
    png = "png"
    html = "html"


def _terminal() -> tuple[bool, bool]:
    """(box-drawing guides, colour) for standard output: a terminal only; colour never with NO_COLOR."""
    stream = sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty:
        return False, False
    try:
        "├└│".encode(stream.encoding or "ascii")
        unicode = True
    except (LookupError, UnicodeEncodeError):
        unicode = False
    color = not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    return unicode, color


PICTURES = ("svg", "png", "html")


def _is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


@common_options()
def graph_cmd(
    opts: Common,
    tree: Annotated[bool, Option(
        "--tree", help="Draw the nested next_functions as a tree. The [k] before a node is the "
                       "edge's output index, the second element of its (node, k) pair in "
                       "next_functions (which output of that node the gradient flows to), not a "
                       "child number; #n marks a node reached twice, drawn once.")] = False,
    format: Annotated[Optional[GraphFormat], Option(
        "--format", help="tree, list (the default without --tree), dot (Graphviz), mermaid, json, "
                         "or a picture: svg, png, html (the backward walk-through).",
        case_sensitive=False, show_default=False)] = None,
    saved: Annotated[bool, Option("--saved", help="Show what each node saved for backward.")] = False,
    values: Annotated[bool, Option("--values", help="Show the value each node produced, when known.")] = False,
    output: Annotated[Optional[str], Option(
        "--output", "-o", help="Write to this file; its extension picks the format: .svg, .png, .html "
                               "(a backward walk-through), .dot, .mmd, .json, .txt.")] = None,
    max_nodes: Annotated[int, Option("--max-nodes", help="The most nodes a picture (svg, png, html) may have.")] = 500,
):
    """The backward graph of the output: every grad_fn node, its next_functions and where it was made.

    Example: gradcli graph -e 'x = 2.0; y = 3.0; z = x * x * y' --tree
    """
    from ..answers.graphmodel import recorded_shapes
    from ..render import graph as render

    chosen = format.value if format is not None else None
    if output is not None:
        from .graph_output import format_of_path

        chosen = format_of_path(output, chosen, tree, opts.json)
    if chosen == "png" and output is None and _is_terminal():
        from ..errors import UsageError

        raise UsageError("--format png writes binary data, and standard output is a terminal",
                         hint="write it to a file with -o graph.png, or pipe it to a viewer")
    if opts.points is not None and (chosen in PICTURES or output is not None):
        raise typer.BadParameter("--points prints one JSON line per point; it cannot draw a picture "
                                 "or write a file", param_hint="--points")
    if tree and chosen not in (None, "tree"):
        raise typer.BadParameter(f"--tree draws a tree; it cannot be combined with --format {chosen}",
                                 param_hint="--format")
    if opts.json and chosen not in (None, "json"):
        raise typer.BadParameter(f"--json prints JSON; it cannot be combined with --format {chosen}",
                                 param_hint="--format")
    if chosen is None:
        chosen = "json" if opts.json else "tree" if tree else "list"
    opts.json = chosen == "json" and output is None  # the answer, and an error, are JSON

    def answer(run):
        from ..answers.graphmodel import graph_of

        if chosen not in PICTURES:
            return graph_of(run, opts.of, saved=saved, values=values, shapes=shapes)
        from .graph_output import picture_answer

        return picture_answer(run, opts.of, chosen, saved, values, shapes, max_nodes)

    def human(model):
        if chosen in PICTURES or output is not None:
            from .graph_output import write_output

            write_output(model, chosen, output)
            return
        color = False
        if chosen == "tree":
            unicode, color = _terminal()
            lines = render.to_tree(model, unicode=unicode, color=color)
        else:
            lines = render.FORMATS[chosen](model)
        # a program's names (a ModuleDict key with ESC bytes) and source lines, escaped
        sys.stdout.write(terminal_safe("\n".join(lines), colored=color) + "\n")

    # shapes are only drawn by the tree, dot, mermaid and the pictures
    with recorded_shapes() if chosen not in ("list", "json") else nullcontext() as shapes:
        drive(opts, answer, render.to_json, human)
