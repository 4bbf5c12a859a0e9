"""`gradcli graph -o g.svg|png|html` (issue 16): real pictures drawn by Graphviz.

Every sample is drawn with the graphviz-pure wheel (PATH emptied, so the wheel is
found beside this Python) and the SVG is read as XML against `graph --json` of the
same sample: one node group per node with its highlight class, one edge group per
edge, the names, shapes and edge labels. One test uses the system `dot` when there
is one; the walk-through page is checked as a file and, when Chromium is installed,
stepped in headless Chromium and read back from its DOM.
"""
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app
from gradcli.render import picture

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted(p for p in (ROOT / "samples").iterdir() if p.suffix in (".py", ".txt"))
SVG = "{http://www.w3.org/2000/svg}"
runner = CliRunner()


def _wheel() -> str | None:
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        path = os.path.join(folder, picture.WHEEL_PROGRAM)
        if os.path.isfile(path):
            return path
    return shutil.which(picture.WHEEL_PROGRAM)


needs_wheel = pytest.mark.skipif(_wheel() is None, reason="the graphviz-pure wheel is not installed "
                                                          "(pip install -e '.[test]')")


@pytest.fixture
def wheel_only(monkeypatch, tmp_path):
    """No `dot` on PATH: the picture comes from the graphviz-pure wheel."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert picture.find_dot() == [_wheel()] or os.path.samefile(picture.find_dot()[0], _wheel())


def invoke(*args):
    result = runner.invoke(app, ["graph", *map(str, args)])
    return result


def graph_doc(sample) -> dict:
    result = invoke(sample, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def svg_parts(path):
    """{id: (class, texts)} of the node and edge groups of a Graphviz SVG."""
    tree = ET.parse(path)
    parts = {}
    for g in tree.iter(SVG + "g"):
        cls = g.get("class", "")
        if cls.split()[:1] in (["node"], ["edge"]):
            texts = [t.text or "" for t in g.iter(SVG + "text")]
            title = "".join(a.get("{http://www.w3.org/1999/xlink}title", "") for a in g.iter(SVG + "a"))
            parts[g.get("id")] = (cls.split(), texts, title)
    return parts


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@needs_wheel
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_every_sample_draws_as_svg_and_png_with_the_wheel(sample, tmp_path, wheel_only):
    svg_path, png_path = tmp_path / "g.svg", tmp_path / "g.png"
    text = invoke(sample, "--json")
    if text.exit_code != 0:  # an output without a graph (or a run that fails): no picture either
        assert text.exit_code in (3, 4), text.stderr
        assert invoke(sample, "-o", svg_path).exit_code == text.exit_code
        assert not svg_path.exists()
        return
    doc = json.loads(text.stdout)
    for path in (svg_path, png_path):
        result = invoke(sample, "-o", path)
        assert result.exit_code == 0, (result.stderr, result.exception)
        assert result.stdout == ""
    parts = svg_parts(svg_path)
    for node in doc["nodes"]:
        classes, texts, tooltip = parts[f"n{node['id']}"]
        assert "node" in classes and "gnode" in classes
        words = " ".join(texts)
        if node["id"] == doc["root"]:
            assert "output" in classes and "output" in texts
        elif node["name"] == "AccumulateGrad":
            assert "leaf" in classes
        if node["name"] == "AccumulateGrad" and "variable" in node:
            assert texts[0] == node["variable"]
        else:
            assert texts[0] == node["name"]
            if "tensor" in node and node["id"] != doc["root"]:
                assert node["tensor"] in texts
        if "source" in node:
            assert f"at {node['source']}" in texts
            assert f"line {node['source'].split(':')[0]}: " in tooltip
        assert any(t.startswith("[") and t.endswith("]") or t == "scalar" for t in texts), words
        for k, (target, index) in enumerate(node["next"]):
            classes, texts, _ = parts[f"e{node['id']}_{k}"]
            assert "edge" in classes and ("none" in classes) == (target is None)
            assert [t.strip() for t in texts] == ([str(index)] if index != 0 else [])
    edge_count = sum(len(n["next"]) for n in doc["nodes"])
    assert sum(1 for key, (cls, _, _) in parts.items() if "edge" in cls) == edge_count
    data = png_path.read_bytes()
    width, height = png_size(data)
    assert 30 <= width <= 10_000 and 30 <= height <= 20_000
    assert len(data) > 1000


@needs_wheel
def test_labels_only_where_the_output_index_is_not_0(tmp_path, wheel_only):
    out = tmp_path / "g.svg"
    result = invoke("-e", "a = [2.0, 3.0, 4.0]; b, c, d = a.unbind(); e = b * c * d", "-o", out)
    assert result.exit_code == 0, result.stderr
    labels = sorted(texts[0].strip() for key, (cls, texts, _) in svg_parts(out).items()
                    if "edge" in cls and texts)
    assert labels == ["1", "2"]


@needs_wheel
def test_saved_and_values_are_short(tmp_path, wheel_only):
    out = tmp_path / "g.svg"
    program = "x = torch.arange(100.0, requires_grad=True); w = 2.0; y = (x * w).tanh().sum()"
    result = invoke("-e", program, "-o", out, "--saved", "--values")
    assert result.exit_code == 0, result.stderr
    parts = svg_parts(out)
    saved = {key: texts for key, (cls, texts, _) in parts.items() if "saved" in cls}
    assert ["_saved_result", "[100]"] in [texts[:2] for texts in saved.values()]  # TanhBackward0's result
    assert ["_saved_self", "[100]"] in [texts[:2] for texts in saved.values()]    # MulBackward0's self
    every = [t for _, texts, _ in parts.values() for t in texts]
    assert "= min 0. max 99." in every                   # x: 100 elements, a summary
    assert "= 2." in every                               # w: one element, its value
    assert max(len(t) for t in every) < 60               # never a whole tensor


@needs_wheel
def test_format_svg_and_png_write_to_standard_output(tmp_path, wheel_only):
    path = tmp_path / "prog.py"
    path.write_text("x = 2.0\ny = x * x\n")
    proc = subprocess.run([sys.executable, "-m", "gradcli", "graph", str(path), "--format", "png"],
                          capture_output=True, cwd=ROOT, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    png_size(proc.stdout)
    svg = invoke(path, "--format", "svg")
    assert svg.exit_code == 0
    assert ET.fromstring(svg.stdout.encode()).tag == SVG + "svg"


def test_other_files_and_conflicts(tmp_path):
    prog = ["-e", "x = 2.0; y = x * x"]
    assert invoke(*prog, "-o", tmp_path / "g.dot").exit_code == 0
    assert (tmp_path / "g.dot").read_text().startswith("digraph grad_fn {")
    assert invoke(*prog, "-o", tmp_path / "g.mmd").exit_code == 0
    assert (tmp_path / "g.mmd").read_text().startswith("flowchart TD")
    assert invoke(*prog, "-o", tmp_path / "g.json").exit_code == 0
    assert json.loads((tmp_path / "g.json").read_text())["nodes"][0]["name"] == "MulBackward0"
    assert invoke(*prog, "--tree", "-o", tmp_path / "g.txt").exit_code == 0
    assert (tmp_path / "g.txt").read_text().startswith("MulBackward0 tensor y scalar")
    # --format wins over the extension (issue 28.5)
    assert invoke(*prog, "-o", tmp_path / "g.out", "--format", "mermaid").exit_code == 0
    assert (tmp_path / "g.out").read_text().startswith("flowchart TD")
    for bad in (["-o", tmp_path / "g.gif"], ["-o", tmp_path / "g.svg", "--json"], ["-o", tmp_path / "g.svg", "--tree"],
                ["--format", "svg", "--points", tmp_path / "p.jsonl"]):
        result = invoke(*prog, *bad)
        assert result.exit_code == 2, (bad, result.stdout)
    assert not (tmp_path / "g.gif").exists()


def test_without_any_dot_exit_2_with_both_install_commands(tmp_path, monkeypatch):
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(picture, "WHEEL_PROGRAM", "no-such-graphviz-program")
    result = invoke("-e", "x = 2.0; y = x * x", "-o", tmp_path / "g.svg")
    assert result.exit_code == 2
    assert "apt-get install graphviz" in result.stderr
    assert "pip install 'gradcli[pictures]'" in result.stderr
    assert not (tmp_path / "g.svg").exists()


@needs_wheel
def test_more_than_500_nodes_need_max_nodes(tmp_path, wheel_only):
    program = "x = 1.0\ny = x\nfor i in range(300):\n    y = y * x + 1\n"  # 2 nodes a turn
    out = tmp_path / "big.svg"
    refused = invoke("-e", program, "-o", out)
    assert refused.exit_code == 3
    assert "more than --max-nodes 500" in refused.stderr and "--max-nodes N" in refused.stderr
    assert not out.exists()
    drawn = invoke("-e", program, "-o", out, "--max-nodes", "1000")
    assert drawn.exit_code == 0, drawn.stderr
    parts = svg_parts(out)
    nodes = [key for key, (cls, _, _) in parts.items() if "gnode" in cls and "copy" not in cls]
    assert len(nodes) == 601  # an Add and a Mul a turn, and x
    # x is used 301 times (the first turn is x * x): drawn once, and again beside each further use (a fast layout)
    copies = [texts for key, (cls, texts, _) in parts.items() if "copy" in cls]
    assert len(copies) == 300 and all(texts == ["x"] for texts in copies)
    assert invoke("-e", program, "--tree").exit_code == 0  # text has no such limit


@pytest.mark.skipif(shutil.which("dot") is None, reason="no system Graphviz dot on PATH")
def test_the_dot_on_path_comes_first(tmp_path):
    assert picture.find_dot() == [shutil.which("dot")]
    out = tmp_path / "g.svg"
    result = invoke(ROOT / "samples" / "e05_chain.py", "-o", out)
    assert result.exit_code == 0, result.stderr
    text = out.read_text()
    assert "graphviz-pure" not in text.split("<svg")[0]
    parts = svg_parts(out)
    assert "output" in parts["n0"][0]
    assert sum("leaf" in cls for cls, _, _ in parts.values()) == 3


# -- the walk-through ----------------------------------------------------------------

TWO_LAYER = ROOT / "samples" / "two_layer_net.py"


def backward_json(sample) -> dict:
    result = runner.invoke(app, ["backward", str(sample), "--json", "--steps"])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def page_data(text: str) -> dict:
    start = text.index('<script type="application/json" id="walk-data">') + len(
        '<script type="application/json" id="walk-data">')
    return json.loads(text[start:text.index("</script>", start)])


@needs_wheel
def test_walkthrough_is_one_self_contained_file(tmp_path, wheel_only):
    out = tmp_path / "walk.html"
    result = invoke(TWO_LAYER, "-o", out)
    assert result.exit_code == 0, result.stderr
    text = out.read_text()
    lowered = text.lower()
    for fetch in ("<script src", "<link", "<img", "<iframe", "@import", "url(", "fetch(",
                  "xmlhttprequest", "https://"):
        assert fetch not in lowered, fetch
    assert lowered.count("<svg") == 1
    data = page_data(text)
    expected = backward_json(TWO_LAYER)
    assert [s["node"] for s in expected["steps"]] == [s["name"] for s in data["steps"]]
    for mine, theirs in zip(data["steps"], expected["steps"]):
        assert [e["to"] is None for e in mine["edges"]] == [e["next"] is None for e in theirs["edges"]]
    by_id = {n["id"]: n for n in data["nodes"]}
    assert by_id[data["root"]]["kind"] == "output"
    mm = next(n for n in data["nodes"] if n["name"] == "MmBackward0")
    names = [s["name"] for s in mm["saved"]]  # PyTorch 2.13's attribute names, sizes included
    assert {"_saved_self", "_saved_mat2"} & set(names) and set(names) <= {
        "_saved_self", "_saved_mat2", "_saved_self_sym_sizes", "_saved_self_sym_strides",
        "_saved_mat2_sym_sizes", "_saved_mat2_sym_strides"}
    assert any("mat2" in rule for f in mm["formula"] for rule in f["rules"])
    assert mm["line"].startswith(("hidden =", "logits ="))


class _LeafCells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self.body = {}, {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        if tag == "td" and "leafgrad" in (attrs.get("class") or ""):
            self.cells[attrs["data-leaf"]] = attrs.get("data-value")


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
BROWSER_ENV = dict(os.environ)  # as found: the tests below empty PATH for the picture


needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run "
                                    "installs Debian's chromium when apt is available)")


def chromium_dom(page: Path, hash_: str, tmp_path: Path, parser):
    """`parser` fed the DOM of the page (a file:// URL with `hash_`) once headless Chromium
    has run its script."""
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri() + hash_]
    proc = subprocess.run(command, capture_output=True, timeout=120, env=BROWSER_ENV)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    parser.feed(proc.stdout.decode())
    return parser


def dump_dom(page: Path, hash_: str, tmp_path: Path) -> _LeafCells:
    """The leaves' cells and the body's state once the page's script pressed Step as the hash says."""
    return chromium_dom(page, hash_, tmp_path, _LeafCells())


@needs_wheel
@needs_chromium
def test_stepping_backward_in_chromium_gives_backwards_grads(tmp_path, wheel_only):
    page = tmp_path / "walk.html"
    result = invoke(TWO_LAYER, "-o", page)
    assert result.exit_code == 0, result.stderr
    expected = backward_json(TWO_LAYER)
    n_steps = len(expected["steps"])

    start = dump_dom(page, "", tmp_path)
    assert start.body["data-position"] == "0" and start.body["data-done"] == "false"
    assert set(start.cells) == {"W1", "b1", "W2", "b2"}
    assert all(v is None for v in start.cells.values())

    first = dump_dom(page, "#steps=1", tmp_path)  # the output's node: nothing accumulated yet
    assert first.body["data-position"] == "1"
    assert all(v is None for v in first.cells.values())

    done = dump_dom(page, "#steps=all", tmp_path)
    assert done.body["data-position"] == str(n_steps) and done.body["data-done"] == "true"
    assert set(done.cells) == {k for k, v in expected["grads"].items() if v is not None}
    for name, value in done.cells.items():
        assert value is not None, name
        np.testing.assert_allclose(json.loads(value), expected["grads"][name], rtol=1e-12, atol=0)


def test_no_other_command_imports_the_picture_code():
    """Rendering code loads only when graph draws: backward and graph --tree do without it."""
    code = ("import sys\n"
            "from gradcli.cli.app import run_app\n"
            "run_app(['backward', '-e', 'x = 2.0; y = x * x'])\n"
            "run_app(['graph', '-e', 'x = 2.0; y = x * x', '--tree'])\n"
            "print(sorted(m for m in sys.modules if m in ('gradcli.render.picture', "
            "'gradcli.render.walkthrough', 'gradcli.cli.graph_output', 'matplotlib', 'plotext')))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]"
