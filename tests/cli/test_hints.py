"""Hints for the common mistakes (issue 15): each with its message, its place
(FILE:LINE:COL and a caret under it) and its exit code."""
import json

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app


def invoke(*args):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def error_of(*args):
    """(the --json error object, stderr) of a failing command."""
    result = invoke(*args, "--json")
    doc = json.loads(result.stdout)["error"]
    assert result.exit_code == doc["code"]
    assert "Traceback" not in result.stderr
    return doc, result.stderr


def caret_under(stderr: str, text: str) -> bool:
    """The caret line of an error starts under `text` in the source line shown above it."""
    lines = stderr.splitlines()
    for shown, caret in zip(lines, lines[1:]):
        if caret.strip().startswith("^") and text in shown:
            return caret.index("^") == shown.index(text)
    return False


# (command args, exit code, message part, (line, col), the text the caret is under, hint parts)
CASES = {
    "backward of a vector": (
        ["backward", "-e", "x = [1.0, 2.0]\ny = x * 2"], 4,
        "only for scalar outputs", (2, 7), "* 2", ["--gradient ones", ".sum()", "jacobian"]),
    "grad of a vector": (
        ["grad", "-e", "x = [1.0, 2.0]\ny = x * 2", "--wrt", "x"], 4,
        "only for scalar outputs", (2, 7), "* 2", ["--grad-outputs ones", ".sum()", "jacobian"]),
    "output computed without grad": (
        ["backward", "-e", "x = torch.tensor([1.0, 2.0])\ny = (x * 2).sum()"], 4,
        "does not require grad", (1, 11), "tensor(", ["'x'", "requires_grad=True"]),
    "an input made without grad": (
        ["backward", "-e", "x = torch.tensor(2.0)"], 4,
        "does not require grad", (1, 11), "tensor(", ["'x'", "requires_grad=True"]),
    "grad of an output that does not use --wrt": (
        ["grad", "-e", "a = torch.tensor([1.0, 2.0])\nx = 1.0\ny = (a * 2).sum()", "--wrt", "x"], 4,
        "does not require grad", (3, 13), "sum", ["'y' is not computed from 'x'"]),
    "an unused input": (
        ["grad", "-e", "x = 1.0\nw = 2.0\ny = x * 3", "--wrt", "x,w"], 4,
        "appears to not have been used", (2, 5), "2.0", ["'w'", "--allow-unused"]),
    "hessian of a vector": (
        ["hessian", "-e", "x = [1.0, 2.0]\ny = x * x", "--wrt", "x"], 3,
        "hessian needs a scalar output", (2, 7), "* x", [".sum()", "--of", "jacobian"]),
    "--wrt unknown": (
        ["grad", "-e", "xs = 1.0\ny = xs * 3", "--wrt", "x"], 2,
        "--wrt: no tensor named 'x'", None, None, ["did you mean 'xs'?"]),
    "--set unknown": (
        ["grad", "-e", "xs = 1.0\ny = xs * 3", "--wrt", "xs", "--set", "x=2"], 2,
        "--set: no input named 'x'", None, None, ["did you mean 'xs'?"]),
    "--of unknown": (
        ["grad", "-e", "x = 1.0\nys = x * 3", "--wrt", "x", "--of", "y"], 2,
        "--of: no value named 'y'", None, None, ["did you mean 'ys'?"]),
    "^ for **": (
        ["eval", "-e", "x = 1.0\ny = x ^ 2"], 3,
        "\"bitwise_xor_cpu\" not implemented for 'Double'", (2, 7), "^", ["**"]),
    "sin x": (
        ["eval", "-e", "x = 1.0\ny = sin x"], 3,
        "invalid syntax", (2, 9), "x", ["sin(x)"]),
    "2x": (
        ["eval", "-e", "x = 1.0\ny = 2x + 1"], 3,
        "invalid decimal literal", (2, 5), "2x", ["2 * x"]),
    ":=": (
        ["eval", "-e", "x = 1.0\ny := x"], 3,
        "':=' is not supported", (2, 3), ":=", ["'='"]),
    "np. without an import": (
        ["eval", "-e", "x = 1.0\ny = np.sin(x)"], 3,
        "unknown name 'np'", (2, 5), "np.", ["import numpy as np", "torch.sin"]),
    "math. without an import": (
        ["eval", "-e", "x = 1.0\ny = math.sin(x)"], 3,
        "unknown name 'math'", (2, 5), "math.", ["import math", "torch.sin"]),
    "nn.Conv3d": (
        ["eval", "-e", "x = 1.0\ny = nn.Conv3d(2, 3, 1)"], 3,
        "torch.nn.Conv3d is not supported in gradcli", (2, 8), "Conv3d", ["not supported", "torch.nn.functional"]),
    "nn.Softshrink": (
        ["eval", "-e", "x = 1.0\ny = torch.nn.Softshrink()(x)"], 3,
        "torch.nn.Softshrink is not supported in gradcli", (2, 14), "Softshrink", ["not supported"]),
    "nn.CTCLoss": (
        ["eval", "-e", "x = 1.0\nf = nn.CTCLoss()"], 3,
        "torch.nn.CTCLoss is not supported in gradcli", (2, 8), "CTC", ["not supported"]),
    "input()": (
        ["eval", "-e", "x = 1.0\ny = input(x)"], 3,
        "input() is not supported in gradcli", (2, 5), "input", ["--set NAME=VALUE"]),
    ".numpy() of a tensor that requires grad": (
        ["eval", "-e", "x = [1.0]\ny = x.numpy()"], 4,
        "Use tensor.detach().numpy() instead", (2, 7), "numpy", []),
    "a program's own non-scalar backward": (
        ["run", "-e", "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 2\ny.backward()"], 4,
        "only for scalar outputs", (3, 3), "backward", ["torch.ones_like", ".sum()"]),
    "an error inside the engine": (
        ["backward", "-e", "x = [1.0, 2.0]\ny = x.sigmoid()\nz = y.sum()\ny.mul_(2)\nw = z"], 4,
        "modified by an inplace operation", (2, 7), "sigmoid", []),
}


