"""The layers, losses and functions of issue 27 print what PyTorch 2.13 printed for the same
programs (tests/nn/tail/*.py, float64, weights set from a formula; PyTorch's output recorded
in tests/nn/tail/torch_output/ by tests/nn/tail/record.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

PROGRAMS = Path(__file__).parent / "tail"
RECORDED = PROGRAMS / "torch_output"


@pytest.mark.parametrize("name", sorted(p.stem for p in RECORDED.glob("*.txt")))
def test_program_prints_what_pytorch_printed(name):
    result = CliRunner().invoke(app, ["run", str(PROGRAMS / f"{name}.py")])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == (RECORDED / f"{name}.txt").read_text().splitlines()


def test_every_program_has_a_recording():
    programs = {p.stem for p in PROGRAMS.glob("*.py")} - {"record"}
    assert programs == {p.stem for p in RECORDED.glob("*.txt")}
