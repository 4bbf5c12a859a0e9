"""`graph --values` shows a dual tensor's tangent (forward mode) beside its value."""
import json
import math

from typer.testing import CliRunner

from gradcli.cli.app import app

PROGRAM = """import torch
import torch.autograd.forward_ad as fwAD

x = torch.tensor([1.0, 2.0], requires_grad=True)
with fwAD.dual_level():
    d = fwAD.make_dual(x, torch.tensor([1.0, 0.0]))
    y = d.sin() * d
    z = y.sum()
"""


def _graph(tmp_path, *options):
    path = tmp_path / "dual.py"
    path.write_text(PROGRAM)
    return CliRunner().invoke(app, ["graph", *options, str(path)])


def test_tangents_in_json(tmp_path):
    result = _graph(tmp_path, "--values", "--format", "json")
    assert result.exit_code == 0, result.output
    nodes = {n.get("tensor") or n.get("variable"): n for n in json.loads(result.stdout)["nodes"]}
    slope = math.cos(1.0) + math.sin(1.0)   # d(x sin x)/dx at 1, along (1, 0)
    assert math.isclose(nodes["z"]["tangent"], slope, rel_tol=1e-6)
    assert [round(v, 6) for v in nodes["y"]["tangent"]] == [round(slope, 6), 0.0]
    assert nodes["d"]["tangent"] == [1.0, 0.0]
    assert "tangent" not in nodes["x"]   # the leaf itself is not dual


def test_tangents_in_the_list(tmp_path):
    result = _graph(tmp_path, "--values")
    assert result.exit_code == 0, result.output
    assert "tangent: tensor([1., 0.])" in result.stdout


def test_no_tangents_without_values(tmp_path):
    result = _graph(tmp_path, "--format", "json")
    assert result.exit_code == 0, result.output
    assert all("tangent" not in n for n in json.loads(result.stdout)["nodes"])
