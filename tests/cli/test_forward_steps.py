"""`gradcli jacobian --mode forward --steps`: each forward-mode pass, step by step.

The steps are checked against what they must add up to (the last step's tangent is
the Jacobian's column, which reverse mode computes independently), against each op's
derivative written by hand here (d sin = cos, d(a*b) = a db + b da), and for the
order a forward pass must have (the leaves' seeds first, each op after its inputs).
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

PROGRAMS = [
    "x = [2., 3.]; w = 1.5; y = (x * x * w).sin().repeat(3)",
    "x = [[1., 2.], [3., 4.]]; y = (x @ x).tanh().softmax(1)",
    "x = [2., 3.]; a, b = x.unbind(); y = a * b + x.exp().sum()",
]


def _run(*args):
    result = CliRunner().invoke(app, ["jacobian", *args])
    return result


def _json(program: str, *extra) -> dict:
    result = _run("-e", program, "--mode", "forward", "--steps", "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("program", PROGRAMS)
def test_each_pass_ends_in_its_column_of_the_reverse_jacobian(program):
    doc = _json(program)
    reverse = json.loads(_run("-e", program, "--mode", "reverse", "--json").stdout)
    wrt = doc["wrt"]
    sizes = [np.size(reverse["jacobian"][name]) // max(1, np.size(doc["output"]["value"])) for name in wrt]
    assert len(doc["passes"]) == sum(sizes)
    k = 0
    for name, size in zip(wrt, sizes):
        block = np.array(reverse["jacobian"][name]).reshape(np.shape(doc["output"]["value"]) + (size,))
        for j in range(size):
            p = doc["passes"][k]
            seed = np.array(p["seeds"][name]).reshape(-1)
            assert seed[j] == 1.0 and seed.sum() == 1.0
            np.testing.assert_allclose(np.array(p["tangent"]), block[..., j], rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(np.array(p["steps"][-1]["tangent"]), block[..., j], rtol=1e-12, atol=1e-12)
            k += 1


def test_a_step_is_its_rule_applied_to_the_tangents_in():
    doc = _json("x = [0.5, 2.]; y = 3.0; s = x.sin(); z = s * y", "--wrt", "x,y")
    x, y = np.array([0.5, 2.0]), 3.0
    by_pass = [{s.get("op") or s["variable"]: s for s in p["steps"]} for p in doc["passes"]]
    for p, steps in zip(doc["passes"], by_pass):
        tx, ty = np.array(p["seeds"]["x"]), p["seeds"]["y"]
        assert steps["x"]["tangent"] == list(tx) and steps["y"]["tangent"] == ty
        sin = steps["sin"]
        assert sin["node"] == "SinBackward0" and sin["rule"].startswith("pointwise")
        assert sin["tangents_in"] == [{"next": "AccumulateGrad", "index": 0, "tangent": list(tx), "variable": "x"}]
        np.testing.assert_allclose(sin["tangent"], np.cos(x) * tx, rtol=1e-12)
        mul = steps["mul"]
        assert [e["next"] for e in mul["tangents_in"]] == ["SinBackward0", "AccumulateGrad"]
        np.testing.assert_allclose(mul["tangent"], np.sin(x) * ty + y * np.cos(x) * tx, rtol=1e-12)
    assert len(doc["passes"]) == 3   # x[0], x[1], y


def test_steps_run_inputs_first_and_each_op_after_its_inputs():
    doc = _json("x = [2., 3.]; a, b = x.unbind(); y = a * b + x.exp().sum()")
    for p in doc["passes"]:
        seen = set()
        for s in p["steps"]:
            if "variable" in s and "op" not in s:
                assert s["node"] == "AccumulateGrad"
            else:
                assert all(e["next"] in seen for e in s["tangents_in"] if e["next"] is not None)
            seen.add(s["node"])
        unbind = next(s for s in p["steps"] if s.get("op") == "unbind")
        assert unbind["tangent"] == p["seeds"]["x"]   # one tangent per output: x's two elements


def test_human_steps():
    result = _run("-e", "x = 2.0; y = x.sin() * x", "--mode", "forward", "--steps")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "pass 1 of 1 (column x): tangents x = tensor(1.)" in out
    assert "step 1: AccumulateGrad: x tangent = tensor(1.)" in out
    assert "step 2: SinBackward0 at 1:16  sin, pointwise rule" in out
    assert f"tangent out = tensor({math.cos(2.0):.4f})" in out
    assert "<- (AccumulateGrad (x), 0): tensor(1.)" in out
    slope = math.sin(2.0) + 2.0 * math.cos(2.0)
    assert f"tangent out = tensor({slope:.4f})" in out
    assert out.index("step 1:") < out.index("step 2:") < out.index("step 3: MulBackward0")


def test_steps_need_forward_mode():
    result = _run("-e", "x = [2., 3.]; y = x.sum()", "--steps")
    assert result.exit_code == 2
    assert "--steps shows forward-mode passes: give --mode forward" in result.stderr
    auto = _run("-e", "x = [2., 3.]; y = x.sum()", "--steps", "--mode", "auto")
    assert auto.exit_code == 2 and "computed in reverse mode" in auto.stderr
    wide = _run("-e", "x = 2.; y = x.repeat(3)", "--steps", "--mode", "auto", "--json")
    assert wide.exit_code == 0 and len(json.loads(wide.stdout)["passes"]) == 1


def test_a_tensor_input_made_to_require_grad_by_wrt():
    """`torch.tensor(...)` without requires_grad: --wrt makes it an input in the re-run too."""
    doc = _json("import torch\nx = torch.tensor([1.0, 2.0])\ny = x * x\n", "--wrt", "x")
    assert [s["node"] for s in doc["passes"][0]["steps"]] == ["AccumulateGrad", "MulBackward0"]
    assert doc["passes"][1]["tangent"] == [0.0, 4.0]


def test_without_steps_no_passes():
    result = _run("-e", "x = 2.; y = x.sin()", "--mode", "forward", "--json")
    assert "passes" not in json.loads(result.stdout)
