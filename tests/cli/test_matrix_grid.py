"""Jacobians and Hessians over several inputs: one labelled grid of numbers, folded into
blocks of columns to the terminal's width, 80 columns in a pipe (issue 28.3)."""
import json
import os
import pty
import subprocess
import sys

from typer.testing import CliRunner

from gradcli.cli.app import app

SIX = "a=1.0; b=2.0; c=3.0; d=0.5; e=1.5; f=2.5\nz = a*b*c + d*e*f + a*a*f + sin(b*e) + c**3/d\n"
TWELVE = "".join(f"x{i} = {i + 1}.0\n" for i in range(12)) + \
    "z = 1.5 * (" + " + ".join(f"x{i} * x{(i + 1) % 12}" for i in range(12)) + ")\n"


def invoke(*args):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_a_hessian_of_six_scalars_is_one_grid_not_36_lines():
    out = invoke("hessian", "-e", SIX).stdout.splitlines()
    assert out[1] == "Hessian of z: d²z/d(row)d(column)"
    assert out[2].split() == ["a", "b", "c", "d", "e", "f"]
    rows = out[3:9]
    assert [r.split()[0] for r in rows] == ["a", "b", "c", "d", "e", "f"]
    assert rows[3].split()[1:] == ["0.0000", "0.0000", "-108.0000", "432.0000", "2.5000", "1.5000"]
    assert len(out) == 9 and not any("tensor(" in line for line in out[1:])
    assert all(len(line) <= 80 for line in out)


def test_a_grid_wider_than_80_columns_folds_into_blocks_in_a_pipe():
    out = invoke("hessian", "-e", TWELVE).stdout.splitlines()
    assert all(len(line) <= 80 for line in out)
    starts = [i for i, line in enumerate(out) if line.startswith("columns ")]
    assert len(starts) >= 2 and out[starts[0]].endswith("of 12")
    first_header = out[starts[0] + 1].split()
    assert first_header[0] == "x0" and len(first_header) < 12
    # every block has a row per input, in order
    assert [line.split()[0] for line in out[starts[0] + 2:starts[0] + 14]] == [f"x{i}" for i in range(12)]
    # the numbers are the Hessian's: d2z/dx0dx1 = 1.5, d2z/dx0dx0 = 0
    assert out[starts[0] + 2].split()[1:3] == ["0.0000", "1.5000"]


def test_the_jacobian_of_several_inputs_is_one_grid_with_element_labels():
    program = "a=1.0; b=[2.0, 1.0]; c=3.0\ny = stack([a*b[0], b[1]*c, a*c*c, a+b[0]+c])\n"
    out = invoke("jacobian", "-e", program).stdout.splitlines()
    assert out[3].split() == ["a", "b[0]", "b[1]", "c"]
    assert out[4].split() == ["y[0]", "2.", "1.", "0.", "0."]
    assert out[7].split() == ["y[3]", "1.", "1.", "0.", "1."]


def test_json_is_unchanged():
    doc = json.loads(invoke("hessian", "-e", SIX, "--json").stdout)
    assert doc["hessian"]["c"]["d"] == -108.0 and set(doc["hessian"]) == set("abcdef")


def test_on_a_terminal_the_grid_uses_its_width():
    """A real process on a pseudo-terminal: COLUMNS=200 keeps 12 columns in one block."""
    def run(columns):
        leader, follower = pty.openpty()
        env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1"}
        proc = subprocess.run([sys.executable, "-m", "gradcli", "hessian", "-e", TWELVE],
                              stdout=follower, stderr=subprocess.PIPE, env=env, timeout=120)
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        os.close(leader)
        assert proc.returncode == 0, proc.stderr
        return b"".join(chunks).decode().replace("\r\n", "\n").splitlines()

    wide = run(200)
    assert not any(line.startswith("columns ") for line in wide)
    assert len(wide[2].split()) == 12
    narrow = run(40)
    assert sum(line.startswith("columns ") for line in narrow) >= 3
    assert all(len(line) <= 40 for line in narrow)
