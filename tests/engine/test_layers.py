"""The layers of docs/ARCHITECTURE.md, enforced: every import under gradcli/ (at module level
and inside functions) points down the layer order written there, and the imports have no
cycle but the one the document names (`Tensor.backward` calls the engine)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "gradcli"
# The one import that points up, as PyTorch's torch/_tensor.py does: Tensor.backward.
ALLOWED_UP = {("gradcli._tensor", "gradcli.autograd.engine")}


def layers() -> list[list[str]]:
    """The layer order, top first, from the ```layers block of docs/ARCHITECTURE.md: each line
    names its packages (`ops/`) and modules (`errors.py`) before two spaces and a description."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    block = re.search(r"```layers\n(.*?)```", text, re.S).group(1)
    order = []
    for line in block.splitlines():
        names = re.split(r"\s{2,}", line.strip())[0].split()
        if names and all(n.endswith(("/", ".py")) for n in names):
            order.append(names)
    return order


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str, order) -> int:
    """The index of the layer a module belongs to (0 = top)."""
    rest = module.split(".", 1)[1] if "." in module else "__init__"
    top = rest.split(".")[0]
    for i, names in enumerate(order):
        for name in names:
            if name.endswith("/") and top == name[:-1] or name == top + ".py":
                return i
    raise AssertionError(f"{module} is in no layer of docs/ARCHITECTURE.md")


def imported(path: Path, top_level_only: bool = False):
    """Absolute names of what a file imports (relative imports resolved): for
    `from a import b`, a.b when that is a module, else a (b is a name in it)."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            name = ".".join(base + ((node.module,) if node.module else ()))
            for alias in node.names:
                yield f"{name}.{alias.name}" if f"{name}.{alias.name}" in MODULES else name


def gradcli_imports(path: Path) -> set[str]:
    """The gradcli modules a file imports."""
    out = set()
    for name in imported(path):
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name.startswith("gradcli") and name != module_name(path):
            out.add(name)
    return out


EDGES = {m: gradcli_imports(p) for m, p in MODULES.items()}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_import_points_down_the_layers(module):
    order = layers()
    mine = layer_of(module, order)
    up = [t for t in EDGES[module] if layer_of(t, order) < mine and (module, t) not in ALLOWED_UP]
    assert not up, f"{module} (layer {order[mine]}) imports {up}, above it"


def cycles(edges: dict) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def test_no_import_cycle_but_tensor_backward():
    edges = {m: {t for t in ts if (m, t) not in ALLOWED_UP} for m, ts in EDGES.items()}
    assert cycles(edges) == []


def test_the_cycle_check_can_fail():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({m: set(ts) for m, ts in EDGES.items()}), "Tensor.backward's import is a cycle"


def test_every_layer_named_exists():
    for names in layers():
        for name in names:
            assert (PACKAGE / name.rstrip("/")).exists(), f"ARCHITECTURE names {name}, which is not there"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.startswith("gradcli.cli")))
def test_no_ui_library_below_the_cli(module):
    bad = [name for name in imported(MODULES[module]) if name.split(".")[0] in ("typer", "rich", "click")]
    assert not bad, f"{module} imports {bad}"


def test_relative_imports_resolve_to_absolute_names():
    """`from ..errors import Builtin` in autograd/func.py imports gradcli.errors, and
    `from .. import dtypes` gradcli.dtypes (not the package gradcli)."""
    assert "gradcli.errors" in set(imported(PACKAGE / "autograd" / "func.py"))
    assert "gradcli.dtypes" in set(imported(PACKAGE / "ops" / "convert.py"))   # from .. import dtypes
