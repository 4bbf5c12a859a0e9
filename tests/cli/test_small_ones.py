"""The inspector's smaller findings (issue 28.5), each through the real CLI."""
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from gradcli.cli.app import app

ROOT = Path(__file__).resolve().parents[2]


def invoke(*args, input=None):
    return CliRunner().invoke(app, list(args), input=input, catch_exceptions=False)


def test_a_nan_gradient_gets_a_hint_naming_detect_anomaly():
    result = invoke("grad", "-e", "x = 0.0\ny = sqrt(x) * 0\n")
    assert result.exit_code == 0 and "--detect-anomaly" in result.stderr and "NaN" in result.stderr
    result = invoke("backward", "-e", "x = 0.0\ny = sqrt(x) * 0\n", "--json")
    assert "--detect-anomaly" in result.stderr and json.loads(result.stdout)["grads"]["x"] == "NaN"
    assert "NaN" not in invoke("grad", "-e", "x = 1.0\ny = sqrt(x)\n").stderr


def test_png_is_refused_on_a_terminal():
    leader, follower = pty.openpty()
    proc = subprocess.run([sys.executable, "-m", "gradcli", "graph", "-e", "x = 1.0\ny = x * x\n",
                           "--format", "png"], stdout=follower, stderr=subprocess.PIPE, timeout=120)
    os.close(follower)
    os.close(leader)
    assert proc.returncode == 2
    assert b"binary" in proc.stderr and b"-o graph.png" in proc.stderr


def test_format_wins_over_the_extension_and_every_o_says_wrote(tmp_path):
    out = tmp_path / "graph.txt"
    result = invoke("graph", "-e", "x = 1.0\ny = x * x\n", "--format", "dot", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    assert out.read_text().startswith("digraph") and f"wrote {out}" in result.stderr
    tree = tmp_path / "tree.txt"
    assert f"wrote {tree}" in invoke("graph", "-e", "x = 1.0\ny = x * x\n", "--tree", "-o", str(tree)).stderr


def test_bad_extensions_are_one_style_for_graph_and_plot(tmp_path):
    graph = invoke("graph", "-e", "x = 1.0\ny = x * x\n", "-o", str(tmp_path / "g.xyz"))
    plot = invoke("plot", "-e", "x = 1.0\ny = x * x\n", "-o", str(tmp_path / "p.xyz"))
    for result, command in ((graph, "graph"), (plot, "plot")):
        assert result.exit_code == 2
        first = result.stderr.splitlines()[0]
        assert first.startswith(f"gradcli: error: -o {tmp_path}") and f"{command} writes" in first, first
        assert result.stderr.splitlines()[1].startswith("hint:")


def test_one_shape_style_everywhere():
    backward = invoke("backward", "-e", "x = [1.0, 2.0, 3.0]\ny = (x * x).sum()\n").stdout
    jacobian = invoke("jacobian", "-e", "x = [1.0, 2.0, 3.0]\ny = x * x\n").stdout
    assert "x.grad  shape [3]" in backward and "shape [3, 3]" in jacobian
    assert "(3,)" not in backward


def test_rows_are_in_program_order():
    # a one-element parameter (fc2.bias) is not listed before the blocks of fc1
    program = ("import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\n"
               "fc1 = nn.Linear(2, 2)\nfc2 = nn.Linear(2, 1)\n"
               "out = fc2(fc1(torch.tensor([1.0, 2.0]))).sum()\n")
    lines = invoke("backward", "-e", program).stdout.splitlines()
    order = [line.split()[0].replace(".grad", "") for line in lines
             if line.startswith(("fc1.", "fc2."))]
    assert order == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"], lines
    ev = invoke("eval", "-e", "x = [1.0, 2.0]\ny = 3.0\nz = (x * y).sum()\n").stdout.splitlines()
    names = [line.split()[0] for line in ev if line.split() and line.split()[0] in ("x", "y", "z")]
    assert names == ["x", "y", "z"], ev


def test_a_gradient_of_the_wrong_shape_is_exit_2_with_a_hint():
    result = invoke("backward", "-e", "x = [1.0, 2.0]\ny = x * x\n", "--gradient", "[1, 2, 3]")
    assert result.exit_code == 2
    assert "shape [3]" in result.stderr and "shape [2]" in result.stderr and "hint:" in result.stderr
    result = invoke("grad", "-e", "x = [1.0, 2.0]\ny = x * x\n", "--grad-outputs", "[1, 2, 3]")
    assert result.exit_code == 2


def test_an_empty_program_says_it_has_no_output():
    for command in ("grad", "backward", "jacobian", "graph"):
        result = invoke(command, "-e", "# nothing yet\n")
        assert result.exit_code == 3, command
        assert "has no output" in result.stderr and "None is None" not in result.stderr
    assert "output: none (the program assigns no name" in invoke("eval", "-e", "# nothing\n").stdout


def test_wrt_of_the_wrong_case_suggests_the_name():
    result = invoke("grad", "-e", "x = 1.0\ny = x * 2\n", "--wrt", "X")
    assert result.exit_code == 2 and "did you mean 'x'?" in result.stderr


def test_an_order_past_the_limit_says_so():
    result = invoke("grad", "-e", "x = 1.0\ny = x * x\n", "--order", "500")
    assert result.exit_code == 2
    assert "--order 500" in result.stderr and "nests too deeply" not in result.stderr


def test_the_no_requires_grad_hint_reads():
    result = invoke("backward", "-e", "import torch\na = torch.tensor(2.0)\nb = a * 3\n")
    assert result.exit_code == 4
    assert "'b' is not computed from any tensor that requires grad" in result.stderr


def test_the_tree_prefix_is_explained_in_help():
    text = " ".join(invoke("graph", "--help").stdout.split())
    assert "[k] before a node is the edge's output index" in text


def test_backward_wrt_points_at_inputs_and_grad():
    result = invoke("backward", "-e", "x = 1.0\ny = x * 2\n", "--wrt", "x")
    assert result.exit_code == 2
    assert "--inputs x" in result.stderr and "gradcli grad" in result.stderr


def test_samples_paste_back_into_pytorch():
    for sample in (ROOT / "samples").glob("*.py"):
        assert "seed=" not in sample.read_text(), sample.name


def test_symbolic_at_order_3_names_common_subexpressions_and_latex():
    program = "x = 0.5\ny = 1.5\nz = tanh(x*y) * exp(sin(x) + y**2) / (1 + x**2 * y)\n"
    plain = invoke("grad", "-e", program, "--wrt", "x", "--order", "3", "--symbolic")
    assert plain.exit_code == 0, plain.stderr
    assert "where c0 = sin(x)" in plain.stdout
    whole = json.loads(invoke("grad", "-e", program, "--wrt", "x", "--order", "3", "--symbolic",
                              "--json").stdout)["symbolic"]["x"]["x"]["x"]
    assert max(len(line) for line in plain.stdout.splitlines()) < len(whole)  # JSON keeps it whole
    assert "c0" not in whole
    latex = invoke("grad", "-e", program, "--wrt", "x", "--order", "3", "--latex").stdout
    assert "\\sin{\\left(x \\right)}" in latex and "c_{0}" in latex
    short = invoke("grad", "-e", "x = 0.5\ny = sin(x) * x\n", "--wrt", "x", "--symbolic").stdout
    assert "x*cos(x) + sin(x)" in short and "where" not in short
