"""The seed programs of shared/seed-cases run through the language: `run` cases in
script mode print exactly the expected lines; the others compute the expected output."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from gradcli import dtypes
from gradcli.errors import GradcliError
from gradcli.lang import compile_program

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seed-cases"
if not SEEDS.is_dir():
    SEEDS = Path("/work/shared/seed-cases")
pytestmark = pytest.mark.skipif(not (SEEDS / "expected.json").exists(), reason="no seed cases")
NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?|-?\.\d+|nan|inf", re.I)


def cases(command=None):
    if not (SEEDS / "expected.json").exists():
        return []
    found = json.loads((SEEDS / "expected.json").read_text())["cases"]
    return [c for c in found if command is None or (c["command"] == "run") == (command == "run")]


def numbers(line: str) -> list:
    return [float(x) for x in NUMBER.findall(line)]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["file"]) for c in cases("run")])
def test_run_cases_print_the_expected_lines(case):
    path = SEEDS / case["file"]
    program = compile_program(path.read_text(), str(path))
    lines: list = []
    error = None
    try:
        with dtypes.default_dtype(dtypes.float32):   # run's default dtype, as PyTorch's
            program.run(stdout=lines.append, script=True)
    except GradcliError as exc:
        error = exc
    if case.get("exit", 0):
        assert error is not None and int(error.exit_code) == case["exit"]
        assert case["stderr"] in error.message and error.span is not None
    else:
        assert error is None, error
    if case.get("printed_numbers_only"):
        assert [numbers(line) for line in lines] == [numbers(line) for line in case["printed"]]
    else:
        assert lines == case["printed"]


@pytest.mark.parametrize("name, output, value", [
    ("e01_linear.py", "y", 7.0),
    ("e02_xxy.txt", "z", 12.0),
    ("e03_vector_square.txt", "y", [4.0, 9.0]),
    ("e06_unbind.py", "e", 24.0),
    ("e07_dot.py", "y", 28.0),
    ("e11_control_flow.py", "d", -122880.0),
    ("e12_custom_function.py", "z", [3 + 6 + math.e + math.exp(3), 6 + 8 + math.exp(2) + math.exp(4)]),
])
def test_expression_cases_compute_the_output(name, output, value):
    path = SEEDS / name
    result = compile_program(path.read_text(), str(path)).run()
    assert result.output_name == output
    assert result.output.tolist() == pytest.approx(value, rel=1e-12)


def test_inputs_of_the_seeds():
    assert compile_program((SEEDS / "e02_xxy.txt").read_text()).input_names == ["x", "y"]
    assert compile_program((SEEDS / "e01_linear.py").read_text()).input_names == ["x", "w", "b"]
    result = compile_program((SEEDS / "e02_xxy.txt").read_text()).run(overrides={"x": 5, "y": -1})
    assert result.output.item() == -25.0


def test_custom_function_node_is_named_and_placed():
    path = SEEDS / "e12_custom_function.py"
    result = compile_program(path.read_text(), str(path)).run()
    node = result.values["z"].grad_fn
    assert node.name() == "FuncBackward"
    assert (node.source.line, node.source.col) == (21, 5)
    variables = [edge[0].variable for edge in node.next_functions]
    assert variables[0] is result.values["x"] and variables[1] is result.values["y"]
