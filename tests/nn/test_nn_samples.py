"""samples/nn_*.py under `gradcli run` print what PyTorch 2.13 printed for them (recorded in
tests/nn/torch_output/, float64: each sample calls model.double() and uses float64 data)."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app
from gradcli.ops import FUNCTIONS, NN_FUNCTIONS

ROOT = Path(__file__).resolve().parents[2]
RECORDED = Path(__file__).parent / "torch_output"
# the F functions a sample needs beyond the ones gradcli had (nn-ops adds them)
NEEDS = {"nn_lenet": ("conv2d", "max_pool2d")}


@pytest.mark.parametrize("name", sorted(p.stem for p in RECORDED.glob("*.txt")))
def test_sample_prints_what_pytorch_printed(name):
    missing = [f for f in NEEDS.get(name, ()) if f not in NN_FUNCTIONS and f not in FUNCTIONS]
    if missing:
        pytest.skip(f"F.{', F.'.join(missing)} not defined yet")
    result = CliRunner().invoke(app, ["run", str(ROOT / "samples" / f"{name}.py")])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == (RECORDED / f"{name}.txt").read_text().splitlines()
