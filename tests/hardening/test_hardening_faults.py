"""Faults outside the program: files that cannot be read, pipes closed early, Ctrl-C,
NaN and infinities on their way to JSON, --points streams with bad lines."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from hardening_helpers import invoke, strict_json

GRADCLI = [sys.executable, "-m", "gradcli"]


def usage_error(result, fragment):
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert fragment in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


# --- FILE ----------------------------------------------------------------------------------


def test_missing_file(tmp_path):
    usage_error(invoke("eval", str(tmp_path / "nope.py")), "No such file or directory")


def test_directory_as_file(tmp_path):
    usage_error(invoke("eval", str(tmp_path)), "it is a directory")


def test_binary_file(tmp_path):
    path = tmp_path / "prog.bin"
    path.write_bytes(b"x = 1.0\n\x00\x01\x02")
    usage_error(invoke("eval", str(path)), "it is a binary file")


def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin1.py"
    path.write_bytes("x = 1.0  # café\n".encode("latin-1"))
    usage_error(invoke("eval", str(path)), "not UTF-8 text (byte 14)")


def test_non_utf8_on_stdin():
    result = invoke("eval", "-", input=b"x = 1.0\ny = x # \xff\xfe\n")
    usage_error(result, "<stdin>: not UTF-8 text")


def test_unreadable_file(tmp_path):
    path = tmp_path / "secret.py"
    path.write_text("x = 1.0\n")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as root: a mode-000 file is still readable")
        usage_error(invoke("eval", str(path)), "Permission denied")
    finally:
        path.chmod(0o644)


def test_path_through_a_file(tmp_path):
    path = tmp_path / "file.py"
    path.write_text("x = 1.0\n")
    usage_error(invoke("eval", str(path / "inner.py")), "Not a directory")


def test_utf8_with_bom_is_read(tmp_path):
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbfx = 2.0\ny = x * x\n")
    result = invoke("eval", str(path), "--json")
    assert result.exit_code == 0 and strict_json(result.stdout)["values"]["y"] == 4.0


def test_file_errors_with_json_give_an_error_document(tmp_path):
    result = invoke("eval", str(tmp_path / "nope.py"), "--json")
    assert result.exit_code == 2
    assert strict_json(result.stdout)["error"]["code"] == 2


# --- pipes and signals (real processes) --------------------------------------------------------


@pytest.mark.parametrize("command", [
    "run -e 'for i in range(100000):\n    print(i)'",
    "eval -e 'x = arange(100000.)' --json",
    "ops",
    "graph -e 'x = 1.0\ny = x' --tree",
])
def test_broken_pipe_is_quiet(command):
    proc = subprocess.run(f"{' '.join(GRADCLI)} {command} | head -1; echo \"exit ${{PIPESTATUS[0]}}\"",
                          shell=True, executable="/bin/bash", capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr, proc.stderr
    assert proc.stdout.splitlines()[-1] == "exit 0"


def test_ctrl_c_exits_130_without_a_traceback():
    # A process started in the background by a non-interactive shell (`cmd &`, as a CI
    # runner may start the suite) inherits SIGINT ignored, and Python keeps it so: the child
    # gets the default action back, as a program run in the foreground of a terminal has it.
    proc = subprocess.Popen(GRADCLI + ["run", "-e", "print('go')\n"
                                       "while True:\n    pass\n", "--max-steps", "1000000000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout.readline() == "go\n"  # the loop is running
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert "Traceback" not in err


# --- NaN and infinities -------------------------------------------------------------------------


def test_nan_and_infinities_flow_and_are_strings_in_json():
    source = "x = [0., 1., -1.]\ny = log(x)\nz = x / 0\nw = sqrt(x)\nm = y.max()\n"
    result = invoke("eval", "-e", source, "--json")
    assert result.exit_code == 0
    values = strict_json(result.stdout)["values"]
    assert values["y"][0] == "-Infinity" and values["y"][1] == 0.0 and values["y"][2] == "NaN"
    assert values["z"] == ["NaN", "Infinity", "-Infinity"]
    assert values["w"][2] == "NaN" and values["m"] == "NaN"


def test_nan_gradients_are_strings_in_json():
    result = invoke("backward", "-e", "x = [0., 4.]\ny = sqrt(x).sum()\n", "--json")
    assert result.exit_code == 0
    assert strict_json(result.stdout)["grads"]["x"] == ["Infinity", 0.25]


def test_infinite_input_from_set_and_points():
    result = invoke("grad", "-e", "x = 1.0\ny = x * x", "--wrt", "x", "--set", "x=inf", "--json")
    assert strict_json(result.stdout)["grads"]["x"] == "Infinity"
    result = invoke("grad", "-e", "x = 1.0\ny = x * x", "--wrt", "x", "--points", "-",
                    input='{"x": NaN}\n{"x": -Infinity}\n{"x": 1e400}\n')
    docs = [strict_json(line) for line in result.stdout.splitlines()]
    assert [d["point"]["x"] for d in docs] == ["NaN", "-Infinity", "Infinity"]
    assert [d["grads"]["x"] for d in docs] == ["NaN", "-Infinity", "Infinity"]


def test_nan_in_the_graph_and_run_json():
    result = invoke("graph", "-e", "x = 0.\ny = log(x) * x", "--values", "--format", "json", "--json")
    assert result.exit_code == 0
    strict_json(result.stdout)
    result = invoke("run", "-e", "x = tensor(0., requires_grad=True)\ny = log(x) * x\ny.backward()\n",
                    "--json")
    doc = strict_json(result.stdout)
    assert doc["values"]["y"] == "NaN" and doc["grads"]["x"] == "NaN"


# --- --points streams -------------------------------------------------------------------------


def test_points_stream_with_bad_lines_reports_each_and_goes_on():
    lines = [
        '{"x": 1.0}',
        "not json",
        '[1, 2]',
        '{"x": "text"}',
        '{"nosuch": 1.0}',
        '{"x": [1.0, 2.0]}',
        '{"x": true}',
        '{"x": ' + "[" * 5000 + "]" * 5000 + "}",
        "",
        '{"x": 3.0}',
    ]
    stdin = ("\n".join(lines) + "\n").encode() + b"\xff\xfe\n" + b'{"x": 4.0}\n'
    result = invoke("grad", "-e", "x = 1.0\ny = x * x", "--wrt", "x", "--points", "-", input=stdin)
    docs = [strict_json(line) for line in result.stdout.splitlines()]
    assert len(docs) == 11  # one per non-blank line
    assert [d["grads"]["x"] for d in docs if "grads" in d] == [2.0, 6.0, 8.0]
    errors = [d["error"] for d in docs if "error" in d]
    assert [e["code"] for e in errors] == [2, 2, 2, 2, 4, 2, 2, 2]  # an unknown name is a --set error: 2
    assert "line 11: not UTF-8 text" in errors[-1]["message"]
    assert result.exit_code == 2  # the first failure's code
    assert result.stderr.count("error:") == 8
    assert "Traceback" not in result.stderr


def test_points_file_missing(tmp_path):
    result = invoke("grad", "-e", "x = 1.0\ny = x * x", "--wrt", "x", "--points",
                    str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 2 and "cannot read --points" in result.stderr


def test_points_a_directory(tmp_path):
    result = invoke("grad", "-e", "x = 1.0\ny = x * x", "--wrt", "x", "--points", str(tmp_path))
    assert result.exit_code == 2 and "cannot read --points" in result.stderr


def test_points_with_a_program_error_on_some_lines():
    result = invoke("eval", "-e", "x = 1.0\ny = zeros(int(x))", "--points", "-", "--max-elements", "5",
                    input='{"x": 3}\n{"x": 50}\n{"x": 4}\n')
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    assert "error" in docs[1] and "--max-elements" not in docs[1]["error"]["message"]
    assert docs[1]["error"]["hint"] == "raise the limit with --max-elements"
    assert docs[2]["values"]["y"] == [0.0] * 4
