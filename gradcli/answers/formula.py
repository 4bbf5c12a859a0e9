"""The formula of a program's output, as a plot's title shows it (issue 28.6): the source of
the top-level statement that last assigned the output's name (`y = x**3 - x`), or of the
final expression, on one line, without its comments.
"""
from __future__ import annotations

from ..lang import nodes as n

_BINDERS = (n.Assign, n.AugAssign, n.For, n.WithItem)


def output_formula(program, name: str | None) -> str | None:
    """The top-level source that made `name`, on one line; None when the last statement that
    binds `name` is anything but a plain `name = ...` at the top level (a loop, `+=`, a branch:
    its text alone would mislead)."""
    if name is None:
        return None
    for stmt in reversed(program.module.body):
        if stmt.__class__ is n.ExprStmt and stmt.text == name and stmt.value.__class__ is not n.Name:
            return _statement(program.source, stmt.span)
        if stmt.__class__ is n.Assign and any(t.__class__ is n.Name and t.id == name
                                               for t in stmt.targets):
            return _statement(program.source, stmt.span)
        if _binds(stmt, name):
            return None
    return None


def _binds(node, name: str) -> bool:
    """Whether a statement (or one it holds, outside a def or class) binds `name`."""
    if isinstance(node, (list, tuple)):
        return any(_binds(x, name) for x in node)
    if not isinstance(node, n.Node) or isinstance(node, (n.FunctionDef, n.ClassDef, n.Lambda)):
        return False
    if isinstance(node, _BINDERS):
        targets = node.targets if node.__class__ is n.Assign else [node.target]
        if any(_named(t, name) for t in targets):
            return True
    return any(_binds(getattr(node, slot), name) for slot in node.__slots__ if slot != "span")


def _named(target, name: str) -> bool:
    if target.__class__ is n.Name:
        return target.id == name
    if target.__class__ in (n.TupleExpr, n.ListExpr):
        return any(_named(t, name) for t in target.elts)
    return target.__class__ is n.Starred and _named(target.value, name)


def _statement(source: str, start) -> str:
    """The statement that begins at `start`: up to a `;`, a comment or the line's end outside
    brackets and strings, on one line with runs of blanks made one."""
    lines = source.splitlines()
    text = "\n".join(lines[start.line - 1:])[start.col - 1:]
    out, depth, quote, i = [], 0, None, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                out.append(ch)
                i += 1
                ch = text[i] if i < len(text) else ""
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "#":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif ch == ";" and depth <= 0:
            break
        elif ch == "\n" and depth <= 0 and not (out and out[-1] == "\\"):
            break
        out.append(ch)
        i += 1
    return " ".join("".join(out).replace("\\\n", " ").split())