@pytest.mark.parametrize("case", list(CASES))
def test_hint(case):
    args, code, message, place, under, hints = CASES[case]
    doc, stderr = error_of(*args)
    assert doc["code"] == code
    assert message in doc["message"]
    if place is None:
        assert "line" not in doc
    else:
        assert (doc["line"], doc["col"]) == place
        assert f"<expr>:{place[0]}:{place[1]}: error: " in stderr
        assert caret_under(stderr, under)
    for part in hints:
        assert part in doc["hint"]
        assert part in stderr


@pytest.mark.parametrize("source, misleading", [
    ("y = math.sin(2.0)", "matmul"), ("y = input(2.0)", "'int'"), ("y = torch.ones(1).numpi()", "numel")])
def test_misleading_suggestions_are_gone(source, misleading):
    doc, _ = error_of("eval", "-e", source)
    assert misleading not in doc["hint"]


def test_np_hint_applies_only_when_np_is_not_defined():
    doc, _ = error_of("eval", "-e", "np = 2.0\ny = np.sin(1.0)")
    assert "import" not in doc.get("hint", "")


# -- the three wrong outputs of the issue --------------------------------------------


def graph_sources(*args) -> dict:
    doc = json.loads(invoke("graph", *args, "--format", "json").stdout)
    return [(node["name"], tuple(map(int, node["source"].split(":"))) if node.get("source") else None)
            for node in doc["nodes"]]


def test_attribute_access_nodes_carry_their_own_position():
    nodes = graph_sources("-e", "x = [[1.0, 2.0], [3.0, 4.0]]\ny = x.T\nz = y.mT * 2")
    places = {name: source for name, source in nodes}
    assert places["PermuteBackward0"] == (2, 7)
    assert places["TransposeBackward0"] == (3, 7)


def test_two_layer_net_transposes_are_on_lines_14_and_15():
    nodes = graph_sources("samples/two_layer_net.py")
    lines = sorted(source[0] for name, source in nodes if name == "PermuteBackward0")
    assert lines == [14, 15]


def test_backward_inputs_sets_the_grad_of_a_non_leaf_and_says_why_others_have_none():
    result = invoke("backward", "samples/e09_grad_nonleaf.py", "--gradient", "ones", "--inputs", "c", "--json")
    doc = json.loads(result.stdout)
    assert doc["grads"] == {"a": None, "b": None, "c": [2.0, 2.0]}  # PyTorch: c.grad = [2., 2.]
    assert doc["why_none"] == {"a": "--inputs left it out", "b": "--inputs left it out"}
    human = invoke("backward", "samples/e09_grad_nonleaf.py", "--gradient", "ones", "--inputs", "c").stdout
    assert "no path" not in human and "--inputs left it out" in human


def test_symbolic_grad_with_grad_outputs_gives_formulas():
    result = invoke("grad", "samples/e12_custom_function.py", "--wrt", "x", "--symbolic",
                    "--grad-outputs", "ones")
    assert result.exit_code == 0
    assert "no formula" not in result.stdout
    assert "exp(x[0]) + 3" in result.stdout
