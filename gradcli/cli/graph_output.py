"""`graph -o FILE` and the picture formats: which format a file name asks for, the
answer a picture needs (the graph, and for the walk-through, backward's steps), and
writing it. Imported by `graph` only when it draws or writes a file.
"""
from __future__ import annotations

import os
import sys

from ..errors import UsageError

EXTENSIONS = {".svg": "svg", ".png": "png", ".html": "html", ".htm": "html", ".dot": "dot",
              ".gv": "dot", ".mmd": "mermaid", ".json": "json"}


def format_of_path(path: str, chosen: str | None, tree: bool, json: bool) -> str:
    """The format `-o PATH` writes: --format's when given (it wins over the extension), else
    the extension's (.txt: the list, or the tree with --tree)."""
    ext = os.path.splitext(path)[1].lower()
    if json:
        raise UsageError(f"-o {path}: --json prints JSON to standard output; to write JSON to a "
                         "file, name a .json file (or give --format json)")
    if chosen is not None:
        return chosen
    by_path = ("tree" if tree else "list") if ext == ".txt" else EXTENSIONS.get(ext)
    if by_path is None:
        raise UsageError(f"-o {path}: graph writes .svg, .png, .html, .dot, .mmd, .json or .txt files",
                         hint="or name the format with --format (it wins over the extension)")
    return by_path


def picture_answer(run, of, fmt: str, saved: bool, values: bool, shapes, max_nodes: int):
    """The graph to draw (limited to max_nodes); for html also backward's steps on it."""
    from ..answers.graphmodel import graph_of
    from ..render.picture import check_size

    walkthrough = fmt == "html"
    model = graph_of(run, of, saved=saved or walkthrough, values=values or walkthrough, shapes=shapes)
    check_size(model, max_nodes)
    if not walkthrough:
        return model
    from ..render.walkthrough import walk_of

    walk = walk_of(run, of, model)
    from ..render.forward_walk import forward_html, forward_walk_of

    walk.forward_block = forward_html(forward_walk_of(run, of, model))  # the forward walk beside it
    model.with_saved, model.with_values = saved, values  # the page's picture draws what was asked
    return walk


def write_output(answer, fmt: str, path: str | None) -> None:
    """Write the answer in `fmt` to `path` (or standard output)."""
    if fmt in ("svg", "png", "html"):
        data = _picture(answer, fmt, path)
    else:
        from ..render import graph as render
        from ..render.jsonout import dumps

        if fmt == "json":
            text = dumps(render.to_json(answer))
        elif fmt == "tree":
            text = "\n".join(render.to_tree(answer, unicode=True, color=False))
        else:
            text = "\n".join(render.FORMATS[fmt](answer))
        data = (text + "\n").encode("utf-8")
    if path is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        with open(path, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    sys.stderr.write(f"wrote {path}\n")  # as plot -o says it


def _picture(answer, fmt: str, path: str | None) -> bytes:
    from ..render import picture

    if fmt != "html":
        return picture.render(picture.to_dot(answer), fmt)
    from ..render.walkthrough import to_html

    svg = picture.svg_body(picture.render(picture.to_dot(answer.model), "svg"))
    name = answer.model.output_name or "the output"
    title = f"Backward of {name}" + (f" ({os.path.basename(path)})" if path else "")
    return to_html(answer, svg, title).encode("utf-8")
