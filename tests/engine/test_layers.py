"""The import direction of docs/ARCHITECTURE.md: the library never imports the language
or the CLI, and nothing below the CLI imports typer or rich at module level."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "gradcli"
LIBRARY = ["_tensor.py", "errors.py", "format.py", "optim", "ops", "autograd", "nn"]


def modules(*parts):
    for part in parts:
        path = PACKAGE / part
        yield from ([path] if path.suffix else sorted(path.rglob("*.py")))


def imported(path: Path, top_level_only: bool = False):
    """Absolute names of what a file imports (relative imports resolved)."""
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            name = ".".join(base + ((node.module,) if node.module else ()))
            yield name
            yield from (f"{name}.{alias.name}" for alias in node.names)


@pytest.mark.parametrize("path", list(modules(*LIBRARY)), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_library_imports_neither_the_language_nor_the_cli(path):
    bad = [name for name in imported(path)
           if name.startswith(("gradcli.lang", "gradcli.cli", "gradcli.render"))]
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", list(modules(*LIBRARY, "lang", "check", "answers")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_ui_library_below_the_cli(path):
    bad = [name for name in imported(path) if name.split(".")[0] in ("typer", "rich", "click")]
    assert not bad, f"{path.name} imports {bad}"


def test_relative_imports_resolve_to_absolute_names():
    """`from ..errors import Builtin` in autograd/func.py is gradcli.errors.Builtin: the walk
    would see `from ..lang import x` as gradcli.lang."""
    assert "gradcli.errors.Builtin" in set(imported(PACKAGE / "autograd" / "func.py"))
