"""`gradcli hessian` forward over reverse (answers/forward_hessian.py) against reverse over reverse."""
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcli.answers import forward_hessian
from gradcli.cli.app import app

ROSENBROCK = """import torch
x = torch.linspace(-1, 1, 12, dtype=torch.float64)
w = torch.tensor([0.5, -1.0], dtype=torch.float64)
z = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum() * (w * w).sum() + (x * w.sum()).sum()
"""

CONTROL_FLOW = """import torch
x = torch.linspace(-1, 1, 10, dtype=torch.float64)
if x.sum() > 5:
    x = x * 2
z = (x ** 3).sum()
"""


def _hessian(tmp_path, program, wrt):
    path = tmp_path / "f.py"
    path.write_text(program)
    result = CliRunner().invoke(app, ["hessian", str(path), "--wrt", wrt, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["hessian"]


def _counted(monkeypatch):
    calls = []
    original = forward_hessian._blocks

    def counting(*args):
        out = original(*args)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(forward_hessian, "_blocks", counting)
    return calls


def test_forward_over_reverse_equals_reverse_over_reverse(tmp_path, monkeypatch):
    calls = _counted(monkeypatch)
    fast = _hessian(tmp_path, ROSENBROCK, "x,w")
    assert calls == [True]
    monkeypatch.setattr(forward_hessian, "MIN_VARIABLES", 10 ** 9)
    slow = _hessian(tmp_path, ROSENBROCK, "x,w")
    assert calls == [True]   # not asked again
    for a in ("x", "w"):
        for b in ("x", "w"):
            np.testing.assert_allclose(np.array(fast[a][b]), np.array(slow[a][b]), rtol=1e-12, atol=1e-12)


def test_a_program_that_reads_its_input_falls_back(tmp_path, monkeypatch):
    calls = _counted(monkeypatch)
    out = _hessian(tmp_path, CONTROL_FLOW, "x")
    assert calls == [] or calls == [False]
    x = np.linspace(-1, 1, 10)
    np.testing.assert_allclose(np.array(out["x"]["x"]), np.diag(6 * x), rtol=1e-12, atol=1e-12)


REASSIGNED = """import torch
x = torch.linspace(-1, 1, 10, dtype=torch.float64)
x = x * 2
z = (x ** 3).sum()
"""


def test_an_input_reassigned_from_itself_falls_back(tmp_path, monkeypatch):
    """--wrt x names the last x (2 * the first): reverse over reverse differentiates by it."""
    calls = _counted(monkeypatch)
    out = _hessian(tmp_path, REASSIGNED, "x")
    assert calls == [False]
    x = 2 * np.linspace(-1, 1, 10)
    np.testing.assert_allclose(np.array(out["x"]["x"]), np.diag(6 * x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("wrt", ["x", "w"])
def test_few_variables_stay_reverse_over_reverse(tmp_path, monkeypatch, wrt):
    calls = _counted(monkeypatch)
    monkeypatch.setattr(forward_hessian, "MIN_VARIABLES", 13)
    _hessian(tmp_path, ROSENBROCK, wrt)
    assert calls == []
