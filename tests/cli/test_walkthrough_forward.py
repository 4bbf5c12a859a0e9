"""The walk-through's forward walk (`graph -o walk.html`): tangents from the inputs to the output.

The page's forward data is checked against what forward mode must give, computed apart:
the output's tangent along ones is the sum of the backward gradients' elements (a scalar
output: J 1 = sum of dz/dx_i), or the Jacobian (reverse mode) times ones; each op's
tangent against its derivative written by hand here. In headless Chromium the control
switches to the forward walk, steps it to the end, and the backward walk still works.
"""
from __future__ import annotations

import html.parser
import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

from test_graph_pictures import ROOT, chromium_dom, needs_chromium, TWO_LAYER, needs_wheel, wheel_only  # noqa: F401

runner = CliRunner()


def _page(tmp_path, *source):
    out = tmp_path / "walk.html"
    result = runner.invoke(app, ["graph", *map(str, source), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    return out


def _block(text: str, script_id: str) -> str:
    start = text.index(f'<script type="application/json" id="{script_id}">') + len(
        f'<script type="application/json" id="{script_id}">')
    return text[start:text.index("</script>", start)]


def _numbers(text: str) -> np.ndarray:
    return np.array(re.findall(r"-?\d+\.\d*", text), dtype=float)


def forward_data(page) -> dict:
    return json.loads(_block(page.read_text(), "forward-data"))


@needs_wheel
def test_the_output_tangent_is_the_gradients_summed(tmp_path, wheel_only):
    data = forward_data(_page(tmp_path, TWO_LAYER))
    back = runner.invoke(app, ["backward", str(TWO_LAYER), "--json"])
    grads = json.loads(back.stdout)["grads"]
    assert data["inputs"] == ["W1", "b1", "W2", "b2"] and data["seed"] == "ones on W1, b1, W2, b2"
    expected = sum(np.sum(grads[k]) for k in data["inputs"])
    np.testing.assert_allclose(data["out_value"], expected, rtol=1e-5)   # float32: two orders of sums
    assert data["steps"][-1]["node"] == 0 and "leaf" not in data["steps"][-1]


@needs_wheel
def test_each_step_is_its_ops_tangent_and_runs_after_its_inputs(tmp_path, wheel_only):
    page = _page(tmp_path, "-e", "x = [0.5, 2.]; y = 3.0; s = x.sin(); z = (s * y).clamp(-1, 2)")
    data = forward_data(page)
    x, y = np.array([0.5, 2.0]), 3.0
    steps = {s.get("op") or s["leaf"]: s for s in data["steps"]}
    assert [s.get("leaf") for s in data["steps"][:2]] == ["x", "y"]
    assert steps["x"]["tangent"] == "tensor([1., 1.])" and steps["y"]["tangent"] == "tensor(1.)"
    seen = set()
    for s in data["steps"]:
        assert all(e["from"] in seen for e in s.get("in", ()) if e["from"] is not None)
        seen.add(s["node"])
    assert steps["sin"]["formula"] == "t_self * cos(self)" and steps["sin"]["rule"].startswith("pointwise")
    assert steps["sin"]["in"][0]["tangent"] == "tensor([1., 1.])"
    mul = np.sin(x) * 1.0 + y * np.cos(x)
    np.testing.assert_allclose(_numbers(steps["mul"]["tangent"]), mul, atol=6e-5)   # printed to 4 places
    inside = (np.sin(x) * y >= -1) & (np.sin(x) * y <= 2)
    np.testing.assert_allclose(data["out_value"], np.where(inside, mul, 0.0), rtol=1e-12)
    # the Jacobian by reverse mode, times ones, is the same tangent
    jac = json.loads(runner.invoke(app, ["jacobian", "-e", "x = [0.5, 2.]; y = 3.0; s = x.sin(); "
                                         "z = (s * y).clamp(-1, 2)", "--wrt", "x,y", "--json"]).stdout)
    np.testing.assert_allclose(data["out_value"], np.sum(jac["jacobian"]["x"], axis=1) +
                               np.array(jac["jacobian"]["y"]), rtol=1e-12)


@needs_wheel
def test_program_text_in_the_forward_block_is_escaped(tmp_path, wheel_only):
    """clamp's rule holds `<=`; no `<`, `>` or `&` may reach the <script> (`\\u003c` instead)."""
    text = _page(tmp_path, "-e", "x = [0.5, 2.]; z = x.clamp(0, 1)").read_text()
    block = _block(text, "forward-data")
    assert "<" not in block and ">" not in block and "&" not in block and "\\u003c=" in block
    assert "where(min \u003c= self" not in block
    assert "where(min <= self" in json.loads(block)["steps"][-1]["formula"]


@needs_wheel
def test_module_parameters_are_inputs_too(tmp_path, wheel_only):
    """A module's parameters are leaves that require grad: each is given ones (when an op
    first reads it) and the output's tangent is the sum of their gradients' elements."""
    program = ("import torch\ntorch.manual_seed(0)\nfc = torch.nn.Linear(2, 3)\n"
               "y = fc(torch.tensor([1.0, 2.0])).tanh().sum()\n")
    data = forward_data(_page(tmp_path, "-e", program))
    assert sorted(data["inputs"]) == ["bias", "weight"]   # as backward names them (one module)
    grads = json.loads(runner.invoke(app, ["backward", "-e", program, "--json"]).stdout)["grads"]
    expected = sum(np.sum(grads[k]) for k in ("weight", "bias"))
    np.testing.assert_allclose(data["out_value"], expected, rtol=1e-5)


@needs_wheel
def test_a_failing_forward_run_says_why(tmp_path, wheel_only):
    """A custom Function without jvp is PyTorch's error in forward mode: the switch says it."""
    data = forward_data(_page(tmp_path, ROOT / "samples" / "nn_backward_hook.py"))
    assert data["error"].startswith("the program's forward-mode run failed: You must implement the jvp")


class _State(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.body, self.out, self.cells, self.buttons = {}, {}, {}, {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        if attrs.get("id") == "fwd-out":
            self.out = attrs
        if tag == "td" and "leafgrad" in (attrs.get("class") or ""):
            self.cells[attrs["data-leaf"]] = attrs.get("data-value")
        if tag == "button":
            self.buttons[attrs.get("id")] = attrs


def _dom(page, hash_, tmp_path) -> _State:
    return chromium_dom(page, hash_, tmp_path, _State())


@needs_wheel
@needs_chromium
def test_forward_walk_in_chromium(tmp_path, wheel_only):
    page = _page(tmp_path, TWO_LAYER)
    data = forward_data(page)
    n = len(data["steps"])

    start = _dom(page, "", tmp_path)   # the backward walk first; the switch is there
    assert start.body["data-mode"] == "backward" and "forward" not in start.body.get("class", "")
    assert "mode-forward" in start.buttons and "disabled" not in start.buttons["mode-forward"]

    one = _dom(page, "#fwd=1", tmp_path)
    assert one.body["data-mode"] == "forward" and one.body["data-fposition"] == "1"
    assert "data-value" not in one.out

    done = _dom(page, "#fwd=all", tmp_path)
    assert done.body["data-fposition"] == str(n) and done.body["data-fdone"] == "true"
    np.testing.assert_allclose(json.loads(done.out["data-value"]), data["out_value"], rtol=1e-12)
    assert done.body["data-position"] == "0"   # the backward walk waits at its start

    backward = _dom(page, "#steps=all", tmp_path)   # the backward walk is untouched by the block
    assert backward.body["data-mode"] == "backward" and backward.body["data-done"] == "true"
    assert all(v is not None for v in backward.cells.values())


_HARNESS = """<script>
(function () {
  function press(key) {
    document.dispatchEvent(new KeyboardEvent("keydown", {key: key, bubbles: true, cancelable: true}));
  }
  function at() { return [document.body.getAttribute("data-fposition"), document.body.getAttribute("data-position")]; }
  var out = [];
  document.getElementById("step").click(); out.push(["backward Step"].concat(at()));
  document.getElementById("mode-forward").click(); out.push(["switch"].concat(at()));
  press("ArrowRight"); press("ArrowRight"); out.push(["ArrowRight x2"].concat(at()));
  press("ArrowLeft"); out.push(["ArrowLeft"].concat(at()));
  press("End"); out.push(["End"].concat(at()));
  press("Home"); out.push(["Home"].concat(at()));
  var before = document.getElementById("node-panel").innerHTML;
  var leaf = document.querySelector("#picture svg #n" + %LEAF%);
  leaf.dispatchEvent(new MouseEvent("click", {bubbles: true}));
  out.push(["click", document.getElementById("fwd-node-title").textContent,
            document.getElementById("node-panel").innerHTML === before]);
  document.getElementById("mode-backward").click();
  document.getElementById("step").click(); out.push(["back to backward"].concat(at()));
  document.body.setAttribute("data-harness", JSON.stringify(out));
})();
</script>
"""


@needs_wheel
@needs_chromium
def test_keys_and_clicks_go_to_the_shown_walk(tmp_path, wheel_only):
    """While forward is shown the keys step it (and not the backward walk, whose own keys
    branch pictures adds); a click on a node opens the forward panel."""
    page = _page(tmp_path, "-e", "x = [0.5, 2.]; y = 3.0; s = x.sin(); z = (s * y).sum()")
    data = forward_data(page)
    leaf = next(s["node"] for s in data["steps"] if s.get("leaf") == "y")
    harnessed = tmp_path / "harnessed.html"
    harnessed.write_text(page.read_text().replace("</body>", _HARNESS.replace("%LEAF%", str(leaf)) + "</body>"))
    state = _dom(harnessed, "", tmp_path)
    n = str(len(data["steps"]))
    assert json.loads(state.body["data-harness"]) == [
        ["backward Step", None, "1"],
        ["switch", "0", "0"],                  # switching resets the backward walk
        ["ArrowRight x2", "2", "0"], ["ArrowLeft", "1", "0"], ["End", n, "0"], ["Home", "0", "0"],
        ["click", "y (an input)", True],       # the forward panel, not the backward one
        ["back to backward", "0", "1"],
    ]
