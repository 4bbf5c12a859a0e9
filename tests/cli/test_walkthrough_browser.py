"""The walk-through page (`graph -o walk.html`) read in headless Chromium, as a reader sees it
(issue 28.6): the keys step through backward, the side panel's numbers never wrap, and the
picture labels only the edges of the current step, where they cover no node, no module title
and no other label.

The page is the one `graph -o` writes, with `walkthrough_harness.js` added after its own
script: the harness presses the keys, reads the layout Chromium computed (line boxes, SVG
boxes, computed styles) and leaves it as JSON in the body's `data-harness`, read back from
`--dump-dom`. The expected steps come from `backward --steps --json`, not from the page.
"""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app
from gradcli.render import picture

ROOT = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).with_name("walkthrough_harness.js")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
runner = CliRunner()


def _dot_found() -> bool:
    folders = (sysconfig.get_path("scripts"), os.path.dirname(sys.executable))
    return bool(shutil.which("dot")) or any(
        os.path.isfile(os.path.join(f, picture.WHEEL_PROGRAM)) for f in folders)


pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs "
                                                "Debian's chromium when apt is available)"),
    pytest.mark.skipif(not _dot_found(), reason="no Graphviz: neither dot nor the graphviz-pure wheel"),
]


class _Body(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.body = {}

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self.body = dict(attrs)


def harnessed(sample: Path, tmp_path: Path, width: int = 1400) -> dict:
    """Write the sample's walk-through, open it with the harness in Chromium (a window
    `width` pixels wide; timers run in virtual time), return what the harness found."""
    page = tmp_path / "walk.html"
    result = runner.invoke(app, ["graph", str(sample), "-o", str(page)])
    assert result.exit_code == 0, result.stderr
    text = page.read_text()
    assert text.count("</body>") == 1
    page.write_text(text.replace("</body>", f"<script>{HARNESS.read_text()}</script></body>"))
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={width},1000",
               "--virtual-time-budget=10000", "--dump-dom", page.as_uri()]
    proc = subprocess.run(command, capture_output=True, timeout=180)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    parser = _Body()
    parser.feed(proc.stdout.decode())
    assert "data-harness" in parser.body, "the harness did not finish"
    return json.loads(parser.body["data-harness"])


def backward_steps(sample: Path) -> list:
    result = runner.invoke(app, ["backward", str(sample), "--json", "--steps"])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["steps"]


def _apart(a, b) -> bool:
    (ax, ay, aw, ah), (bx, by, bw, bh) = a, b
    return ax + aw <= bx or bx + bw <= ax or ay + ah <= by or by + bh <= ay


SAMPLES = [ROOT / "samples" / name for name in ("two_layer_net.py", "nn_graph.py", "e06_unbind.py",
                                                 "shared_nodes.txt")]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_labels_for_the_current_step_only_and_apart(sample, tmp_path):
    found = harnessed(sample, tmp_path)
    steps = backward_steps(sample)
    states = found["states"]
    assert [s["position"] for s in states] == list(range(len(steps) + 1)) + [len(steps)]
    for state in states[:len(steps) + 1]:
        k = state["position"]
        carried = [] if k == 0 else [e for e in steps[k - 1]["edges"] if e["next"] is not None]
        labels = state["labels"]
        assert len(labels) == len(carried), (k, labels)
        assert all(label["cls"] == "gradlabel now" for label in labels)
        assert all(label["text"].startswith("grad ") for label in labels)
        for i, label in enumerate(labels):
            for other in labels[i + 1:]:
                assert _apart(label["box"], other["box"]), (k, label, other)
            for box in state["nodes"]:
                assert _apart(label["box"], box), (k, label, box)
        # every edge carried so far says what it carried when hovered, with its step
        said = [t for t in state["titles"] if t.startswith("grad ")]
        assert len(said) == sum(len([e for e in s["edges"] if e["next"] is not None])
                                for s in steps[:k])
        assert all(t.endswith(")") and "(step " in t for t in said)


@pytest.mark.parametrize("width", [1400, 900])
def test_the_panel_never_wraps_a_number(width, tmp_path):
    found = harnessed(ROOT / "samples" / "two_layer_net.py", tmp_path, width)
    for state in found["states"]:
        assert state["white"] and set(state["white"]) == {"pre"}
        for boxes, lines in state["wraps"]:
            assert boxes == lines, (state["position"], state["wraps"])
    assert any(lines >= 4 for state in found["states"] for _, lines in state["wraps"])  # matrices shown


def test_keys_step_back_play_pause_first_last(tmp_path):
    found = harnessed(ROOT / "samples" / "two_layer_net.py", tmp_path)
    n = len(backward_steps(ROOT / "samples" / "two_layer_net.py"))
    assert found["states"][-1]["position"] == n            # a right arrow at the end stays there
    assert found["keys"] == [
        ["ArrowLeft", n - 1], ["ArrowLeft", n - 2], ["Home", 0], ["End", n],
        [" ", 0, "Pause"],                                   # space at the first step plays ...
        ["after 2.2 s", 2],                                  # ... one step each 0.9 s
        [" ", 2, "Play"], ["after 2 s more", 2],             # space again pauses
    ]
