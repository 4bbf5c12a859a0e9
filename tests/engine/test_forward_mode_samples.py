"""Forward-mode programs (tests/engine/forward_mode/*.py) print, through `gradcli run`,
what PyTorch 2.13 printed for them (the .out files)."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

SAMPLES = Path(__file__).parent / "forward_mode"


@pytest.mark.parametrize("program", sorted(SAMPLES.glob("*.py")), ids=lambda p: p.stem)
def test_sample_prints_what_pytorch_prints(program):
    result = CliRunner().invoke(app, ["run", str(program)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip("\n").split("\n") == \
        program.with_suffix(".out").read_text().rstrip("\n").split("\n")


def test_every_sample_has_pytorchs_output():
    programs = sorted(SAMPLES.glob("*.py"))
    assert len(programs) >= 5
    for program in programs:
        assert program.with_suffix(".out").exists(), program
