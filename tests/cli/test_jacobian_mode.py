"""`gradcli jacobian --mode forward|reverse|auto`: forward mode gives reverse mode's Jacobian."""
from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

PROGRAMS = [
    "x = [2., 3.]; w = 1.5; y = (x * x * w).sin().repeat(3)",
    "x = [[1., 2.], [3., 4.]]; y = (x @ x).tanh().softmax(1)",
    "x = [0.5, -1.0, 2.0]; y = x.sum() * x[0] + x.exp().log_softmax(0)",
]


def _jacobian(program: str, mode: str) -> dict:
    result = CliRunner().invoke(app, ["jacobian", "-e", program, "--mode", mode, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("program", PROGRAMS)
def test_forward_mode_equals_reverse_mode(program):
    forward, reverse = _jacobian(program, "forward"), _jacobian(program, "reverse")
    assert forward["mode"] == "forward" and reverse["mode"] == "reverse"
    assert forward["jacobian"].keys() == reverse["jacobian"].keys()
    for name in forward["jacobian"]:
        np.testing.assert_allclose(np.array(forward["jacobian"][name]), np.array(reverse["jacobian"][name]),
                                   rtol=1e-12, atol=1e-12)


def test_auto_picks_by_shape_and_says_which():
    wide = CliRunner().invoke(app, ["jacobian", "-e", "x = [2., 3.]; y = x.repeat(4)", "--mode", "auto"])
    assert "mode: forward (2 input elements < 8 output elements)" in wide.stdout
    narrow = CliRunner().invoke(app, ["jacobian", "-e", "x = [2., 3.]; y = x.sum()", "--mode", "auto"])
    assert "mode: reverse (2 input elements >= 1 output elements)" in narrow.stdout


def test_forward_mode_reruns_print_nothing_twice():
    result = CliRunner().invoke(app, ["jacobian", "-e", "x = [2., 3.]; print('once'); y = x * x",
                                      "--mode", "forward"])
    assert result.exit_code == 0, result.output
    assert result.output.count("once") == 1


def test_unknown_mode_is_a_usage_error():
    result = CliRunner().invoke(app, ["jacobian", "-e", "x = [2., 3.]; y = x * x", "--mode", "sideways"])
    assert result.exit_code != 0 and "--mode must be forward, reverse or auto" in result.output
