"""Helpers for the language tests: a compact dump of syntax trees, and running programs."""
from __future__ import annotations

import pytest

from gradcli.lang import nodes as n


# the nodes dumped as (tag field ...): the tag, then their fields (children dumped, names as they are)
CHILDREN = {
    n.Attribute: (".", "value", "attr"),
    n.ClassDef: ("class", "name", "bases", "body"),
    n.Subscript: ("[]", "value", "index"),
    n.Slice: (":", "lower", "upper", "step"),
    n.IfExp: ("if", "test", "body", "orelse"),
    n.While: ("while", "test", "body"),
    n.For: ("for", "target", "iter", "body"),
    n.Return: ("return", "value"),
    n.Assert: ("assert", "test", "msg"),
}


def dump(node) -> str:
    """An S-expression of a syntax tree, for asserting structure and precedence."""
    if isinstance(node, list):
        return "[" + " ".join(dump(item) for item in node) + "]"
    if node is None:
        return "_"
    cls = node.__class__
    if cls in CHILDREN:
        tag, *fields = CHILDREN[cls]
        values = (getattr(node, field) for field in fields)
        return "(" + " ".join([tag] + [v if isinstance(v, str) else dump(v) for v in values]) + ")"
    if cls is n.ExprStmt:
        return dump(node.value)
    if cls is n.Name:
        return node.id
    if cls in (n.Num, n.Str, n.Constant):
        return repr(node.value)
    if cls is n.BinOp:
        return f"({node.op} {dump(node.left)} {dump(node.right)})"
    if cls is n.UnaryOp:
        return f"({node.op} {dump(node.operand)})"
    if cls is n.BoolOp:
        return f"({node.op} " + " ".join(dump(v) for v in node.values) + ")"
    if cls is n.Compare:
        rest = "".join(f" {op} {dump(c)}" for op, c in zip(node.ops, node.comparators))
        return f"(cmp {dump(node.left)}{rest})"
    if cls is n.Call:
        keywords = "".join(f" {k.name}={dump(k.value)}" for k in node.keywords)
        return f"(call {dump(node.func)} {dump(node.args)}{keywords})"
    if cls is n.TupleExpr or cls is n.ListExpr:
        tag = "tuple" if cls is n.TupleExpr else "list"
        return f"({tag}" + "".join(" " + dump(e) for e in node.elts) + ")"
    if cls is n.DictExpr:
        return "(dict" + "".join(f" {dump(k)}:{dump(v)}" for k, v in zip(node.keys, node.values)) + ")"
    if cls is n.Lambda:
        return f"(lambda {','.join(node.params.names())} {dump(node.body)})"
    if cls is n.FString:
        return "(f" + "".join(" " + (repr(p) if isinstance(p, str) else dump(p)) for p in node.parts) + ")"
    if cls is n.FormattedValue:
        conversion = f"!{node.conversion}" if node.conversion else ""
        spec = f":{dump(node.spec)}" if node.spec is not None else ""
        return f"{{{dump(node.value)}{conversion}{spec}}}"
    if cls is n.Starred:
        return f"*{dump(node.value)}"
    if cls is n.Assign:
        return "(= " + " ".join(dump(t) for t in node.targets) + f" {dump(node.value)})"
    if cls is n.AugAssign:
        return f"({node.op}= {dump(node.target)} {dump(node.value)})"
    if cls is n.If:
        branches = " ".join(f"{dump(t)} {dump(b)}" for t, b in node.branches)
        return f"(if {branches} else {dump(node.orelse)})"
    if cls is n.With:
        items = " ".join(f"{dump(i.context)}" + (f" as {dump(i.target)}" if i.target else "")
                         for i in node.items)
        return f"(with {items} {dump(node.body)})"
    if cls is n.FunctionDef:
        decorators = "".join(f"@{dump(d)} " for d in node.decorators)
        return f"({decorators}def {node.name}({','.join(node.params.names())}) {dump(node.body)})"
    if cls is n.Import or cls is n.ImportFrom:
        names = " ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in node.names)
        return f"(import {names})" if cls is n.Import else f"(from {node.module} import {names})"
    return cls.__name__.lower()


def raises_at(exc_type, line: int, col: int, fn, *args, match: str | None = None, **kwargs):
    """Assert that fn(*args) raises exc_type at line:col (and, if given, matching `match`)."""
    with pytest.raises(exc_type, match=match) as info:
        fn(*args, **kwargs)
    span = info.value.span
    assert span is not None, f"{info.value!r} has no span"
    assert (span.line, span.col) == (line, col), f"{info.value} at {span}, expected {line}:{col}"
    return info.value
