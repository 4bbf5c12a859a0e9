"""PyTorch's autograd examples (tests/engine/autograd_api/*.py) print, through `gradcli run`,
what PyTorch 2.13 printed for them (the .out files; object addresses aside)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

SAMPLES = Path(__file__).parent / "autograd_api"
ADDRESS = re.compile(r"0x[0-9a-f]+")


def _normalized(text: str) -> list[str]:
    return ADDRESS.sub("0x", text).rstrip("\n").split("\n")


@pytest.mark.parametrize("program", sorted(SAMPLES.glob("*.py")), ids=lambda p: p.stem)
def test_sample_prints_what_pytorch_prints(program):
    result = CliRunner().invoke(app, ["run", str(program)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert _normalized(result.stdout) == _normalized(program.with_suffix(".out").read_text())


def test_every_sample_has_pytorchs_output():
    programs = sorted(SAMPLES.glob("*.py"))
    assert len(programs) >= 9   # hvp and vhp share a program, as do the saved-tensors-hook ones
    for program in programs:
        assert program.with_suffix(".out").exists(), program
