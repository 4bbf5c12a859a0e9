"""Every option a command takes is in its --help, the process's own (--max-memory,
--max-seconds, --debug) included: they are declared in `cli/options.py` with the shared
options, and `options.take_process_options` reads them from those declarations before a
command's options are read."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from gradcli.cli import backstop
from gradcli.cli.app import COMMANDS, app, run_app
from gradcli.cli.options import PROCESS, declared, take_process_options

runner = CliRunner()


def _flags_and_help():
    for name, annotation, _ in PROCESS:
        declaration = declared(annotation)[1]
        yield declaration.flags[0], declaration.settings["help"]


def _listed(help_text: str, flag: str, description: str) -> bool:
    """`flag` on a line of the help, followed by its description (as Click wraps it)."""
    flat = " ".join(help_text.split())
    return f"{flag} " in flat and " ".join(description.split()[:4]) in flat


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_lists_the_process_options(command):
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0, result.output
    for flag, description in _flags_and_help():
        assert description and "\n" not in description
        assert _listed(result.output, flag, description), f"{command} --help lacks {flag}"


def test_the_declared_options_are_the_ones_taken_off_the_line():
    flags = [flag for flag, _ in _flags_and_help()]
    assert flags == ["--max-memory", "--max-seconds", "--debug"]
    rest, given = take_process_options(
        ["--debug", "eval", "--max-memory", "1G", "-e", "x = 1.0", "--max-seconds=2.5", "--", "--debug"])
    assert rest == ["eval", "-e", "x = 1.0", "--", "--debug"]
    assert given == {"max_memory": "1G", "max_seconds": "2.5", "debug": True}
    assert backstop.ceilings(given) == (2**30, 2.5)
    rest, given = take_process_options(["eval", "--debug=yes"])   # a flag takes no value: Typer's error
    assert rest == ["eval", "--debug=yes"] and given == {"max_memory": None, "max_seconds": None, "debug": False}
    memory, seconds = backstop.ceilings(given)
    assert backstop.describe(memory) == "4 GiB" and seconds == 0  # the defaults the help states
    assert "default 4G" in dict(_flags_and_help())["--max-memory"]
    assert "the default" in dict(_flags_and_help())["--max-seconds"]


def test_an_option_without_its_value_is_a_usage_error(capsys):
    assert run_app(["eval", "-e", "x = 1.0", "--max-seconds"]) == 2
    assert "gradcli: error: Option '--max-seconds' requires an argument." in capsys.readouterr().err


def test_debug_is_taken_wherever_it_stands(capsys):
    assert run_app(["--debug", "eval", "-e", "x = 2.0", "--json"]) == 0
    assert run_app(["eval", "-e", "x = 2.0", "--debug"]) == 0
    assert '"x"' in capsys.readouterr().out


def test_the_typer_app_accepts_and_drops_the_process_options():
    """Run in-process (as tests run it), the app reads the declared options and ignores them:
    the ceilings belong to a process, which `gradcli.cli.main` sets up."""
    result = runner.invoke(app, ["eval", "-e", "x = 2.0", "--max-memory", "1G", "--max-seconds", "3",
                                 "--debug", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["values"] == {"x": 2.0}


def test_help_and_the_options_through_a_real_process():
    help_run = subprocess.run([sys.executable, "-m", "gradcli", "plot", "--help"],
                              capture_output=True, text=True, timeout=120)
    assert help_run.returncode == 0, help_run.stderr
    for flag, description in _flags_and_help():
        assert _listed(help_run.stdout, flag, description), flag
    run = subprocess.run([sys.executable, "-m", "gradcli", "eval", "-e", "x = 2.0", "--max-memory", "2G",
                          "--debug", "--max-seconds", "30", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["values"] == {"x": 2.0}
    bad = subprocess.run([sys.executable, "-m", "gradcli", "eval", "-e", "x = 2.0", "--max-seconds", "soon"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--max-seconds 'soon'" in bad.stderr


BROKEN = ("import sys\nfrom gradcli.answers import queries\n"
          "def broken(*args, **kwargs):\n    raise RuntimeError('a bug')\n"
          "queries.run_eval = broken\n"
          "from gradcli.cli import main\nmain(sys.argv[1:])\n")


@pytest.mark.parametrize("where", ["first", "last"])
def test_debug_shows_the_traceback_of_an_internal_error_in_a_real_process(where):
    line = ["eval", "-e", "x = 1.0"]
    line = ["--debug", *line] if where == "first" else [*line, "--debug"]
    run = subprocess.run([sys.executable, "-c", BROKEN, *line], capture_output=True, text=True, timeout=120)
    assert run.returncode == 70, run.stderr
    assert "Traceback" in run.stderr and "RuntimeError: a bug" in run.stderr
    plain = subprocess.run([sys.executable, "-c", BROKEN, "eval", "-e", "x = 1.0"],
                           capture_output=True, text=True, timeout=120)
    assert plain.returncode == 70 and "Traceback" not in plain.stderr
    assert "run again with --debug" in plain.stderr
