"""`gradcli jacobian --mode forward --steps`: each forward pass's ops and the tangents they gave."""
import json
import math

from typer.testing import CliRunner

from gradcli.cli.app import app

PROGRAM = "x = [2., 3.]; y = x.sin() * x"


def _jacobian(*options):
    return CliRunner().invoke(app, ["jacobian", "-e", PROGRAM, "--wrt", "x", *options])


def test_steps_in_json():
    result = _jacobian("--mode", "forward", "--steps", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [(s["input"], s["element"]) for s in doc["steps"]] == [("x", 0), ("x", 1)]
    first = doc["steps"][0]["ops"]
    assert [op["op"] for op in first] == ["sin", "mul"]
    assert math.isclose(first[0]["tangent"][0], math.cos(2.0), rel_tol=1e-6)
    assert first[0]["tangent"][1] == 0.0
    # the last op's tangent is the Jacobian's column
    for k, step in enumerate(doc["steps"]):
        assert step["ops"][-1]["tangent"] == [row[k] for row in doc["jacobian"]["x"]]


def test_steps_in_the_text():
    result = _jacobian("--mode", "forward", "--steps")
    assert result.exit_code == 0, result.output
    assert "forward pass: tangent e1 on x" in result.stdout
    assert "step 2: mul at 1:" in result.stdout


def test_steps_need_forward_mode():
    result = _jacobian("--steps")
    assert result.exit_code == 2
    assert "add --mode forward" in result.stderr


def test_no_steps_without_the_option():
    result = _jacobian("--mode", "forward", "--json")
    assert result.exit_code == 0, result.output
    assert "steps" not in json.loads(result.stdout)
