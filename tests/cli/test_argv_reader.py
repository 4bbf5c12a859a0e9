"""`options.ArgvReader` reads a command line without Typer (the fast start); what it reads
must be exactly what Typer would pass, and what it does not read is left to Typer.

Each command's own declarations make the cases: every option in each of its forms, on
either side of FILE, repeated, and the lines only Typer may answer (help, errors).
"""
from __future__ import annotations

import typing
from enum import Enum

import pytest
import typer

from gradcli.cli import app as app_module
from gradcli.cli.options import Argument, ArgvReader, declared

try:  # typer >= 0.16 vendors click
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover
    from click import exceptions as click_errors


class TyperAnswered(Exception):
    """Typer did not call the command: it printed help or a usage error."""


def typer_reading(chosen, args: list[str]):
    """The keyword arguments Typer passes the command for `args`, or why it did not call it."""
    seen = []

    def record(**kwargs):
        seen.append(kwargs)

    record.__signature__ = chosen.__signature__
    t = typer.Typer(add_completion=False, context_settings={"help_option_names": ["-h", "--help"]})
    t.command("cmd")(record)
    t.command("other")(lambda: None)  # two commands: the first word names the command
    try:
        code = typer.main.get_command(t).main(args=["cmd", *args], prog_name="gradcli", standalone_mode=False)
    except click_errors.ClickException as exc:
        return exc
    return seen[0] if seen else TyperAnswered(f"exit {code}")


def sample(kind):
    """A value of an option's kind, as typed."""
    if typing.get_origin(kind) is typing.Union:
        kind = next(k for k in typing.get_args(kind) if k is not type(None))
    if typing.get_origin(kind) is list:
        kind = typing.get_args(kind)[0]
    if isinstance(kind, type) and issubclass(kind, Enum):
        return list(kind)[-1].value
    return {int: "7", float: "0.25", str: "x=2.5"}[kind]


def lines_read(chosen) -> list[list[str]]:
    """Command lines the reader must read as Typer does."""
    lines = [[], ["-"], ["prog.txt"]]
    for p in chosen.parameters:
        kind, declaration = declared(p.annotation)
        if isinstance(declaration, Argument):
            lines += [["a.txt", "b.txt"]] if typing.get_origin(typing.get_args(kind)[0]) is list else []
            lines += [["--", "-minus.txt"]]
            continue
        for flag in declaration.flags:
            if kind is bool:
                lines += [[flag], [flag, "prog.txt"], ["prog.txt", flag, flag]]
                continue
            value = sample(kind)
            lines += [[flag, value], ["prog.txt", flag, value], [flag, value, flag, value, "prog.txt"],
                      [flag, "-"]]
            if flag.startswith("--"):
                lines += [[f"{flag}={value}"], [f"{flag}="] if kind in (str, typing.Optional[str]) else []]
    return [line for line in lines if line]


def lines_left(chosen) -> list[list[str]]:
    """Command lines only Typer answers: help, and each kind of usage error."""
    lines = [["--help"], ["-h"], ["prog.txt", "--help"], ["--bogus"], ["--jso"], ["-", "-z"]]
    argument = next((p for p in chosen.parameters if isinstance(declared(p.annotation)[1], Argument)), None)
    if argument is None:
        lines.append(["prog.txt"])
    elif typing.get_origin(typing.get_args(typing.get_args(argument.annotation)[0])[0]) is not list:
        lines.append(["a.txt", "b.txt"])
    for p in chosen.parameters:
        kind, declaration = declared(p.annotation)
        if isinstance(declaration, Argument):
            continue
        flag = declaration.flags[0]
        if kind is bool:
            lines.append([f"{flag}=1"])
        else:
            lines.append([flag])  # no value
            if kind in (int, float) or (isinstance(kind, type) and issubclass(kind, Enum)):
                lines.append([flag, "not-a-number"])
    return lines


def _commands():
    return sorted(app_module.READ_WITHOUT_TYPER)


def test_every_command_but_graph_is_read_without_typer():
    for name in _commands():
        assert isinstance(app_module.command(name).reader, ArgvReader), name
    assert app_module.command("graph").reader is None or "graph" not in app_module.READ_WITHOUT_TYPER


@pytest.mark.parametrize("name", _commands())
def test_what_the_reader_reads_is_what_typer_passes(name):
    chosen = app_module.command(name)
    lines = lines_read(chosen)
    assert len(lines) > 5
    for args in lines:
        expected = typer_reading(chosen, args)
        got = chosen.reader.read(args)
        if isinstance(expected, Exception):
            assert got is None, (args, expected)
        else:
            assert got == expected, args
            assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in expected.items()}, args


@pytest.mark.parametrize("name", _commands())
def test_what_only_typer_answers_is_left_to_it(name):
    chosen = app_module.command(name)
    for args in lines_left(chosen):
        assert chosen.reader.read(args) is None, args
        assert isinstance(typer_reading(chosen, args), Exception), args


def test_a_form_the_reader_leaves_is_read_by_typer(capsys):
    """`-eTEXT`, Click's attached value of a short option."""
    assert app_module.command("eval").reader.read(["-ex = 2.0; y = x * 3", "--json"]) is None
    assert app_module.run_app(["eval", "-ex = 2.0; y = x * 3", "--json"]) == 0
    assert '"y":6.0' in capsys.readouterr().out


def test_a_usage_error_through_run_app_is_typers(capsys):
    assert app_module.run_app(["backward", "--bogus"]) == 2
    assert "No such option: --bogus" in capsys.readouterr().err
    assert app_module.run_app(["grad", "-e", "x = 1.0", "--order", "two"]) == 2
    assert "Invalid value for '--order': 'two' is not a valid int" in capsys.readouterr().err


def test_run_app_reads_the_common_line_without_importing_typer():
    import subprocess
    import sys

    code = ("import sys\nfrom gradcli.cli.app import run_app\n"
            "code = run_app(['backward', '-e', 'x = 2.0; y = x * x', '--json'])\n"
            "print(code, sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'click', 'rich')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "0 []"


LINES = [
    ["backward", "samples/quickstart.txt"],
    ["backward", "samples/quickstart.txt", "--json", "--steps"],
    ["grad", "samples/quickstart.txt", "--wrt", "x", "--order", "2"],
    ["grad", "-e", "x = 3.0; y = x**2 * sin(x)", "--json", "--dtype", "float32"],
    ["hessian", "samples/rosenbrock.txt", "--json"],
    ["jacobian", "-e", "x = [2., 3.]; y = x * x", "--wrt=x"],
    ["eval", "samples/quickstart.txt", "--set", "x=5", "--set", "y=-1"],
    ["run", "samples/s07_training.py", "--json"],
    ["ops", "mul", "sin"],
    ["backward", "-e", "x = 2.0; y = x.foo()"],                 # a user error: exit 4
    ["backward", "-e", "y = torch.zeros(10**9)", "--json"],    # a limit: exit 3
    ["gradcheck", "samples/e13_wrong_backward.py", "--no-sympy", "--json"],
]


@pytest.mark.parametrize("args", LINES, ids=lambda a: " ".join(a)[:40])
def test_the_reader_path_answers_as_the_typer_app(args, capsys):
    """The same line through `run_app` (read without Typer) and through the Typer app (as
    CliRunner runs it): the same exit code and the same output."""
    from typer.testing import CliRunner

    assert app_module.command(args[0]).reader.read(args[1:]) is not None
    code = app_module.run_app(list(args))
    fast = capsys.readouterr()
    result = CliRunner().invoke(app_module.app, list(args), catch_exceptions=False)
    assert (code, fast.out) == (result.exit_code, result.stdout)
