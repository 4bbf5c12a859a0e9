"""The seed cases (the programs in samples/, expected.json beside this file; both from
shared/seed-cases) through the CLI.

Each case runs in-process through Typer's CliRunner and is judged as the
shared check.py judges it: exit code, stderr fragment, JSON paths, graph
patterns, printed lines. Values are PyTorch's.
"""
import json
import math
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
CASES = json.loads((Path(__file__).parent / "expected.json").read_text())["cases"]
NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?|-?\.\d+|nan|inf", re.I)


def lookup(doc, path):
    for key in path.split("."):
        assert isinstance(doc, dict) and key in doc, f"{path}: missing"
        doc = doc[key]
    return doc


def close(got, want):
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(close(g, w) for g, w in zip(got, want))
    if want is None or isinstance(want, (bool, str)):
        return got == want
    return isinstance(got, (int, float)) and not isinstance(got, bool) and math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)


def _id(case):
    return f"{case['command']}-{case['file']}-{'-'.join(case.get('args', []))}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_seed_case(case, match_graph):
    command = case["command"]
    argv = [command, *case.get("args", []), str(SAMPLES / case["file"])]
    if command != "run":
        argv.append("--json")
    result = CliRunner().invoke(app, argv, catch_exceptions=False)
    stdout, stderr = result.stdout, result.stderr
    assert result.exit_code == case.get("exit", 0), stderr
    if "stderr" in case:
        assert case["stderr"] in stderr
    if command != "run" and any(k in case for k in ("json", "absent", "graph", "json_any_check")):
        doc = json.loads(stdout)
        for key, want in case.get("json", {}).items():
            got = lookup(doc, key)
            assert close(got, want), f"{key}: {got!r}, expected {want!r}"
        for key in case.get("absent", []):
            with pytest.raises(AssertionError):
                lookup(doc, key)
        if "graph" in case:
            match_graph({n["id"]: n for n in doc["nodes"]}, doc["root"], case["graph"])
        if "json_any_check" in case:
            want = case["json_any_check"]
            assert any(all(c.get(k) == v for k, v in want.items()) for c in doc["checks"])
    if "printed" in case:
        lines = stdout.splitlines()
        if case.get("printed_numbers_only"):
            got = [[float(n) for n in NUMBER.findall(line)] for line in lines]
            want = [[float(n) for n in NUMBER.findall(line)] for line in case["printed"]]
            assert [len(g) for g in got] == [len(w) for w in want], lines
            for g, w in zip(got, want):
                assert g == pytest.approx(w, rel=1e-9), lines
        else:
            assert lines == case["printed"]
