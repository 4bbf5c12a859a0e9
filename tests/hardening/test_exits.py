"""Issue 26, items 7 and 9: the process options are checked, the backstop ends a run with
one line, a renderer that dies is a run error, and exits are the documented ones whatever
happens to stderr; no limit is catchable by a program.

Every case is a real `python -m gradcli` process under a CPU and memory rlimit.
"""
from __future__ import annotations

import os
import stat
import xml.etree.ElementTree as ET

import pytest

from hardening_helpers import cpu_bound, limited_run, program_error


@pytest.mark.parametrize("option, value, message", [
    ("--max-memory", "1e30", "larger than the system takes"),
    ("--max-seconds", "1e300", "larger than the system takes"),
    ("--max-seconds", "1e10", "larger than the system takes"),
    ("--max-memory", "-1", "expected a size"),
    ("--max-seconds", "-5", "expected a number of seconds"),
    ("--max-memory", "12Q", "expected a size"),
    ("--max-seconds", "nan", "expected a number of seconds"),
    ("--max-memory", "1e-3", "less than one byte"),
])
def test_process_options_the_system_cannot_take(option, value, message):
    """`--max-memory 1e30` overflowed setrlimit's C long (a traceback, exit 1) and
    `--max-seconds 1e300` setitimer's time_t (exit 70)."""
    ran = limited_run("eval", option, value, "-e", "x = 2.0")
    assert ran.code == 2, ran.stderr
    assert ran.stderr.count("\n") == 1 and message in ran.stderr, ran.stderr
    assert ran.stderr.startswith(f"gradcli: error: {option} '{value}'")


NUMPY_SIZED = ("a = torch.ones(1000, 1000)\n"
               "b = [a * float(i) for i in range(40)]\n"
               "print(b)\n"
               "c = undefined_name\n")


@pytest.mark.parametrize("memory", ["30M", "45M", "60M", "75M", "90M", "120M"])
@pytest.mark.parametrize("command", ["run", "eval"])
def test_out_of_memory_anywhere_is_one_line(memory, command):
    """With a low --max-memory the MemoryError comes wherever the program stands, the
    error printer included: always exit 3, one error, no traceback."""
    ran = limited_run(command, "--max-memory", memory, "-e", NUMPY_SIZED)
    assert ran.code == 3, ran.stderr[-2000:]
    assert "Traceback" not in ran.stderr and "bug in gradcli" not in ran.stderr
    assert ran.stderr.count("error:") == 1, ran.stderr[-2000:]
    assert ran.cpu_seconds < cpu_bound(5)


@pytest.mark.parametrize("how", ["closed", "full"])
def test_a_program_error_is_exit_3_whatever_stderr_is(how):
    """stderr closed made it exit 1 (every write an AttributeError), stderr full exit 2
    ("cannot write to standard output"); a clean run under a closed stderr exited 1 too."""
    def run(source):
        if how == "closed":
            return limited_run("eval", "-e", source, close_stderr=True)
        with open("/dev/full", "w") as full:
            return limited_run("eval", "-e", source, stderr_fd=full)

    assert run("x = undefined_name").code == 3
    clean = run("x = 2.0")
    assert clean.code == 0 and "output: x" in clean.stdout


CURVES = ["x = 1.0\ny = x * 1e308 * 10", "x = 1.0\ny = 1e308 * torch.sin(x * 1e10)"]


