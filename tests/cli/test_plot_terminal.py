"""`gradcli plot` in real terminals of 40x12, 80x24 and 200x60 characters (issue 28.6): a
pseudo-terminal of that size, the real CLI in a process of its own, its standard output read
as the terminal receives it. Nothing may be wider than the terminal (a wider line wraps and
breaks the picture), the legend and the heat maps' key sit outside the plot's box, the title
is the output's formula, `--subplots` gives each curve a panel, and the heat maps mark the
program's point and the least output sampled where they are.

Expected numbers come from `plot --json` of the same samples, not from the drawing code.
"""
import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

pytest.importorskip("plotext")

ROOT = Path(__file__).resolve().parents[2]
ROSENBROCK = str(ROOT / "samples" / "rosenbrock.txt")
CUBIC = "x = 0.0\ny = x**3 - x   # a cubic\n"
STEEP = "x = 0.0\ny = exp(3*x) * sin(x)\n"
SIZES = [(40, 12), (80, 24), (200, 60)]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def in_terminal(args, cols: int, rows: int, color: bool = False) -> tuple[int, list[str], str]:
    """Run `gradcli ARGS` with its standard output on a terminal of cols x rows; (exit code,
    the lines it showed, without colour codes, standard error)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm", "PYTHONIOENCODING": "utf-8"}
    if not color:
        env["NO_COLOR"] = "1"
    proc = subprocess.Popen([sys.executable, "-m", "gradcli", *args], stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:   # EIO: the process closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    text = out.decode("utf-8").replace("\r\n", "\n")
    assert ("\x1b[" in text) == (color and "--color" not in args or "always" in args), text[:200]
    return proc.returncode, ANSI.sub("", text).splitlines(), err


def plot_json(*args) -> dict:
    result = CliRunner().invoke(app, ["plot", *args, "--json"])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def boxes(lines: list[str]) -> list[tuple[int, int, int, int]]:
    """(top, bottom, left, right) of every plot box: its corners' line and column numbers."""
    found = []
    for top, line in enumerate(lines):
        for left in [m.start() for m in re.finditer("┌", line)]:
            right = line.index("┐", left)
            bottom = next(i for i in range(top + 1, len(lines))
                          if len(lines[i]) > left and lines[i][left] == "└")
            found.append((top, bottom, left, right))
    return found


def fits(lines: list[str], cols: int) -> None:
    assert lines, "no output"
    assert max(len(line) for line in lines) <= cols, [line for line in lines if len(line) > cols]


@pytest.mark.parametrize("color", [False, True], ids=["plain", "colour"])
@pytest.mark.parametrize("cols, rows", SIZES)
def test_one_axis_formula_above_legend_below(cols, rows, color):
    code, lines, err = in_terminal(["plot", "-e", CUBIC, "--wrt", "x", "--order", "2"], cols, rows, color)
    assert code == 0, err
    fits(lines, cols)
    assert len(lines) <= rows
    [(top, bottom, left, right)] = boxes(lines)
    assert "y = x**3 - x" in " ".join(lines[:top])                 # the formula, not its comment
    assert "cubic" not in "\n".join(lines)
    for line in lines[top + 1:bottom]:                              # inside: the frame and data only
        inner = line[left + 1:right]
        assert not re.search("[│┌┐└┘─]", inner), line
        assert "dy/dx" not in inner and "d²y/dx²" not in inner
    legend = "\n".join(lines[bottom + 1:])
    for entry in ("y", "dy/dx", "d²y/dx²"):
        assert re.search(rf"(^|\s)\S {re.escape(entry)}(\s|$)", legend, re.M), (entry, legend)


@pytest.mark.parametrize("cols, rows", SIZES)
def test_subplots_one_panel_each_with_its_own_axis(cols, rows):
    args = ["plot", "-e", STEEP, "--wrt", "x", "--order", "2"]
    code, lines, err = in_terminal(args + ["--subplots"], cols, rows)
    assert code == 0, err
    fits(lines, cols)
    assert "y = exp(3*x) * sin(x)" in lines[0]
    assert len(lines) <= rows                                         # never taller than the terminal
    panels = boxes(lines)
    titles = [lines[top - 1][left:right + 1].strip() for top, _, left, right in panels]
    assert titles == ["y", "dy/dx", "d²y/dx²"][:len(titles)] and titles
    if rows >= 24:
        assert len(panels) == 3
    else:   # those that do not fit are named, with how to see them
        note = " ".join(lines[max(b for _, b, _, _ in panels) + 1:])
        assert len(panels) < 3 and "not shown" in note and "-o plot.svg" in note
        assert all(name in note for name in ["y", "dy/dx", "d²y/dx²"][len(panels):])
    for top, bottom, left, right in panels:
        assert bottom - top - 1 >= 3                                  # room for the data
        data = "".join(line[left + 1:right] for line in lines[top + 1:bottom])
        assert data.strip(), (top, left)
    # without --subplots, the note says why the smaller curves lie flat; not for tanh
    code, lines, err = in_terminal(args, cols, rows)
    assert code == 0 and "--subplots" in err
    code, lines, err = in_terminal(["plot", "-e", "x = 0.0\ny = tanh(x)", "--wrt", "x"], cols, rows)
    assert code == 0 and "--subplots" not in err


