"""The warning channel (gradcli.warn): a program's warnings on stderr as PyTorch and Python
show them (the same places, categories and texts, once per line by default, the program's
filters respected), standard output and the exit code unchanged. PyTorch's output for each
program in tests/cli/warnings/ is recorded beside it by its record.py."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

HERE = Path(__file__).parent / "warnings"
# Python's `FILE:LINE: Category: text` and gradcli's `FILE:LINE:COL: warning: Category: text`
PYTHON = re.compile(r"^[^ ].*?:(\d+): (\w+): (.*)$")
GRADCLI = re.compile(r"^[^ ].*?:(\d+):\d+: warning: (\w+): (.*)$")
# PyTorch's C++ warnings end with the place in PyTorch's own source: not ours to print
INTERNAL = re.compile(r" \(Triggered internally at .*\)$")


def run(*args):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def warnings_in(stderr: str, pattern) -> list:
    found = []
    for line in stderr.splitlines():
        m = pattern.match(line)
        if m:
            found.append((int(m[1]), m[2], INTERNAL.sub("", m[3])))
    return found


@pytest.mark.parametrize("name", sorted(p.stem for p in HERE.glob("*.stdout")))
def test_warnings_are_pytorchs(name):
    result = run("run", str(HERE / f"{name}.py"))
    assert result.exit_code == 0, result.output
    assert result.stdout == (HERE / f"{name}.stdout").read_text()
    expected = warnings_in((HERE / f"{name}.stderr").read_text(), PYTHON)
    assert expected, "the recording holds warnings"
    assert warnings_in(result.stderr, GRADCLI) == expected


def test_every_program_is_recorded():
    programs = {p.stem for p in HERE.glob("*.py")} - {"record"}
    assert programs == {p.stem for p in HERE.glob("*.stdout")} == {p.stem for p in HERE.glob("*.stderr")}


def test_a_warning_shows_its_line_and_a_caret():
    result = run("run", "-e", "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\nprint(y.grad)\n")
    assert result.exit_code == 0
    assert result.stdout == "None\n"
    assert result.stderr.splitlines()[:3] == [
        "<expr>:4:9: warning: UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being "
        "accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the "
        ".grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
        "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
        "github.com/pytorch/pytorch/pull/30531 for more information.",
        "  print(y.grad)",
        "          ^^^^",
    ]


def test_json_output_is_untouched():
    result = run("run", "--json", "-e", "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n"
                                        "print(y.grad)\n")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["printed"] == ["None"]
    assert "warning: UserWarning: The .grad attribute" in result.stderr


def test_an_error_after_a_warning_keeps_its_exit_code():
    result = run("run", "-e", "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n"
                              "print(y.grad)\nprint(undefined)\n")
    assert result.exit_code == 3
    assert "warning: UserWarning" in result.stderr and "error: unknown name 'undefined'" in result.stderr


def test_the_library_warnings_point_at_the_program():
    """The library's own warnings.warn (kl_div's 'mean') are shown at the program's line, not
    at gradcli's source, and a message filter with `.*` hides them."""
    source = "import torch\nimport torch.nn.functional as F\nx = torch.ones(3)\nv = F.kl_div(x, x)\n"
    result = run("run", "-e", source)
    assert result.exit_code == 0
    assert result.stderr.startswith("<expr>:4:")
    assert "warning: UserWarning: reduction: 'mean' divides the total loss" in result.stderr
    assert "gradcli/" not in result.stderr
    hidden = run("run", "-e", "import warnings\nwarnings.filterwarnings('ignore', message='.*BATCHMEAN')\n"
                              + source)
    assert hidden.exit_code == 0 and hidden.stderr == ""


def test_once_per_place_over_a_commands_runs():
    """`--points` runs the program once per line: a warning is shown once per place for the
    command, not once per run."""
    result = CliRunner().invoke(app, ["grad", "-e", "x = 1.0\ny = x * x\nz = y.grad\ny", "--wrt", "x",
                                      "--points", "-", "--json"], input='{"x": 1}\n{"x": 2}\n{"x": 3}\n')
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 3
    assert result.stderr.count("warning: UserWarning: The .grad attribute") == 1


def test_error_action_raises_the_warning():
    result = run("run", "-e", "import warnings\nwarnings.simplefilter('error')\nwarnings.warn('stop here')\n")
    assert result.exit_code == 3
    assert "error: UserWarning: stop here" in result.stderr
