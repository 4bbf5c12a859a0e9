"""A few real processes with pipes: gradcli as scripts use it."""
import json
import subprocess
import sys

import pytest

GRADCLI = [sys.executable, "-m", "gradcli"]
XXY = "x = 2.0\ny = 3.0\nz = x * x * y\n"


def strict(text):
    """json.loads that refuses NaN/Infinity literals, as jq and other strict parsers do."""
    def refuse(name):
        raise ValueError(f"not strict JSON: {name}")
    return json.loads(text, parse_constant=refuse)


def gradcli(*args, input=None, timeout=120):
    return subprocess.run(GRADCLI + list(args), input=input, capture_output=True, text=True, timeout=timeout)


def test_program_on_stdin_json_on_stdout():
    proc = gradcli("backward", "-", "--json", input=XXY)
    assert proc.returncode == 0, proc.stderr
    assert strict(proc.stdout)["grads"] == {"x": 12.0, "y": 4.0}


def test_ten_thousand_points_through_a_pipe():
    points = "".join(json.dumps({"x": i / 100, "y": 1.0}) + "\n" for i in range(10_000))
    proc = gradcli("grad", "-e", XXY, "--wrt", "x", "--points", "-", input=points)
    assert proc.returncode == 0, proc.stderr[-500:]
    lines = proc.stdout.splitlines()
    assert len(lines) == 10_000
    for i in (0, 1234, 9999):
        doc = strict(lines[i])
        assert doc["point"]["x"] == i / 100
        assert doc["grads"]["x"] == pytest.approx(2 * (i / 100))


def test_nan_and_infinity_are_strings_in_json():
    proc = gradcli("eval", "-e", "x = [0., 1.]\ny = log(x)\nz = x / x\n", "--json")
    doc = strict(proc.stdout)
    assert doc["values"]["y"] == ["-Infinity", 0.0]
    assert doc["values"]["z"][0] == "NaN"


def test_broken_pipe_is_quiet():
    proc = subprocess.run(
        " ".join(GRADCLI) + " ops | head -1", shell=True, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert "Traceback" not in proc.stderr


def test_error_exit_code_and_no_traceback_in_a_real_process():
    proc = gradcli("eval", "-e", "y = nosuch(1)\n")
    assert proc.returncode == 3
    assert "<expr>:1:5: error:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_expression_of_a_hundred_thousand_terms(tmp_path):
    f = tmp_path / "long.txt"
    f.write_text("x = 0.5\ny = " + " + ".join(["x * 1.0"] * 100_000) + "\n")
    proc = gradcli("backward", str(f), "--json")
    assert proc.returncode == 0, proc.stderr[-500:]
    assert strict(proc.stdout)["grads"]["x"] == pytest.approx(100_000.0)


def test_file_of_a_hundred_thousand_statements(tmp_path):
    f = tmp_path / "many.txt"
    f.write_text("x = 0.5\ny = x\n" + "y = y + x\n" * 100_000)
    proc = gradcli("grad", str(f), "--wrt", "x", "--json")
    assert proc.returncode == 0, proc.stderr[-500:]
    assert strict(proc.stdout)["grads"]["x"] == pytest.approx(100_001.0)
