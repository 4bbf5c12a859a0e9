"""`sys.exit` ends a program as Python's SystemExit does (docs/LANGUAGE.md): no code or 0 is
a normal end (exit 0, what was printed kept, the command goes on with what the program
computed); a message goes to stderr alone with exit 1; a non-zero int exits 1 silently
(gradcli's codes 2-4 and 70 keep their meaning). A program may catch it as SystemExit."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

CATCHES = """import sys
try:
    sys.exit(5)
except Exception:
    print("not an Exception")
except SystemExit as e:
    print("caught", e.code, e.args)
"""


def run(tmp_path, source: str, command: str = "run", *options: str):
    path = tmp_path / "prog.py"
    path.write_text(source)
    return CliRunner().invoke(app, [command, str(path), *options])


@pytest.mark.parametrize("call, code, stderr", [
    ("sys.exit()", 0, ""), ("sys.exit(0)", 0, ""), ("sys.exit(None)", 0, ""),
    ("sys.exit('bad input: 3')", 1, "bad input: 3\n"), ("sys.exit(2)", 1, ""),
    ("raise SystemExit('via raise')", 1, "via raise\n"), ("raise SystemExit", 0, ""),
])
def test_exit_ends_the_program_as_python_does(tmp_path, call, code, stderr):
    result = run(tmp_path, CATCHES + f'print("before")\n{call}\nprint("after")\n')
    assert result.exit_code == code
    assert result.stdout == "caught 5 (5,)\nbefore\n"
    assert result.stderr == stderr


def test_exit_zero_in_a_function_and_a_loop(tmp_path):
    source = "import sys\ndef main():\n    for i in range(5):\n        print(i)\n        if i == 1:\n" \
             "            sys.exit(0)\nmain()\nprint('never')\n"
    result = run(tmp_path, source)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "0\n1\n", "")


def test_a_command_goes_on_with_what_the_program_computed(tmp_path):
    result = run(tmp_path, "import sys\nx = 2.0\ny = x ** 3\nsys.exit(0)\ny = 5\n", "grad", "--wrt", "x")
    assert result.exit_code == 0, result.output
    assert "dy/dx" in result.stdout and "12." in result.stdout
