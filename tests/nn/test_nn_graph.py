"""The inspector sees the model: leaves named by parameter path, one cluster per module."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from gradcli.cli.app import app

runner = CliRunner()

TWO_LAYER = """import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 2)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))

model = Net()
for p in model.parameters():
    nn.init.constant_(p, 1.0)
loss = model(torch.ones(1, 2)).sum()
"""


def invoke(tmp_path, source: str, *args) -> str:
    path = tmp_path / "prog.py"
    path.write_text(source)
    result = runner.invoke(app, [*args[:1], str(path), *args[1:]])
    assert result.exit_code == 0, result.output
    return result.output


def test_dot_names_parameters_and_clusters_each_module(tmp_path):
    dot = invoke(tmp_path, TWO_LAYER, "graph", "--format", "dot")
    for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"):  # the leaves carry their paths
        assert any('class="gnode leaf"' in line and f"<b>{name}</b>" in line for line in dot.splitlines())
    lines = [line.strip() for line in dot.splitlines()]
    opened = [line for line in lines if line.startswith("subgraph cluster_")]
    assert [line.split("label=")[1].split(";")[0] for line in opened] == [
        '"model (Net)"', '"fc2 (Linear)"', '"act (ReLU)"', '"fc1 (Linear)"']
    # the ReLU's cluster holds exactly its ReluBackward0 node
    relu = next(line.split()[0] for line in lines if "ReluBackward0" in line)
    start = next(i for i, line in enumerate(lines) if line.startswith('subgraph cluster_2 { label="act (ReLU)";'))
    assert lines[start + 1:start + 3] == [f"{relu};", "}"]
    # the parameters' leaves sit in their layer's cluster
    fc1 = next(i for i, line in enumerate(lines) if line.startswith('subgraph cluster_3 { label="fc1 (Linear)";'))
    leaf = next(line.split()[0] for line in lines if "<b>fc1.weight</b>" in line)
    assert f"{leaf};" in lines[fc1:lines.index("}", fc1)]


def test_mermaid_has_the_same_clusters(tmp_path):
    text = invoke(tmp_path, TWO_LAYER, "graph", "--format", "mermaid")
    assert 'subgraph m0 ["model (Net)"]' in text and 'subgraph m3 ["fc1 (Linear)"]' in text
    assert text.count("\n    end") + text.count("\n  end") == 4


def test_list_and_backward_json_key_parameters_by_path(tmp_path):
    listing = invoke(tmp_path, TWO_LAYER, "graph")
    assert "variable fc2.weight" in listing
    data = json.loads(invoke(tmp_path, TWO_LAYER, "backward", "--json"))
    # loss = fc2(relu(fc1(1))) with all ones: h = 3 per unit; d/dfc2.weight = h; d/dfc1.weight = 1
    assert data["grads"]["fc2.weight"] == [[3.0, 3.0]]
    assert data["grads"]["fc1.weight"] == [[1.0, 1.0], [1.0, 1.0]]
    assert list(data["grads"])[:4] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


def test_two_top_level_modules_are_prefixed_by_their_variables(tmp_path):
    source = TWO_LAYER + "head = nn.Linear(1, 1)\nloss = head(model(torch.ones(1, 2))).sum()\n"
    listing = invoke(tmp_path, source, "graph")
    assert "variable model.fc1.weight" in listing and "variable head.weight" in listing


def test_the_path_wins_over_a_variable_holding_the_parameter(tmp_path):
    source = TWO_LAYER + "w = model.fc1.weight\n"
    listing = invoke(tmp_path, source, "graph", "--of", "loss")
    assert "variable fc1.weight" in listing and "variable w" not in listing
    data = json.loads(invoke(tmp_path, source, "backward", "--of", "loss", "--json"))
    assert "p" not in data["grads"] and "w" not in data["grads"]
