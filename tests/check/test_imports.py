"""The modules of each package import each other in one direction: no cycle, not even a lazy one.

The graph is read from the source (every import statement, at module level or
inside a function), so a cycle hidden behind a function-level import is found
too; and each module is imported first, alone, in a fresh interpreter.
"""
import ast
import pathlib
import subprocess
import sys

import pytest

import gradcli

ROOT = pathlib.Path(gradcli.__file__).parent.parent
PACKAGES = ["gradcli.check", "gradcli.autograd", "gradcli.optim", "gradcli.answers", "gradcli.render", "gradcli.cli",
            "gradcli.lang"]


def _modules(package: str) -> dict:
    """module name -> path, for the package's own modules (its __init__ left out)."""
    folder = ROOT / package.replace(".", "/")
    return {f"{package}.{p.stem}": p for p in sorted(folder.glob("*.py")) if p.stem != "__init__"}


def _imports(name: str, path: pathlib.Path, known: set) -> set:
    """The modules of `known` that `name` imports anywhere in its source."""
    package = name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            target = ".".join(p for p in (base, node.module) if p)
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)   # `from . import symbolic`
    return found & known


def _cycle(graph: dict) -> list | None:
    """One cycle of the graph as a list of modules, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return None


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_among_the_modules(package):
    modules = _modules(package)
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    assert "gradcli.check.core" not in modules or graph["gradcli.check.core"], "the walk reads imports"
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_a_lazy_import_counts():
    source = ROOT / "gradcli/check/core.py"
    assert "gradcli.check.perop" in _imports("gradcli.check.core", source, {"gradcli.check.perop"})


def test_each_check_module_imports_first_in_a_fresh_interpreter():
    procs = {name: subprocess.Popen([sys.executable, "-c", f"import {name}"], cwd=ROOT,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in _modules("gradcli.check")}
    for name, proc in procs.items():
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, f"import {name} alone failed:\n{err}"