@pytest.mark.parametrize("cols, rows", SIZES)
def test_heat_maps_mark_the_point_and_the_minimum_and_have_a_key(cols, rows):
    code, lines, err = in_terminal(["plot", ROSENBROCK, "--wrt", "x,y"], cols, rows)
    assert code == 0, err
    fits(lines, cols)
    assert len(lines) <= rows                                         # never taller than the terminal
    assert lines[0].strip().startswith("f = (1 - x) ** 2 + 100 * (y - x ** 2)")
    if rows < 17:   # no room for the maps' rows and their key: said, with how to see them
        said = " ".join(lines[1:])
        assert not boxes(lines) and "heat maps not drawn" in said and "-o plot.svg" in said, said
        assert "needs 17 lines" in said
        return
    doc = plot_json(ROSENBROCK, "--wrt", "x,y")
    z = np.array([s["z"] for s in doc["samples"]])
    norm = np.array([s["norm"] for s in doc["samples"]])
    least = doc["samples"][int(np.argmin(z))]
    (x0, x1), (y0, y1) = doc["range"]["x"], doc["range"]["y"]
    panels = boxes(lines)
    assert len(panels) == 2
    under = "\n".join(lines[max(b for _, b, _, _ in panels) + 1:])
    assert f"f: {z.min():.3g} [ .:-=+*#%@] {z.max():.3g}" in under
    assert f"|∇f|: {norm.min():.3g} [ .:-=+*#%@] {norm.max():.3g}" in under
    assert "X the program's (x, y) = (-1.2, 1)" in under
    assert f"O min f = {least['z']:.4g} at ({least['x']:.4g}, {least['y']:.4g})" in under
    for top, bottom, left, right in panels:
        cells = [line[left + 1:right] for line in lines[top + 1:bottom]]
        for mark, (x, y) in (("X", (-1.2, 1.0)), ("O", (least["x"], least["y"]))):
            where = [(r, c) for r, row in enumerate(cells) for c, ch in enumerate(row) if ch == mark]
            assert len(where) == 1, (mark, cells)
            (r, c), width, height = where[0], right - left - 1, len(cells)
            assert abs((c + 0.5) / width - (x - x0) / (x1 - x0)) <= 1.5 / width + 0.02
            assert abs((r + 0.5) / height - (y1 - y) / (y1 - y0)) <= 1.5 / height + 0.02


def test_formula_of_the_statement_that_made_the_output():
    cases = [("x = 2.0; y = (x *\n     x)  # squared\nz = y + 1\ny\n", "y = (x * x)"),
             ("x = 1.0\ny = 2 * x\ny += x\n", None),          # `+=` last: no formula, the name
             ("x = 1.0\nfor i in range(2):\n    y = x * i\n", None)]
    for program, formula in cases:
        code, lines, err = in_terminal(["plot", "-e", program, "--wrt", "x"], 80, 24)
        assert code == 0, err
        title = lines[0].strip()
        assert title == (f"{formula}, and its derivatives in x" if formula
                         else "y, and its derivatives in x"), title


def test_subplots_to_a_file_and_refused_for_two_inputs(tmp_path):
    out = tmp_path / "p.svg"
    result = CliRunner().invoke(app, ["plot", "-e", STEEP, "--wrt", "x", "--order", "2", "--subplots",
                                      "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    text = out.read_text()
    assert len(re.findall(r'<g id="axes_\d+"', text)) == 3
    assert "exp(3*x)" in text or "exp(3" in text
    refused = CliRunner().invoke(app, ["plot", ROSENBROCK, "--wrt", "x,y", "--subplots"])
    assert refused.exit_code == 2 and "--subplots" in refused.stderr


def test_color_follows_the_color_option():
    args = ["plot", "-e", CUBIC, "--wrt", "x"]
    code, lines, err = in_terminal(args + ["--color", "never"], 80, 24, color=True)  # asserts: no ANSI
    assert code == 0, err
    code, lines, err = in_terminal(args + ["--color", "always"], 80, 24, color=False)  # asserts: ANSI
    assert code == 0, err
    piped = subprocess.run([sys.executable, "-m", "gradcli", *args, "--color", "always"], cwd=ROOT,
                           capture_output=True, timeout=120)
    assert piped.returncode == 0 and b"\x1b[" in piped.stdout
    lines = ANSI.sub("", piped.stdout.decode()).splitlines()
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80
