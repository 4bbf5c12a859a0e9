"""Issue 27's Python and torch tail: each program here prints under `gradcli run` what
PyTorch 2.13 printed (recorded by record.py into torch_output/)."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

HERE = Path(__file__).resolve().parent
PROGRAMS = sorted(p for p in HERE.glob("*.py") if p.name not in ("record.py", "test_pytail.py"))


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_prints_what_pytorch_prints(program):
    result = CliRunner().invoke(app, ["run", str(program)])
    assert result.exit_code == 0, result.output
    expected = (HERE / "torch_output" / (program.stem + ".txt")).read_text()
    assert result.output.splitlines() == expected.splitlines()