@pytest.mark.parametrize("source", CURVES)
@pytest.mark.parametrize("fmt", ["svg", "png", "terminal"])
def test_plot_of_overflowing_values_draws(tmp_path, source, fmt):
    """Values near the float64 maximum made matplotlib fail with LinAlgError "Singular
    matrix" (exit 70), and plotext with a ValueError: they are drawn as gaps now."""
    out = tmp_path / f"p.{fmt}"
    args = ["plot", "--wrt", "x", "-e", source] + ([] if fmt == "terminal" else ["-o", str(out)])
    ran = limited_run(*args)
    assert ran.code == 0, ran.stderr[-2000:]
    if fmt == "svg":
        ET.parse(out)
    elif fmt == "png":
        assert out.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("script, message", [
    ("kill -9 $$", "dot was killed by SIGKILL while drawing the picture"),
    ("kill -XCPU $$", "dot was killed by SIGXCPU while drawing the picture"),
    ("echo 'Error: syntax error' >&2; exit 1", "dot failed (exit 1): Error: syntax error"),
])
def test_a_renderer_that_dies_is_a_run_error(tmp_path, script, message):
    """A dot killed by a signal (its memory or CPU ceiling) was reported as "a bug in
    gradcli" (exit 70)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    dot = bin_dir / "dot"
    dot.write_text(f"#!/bin/sh\n{script}\n")
    dot.chmod(dot.stat().st_mode | stat.S_IEXEC)
    ran = limited_run("graph", "-o", str(tmp_path / "g.svg"), "-e", "x = 2.0\ny = x * x",
                      env={"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"})
    assert ran.code == 3, ran.stderr
    assert message in ran.stderr and "bug in gradcli" not in ran.stderr, ran.stderr


@pytest.mark.parametrize("statement, message", [
    ('s = f"{1:99999999}"', "format width or precision 99999999 is too large"),
    ("s = [0] * 10**9", "exceeds the limit of 10000000 items"),
    ("s = torch.zeros(10**9)", "exceeds the limit of 100000000 elements"),
    ("while True:\n        pass", "steps"),
])
def test_no_limit_is_catchable(statement, message):
    """The format-width limit was a ValueError a program's `except` caught."""
    source = (f"try:\n    {statement}\nexcept Exception:\n    print('caught')\n"
              "except BaseException:\n    print('caught')\n")
    ran = program_error("run", "--max-steps", "100000", "-e", source, message=message)
    assert "caught" not in ran.stdout


@pytest.mark.parametrize("expression", ["a // 0", "a % 0", "a // torch.tensor([0, 1])",
                                        "torch.div(a, 0, rounding_mode='floor')", "a.fmod_(0)"])
def test_integer_division_by_zero_is_caught_as_in_pytorch(expression):
    """PyTorch 2.13 raises RuntimeError('ZeroDivisionError') for an integer tensor divided by
    zero (recorded: `torch.tensor([1, 2]) // 0`, `% 0`, `torch.div(..., rounding_mode=)`,
    `fmod`): a program's `except RuntimeError` catches it, `except ZeroDivisionError` not."""
    source = ("a = torch.tensor([1, 2])\n"
              f"try:\n    b = {expression}\nexcept ZeroDivisionError:\n    print('as ZeroDivisionError')\n"
              "except RuntimeError as exc:\n    print('caught', exc)\n")
    ran = limited_run("run", "-e", source)
    assert ran.code == 0, ran.stderr
    assert ran.stdout == "caught ZeroDivisionError\n"


def test_points_line_that_never_ends():
    """`--points /dev/zero` (NUL bytes, no newline) read forever, skipping its "overlong"
    line: the skipping stops 1 GiB on, the input ends with one error."""
    ran = limited_run("grad", "-e", "x = 1.0\ny = x * x", "--wrt", "x", "--points", "/dev/zero")
    assert ran.code == 3, ran.stderr[-2000:]
    assert "--points line 1 does not end within 1040 MiB" in ran.stderr
    assert ran.cpu_seconds < cpu_bound(5) and ran.peak_mb < 512


@pytest.mark.parametrize("source, code, message", [
    ("import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x * x", 0, ""),
    ("a = 1.0\nb = 2.0\ny = a * b", 2, "plot takes one input and the program has 2 (a, b)"),
    ("import torch\nx = 3\ny = x * 2", 2, "the program has no input that requires grad"),
])
def test_plot_without_wrt(source, code, message):
    """`plot --order 4` without --wrt read wrt_list[0] of an empty list (exit 70): it plots
    the program's one input, or says which to name."""
    ran = limited_run("plot", "--order", "4", "--json", "-e", source)
    assert ran.code == code, ran.stderr[-2000:]
    assert message in ran.stderr and "bug in gradcli" not in ran.stderr, ran.stderr
    if code == 0:
        assert '"wrt":["x"]' in ran.stdout.replace(" ", "")
