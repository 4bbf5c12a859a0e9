"""The default dtype of each command (float32 for run, float64 for the expression
commands), --dtype, and dtypes in --json (issue 12)."""
import json

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app


def invoke(*args):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_run_defaults_to_float32_as_pytorch():
    result = invoke("run", "-e", "import torch\nprint(torch.tensor(0.1).item(), torch.get_default_dtype())")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["0.10000000149011612", "torch.float32"]


def test_run_with_dtype_float64():
    result = invoke("run", "--dtype", "float64", "-e", "import torch\nprint(torch.tensor(0.1).item())")
    assert result.stdout.split() == ["0.1"]


@pytest.mark.parametrize("command", [["eval"], ["backward"], ["grad", "--wrt", "x"], ["jacobian", "--wrt", "x"],
                                     ["hessian", "--wrt", "x"], ["graph", "--format", "json"]])
def test_expression_commands_default_to_float64(command):
    result = invoke(*command, "-e", "x = 0.1\ny = x * 3", *(["--json"] if command[0] != "graph" else []))
    assert result.exit_code == 0, result.stderr
    assert "dtype" not in result.stdout   # every tensor is of the command's default


def test_expression_commands_with_dtype_float32():
    doc = json.loads(invoke("eval", "--dtype", "float32", "-e", "x = 0.1\ny = x * 3", "--json").stdout)
    assert doc["values"]["y"] == float((__import__("numpy").float32(0.1) * 3))
    assert "dtypes" not in doc   # float32 is this run's default
    human = invoke("eval", "--dtype", "float32", "-e", "x = 0.1\ny = x * 3").stdout
    assert "tensor(0.3000)" in human and "dtype=" not in human


def test_json_gives_integer_tensors_as_integers_and_their_dtype():
    doc = json.loads(invoke("run", "--json", "-e", "import torch\nn = torch.arange(3)\nm = n > 0\n"
                                                  "d = torch.ones(1, dtype=torch.float64)").stdout)
    assert doc["values"]["n"] == [0, 1, 2] and all(type(v) is int for v in doc["values"]["n"])
    assert doc["dtypes"] == {"n": "int64", "m": "bool", "d": "float64"}


def test_expression_literals_are_of_the_default_float_dtype():
    doc = json.loads(invoke("eval", "-e", "x = tensor([1, 2])\ny = x / 2", "--json").stdout)
    assert doc["values"]["x"] == [1.0, 2.0] and "dtypes" not in doc


def test_set_default_dtype_in_a_program():
    result = invoke("run", "-e", "import torch\ntorch.set_default_dtype(torch.float64)\n"
                                 "print(torch.tensor(0.1).item(), torch.tensor([1.5], dtype=torch.float32))")
    assert result.stdout.strip() == "0.1 tensor([1.5000], dtype=torch.float32)"


def test_requires_grad_of_an_integer_tensor_is_refused():
    result = invoke("run", "-e", "import torch\nx = torch.arange(4, requires_grad=True)")
    assert result.exit_code != 0
    assert "Only Tensors of floating point and complex dtype can require gradients" in result.stderr


def test_math_takes_the_expression_commands_float_literals_as_ints():
    result = invoke("eval", "--json", "-e", "import math\na = math.factorial(4) + math.comb(4, 2)\nx = 2.0\ny = x * a")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["values"]["y"] == 60.0


def test_plot_and_ops_take_dtype():
    for command in ("plot", "ops"):
        assert "--dtype" in invoke(command, "--help").stdout
