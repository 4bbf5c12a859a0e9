"""Running a program for the nn tests: its printed lines, or the ProgramError it raised."""
from __future__ import annotations

import pytest

from gradcli.errors import ProgramError
from gradcli.lang import compile_program

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def run(source: str) -> list:
    lines: list = []
    compile_program(HEADER + source).run(stdout=lines.append, script=True)
    return [line.rstrip("\n") for line in lines]


def fails(source: str) -> ProgramError:
    with pytest.raises(ProgramError) as info:
        run(source)
    assert info.value.span is not None, f"{info.value!r} has no position"
    return info.value
