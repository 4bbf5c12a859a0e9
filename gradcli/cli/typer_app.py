"""The Typer app: help, shell completion, --version, usage errors, and what `ArgvReader`
leaves to it. The common invocation never imports this module (see `app.run_app`)."""
from __future__ import annotations

import functools
import sys

import typer

from ..errors import ExitCode
from .commandset import COMMANDS, command, default_dtype, guard
from .common import Failed

HELP = """A gradient calculator and autograd inspector: values, gradients, higher-order
derivatives, Jacobians, Hessians, gradient checks and the backward graph of a small
Python-like program, on gradcli's own reverse-mode engine.

\b
Examples:
  gradcli backward samples/quickstart.txt
  gradcli grad -e 'x = 3.0; y = x**2 * sin(x)' --order 2
  gradcli gradcheck samples/e13_wrong_backward.py

The language, the commands, the exit codes and the JSON: docs/LANGUAGE.md.
"""


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        sys.stdout.write(f"gradcli {__version__}\n")
        raise typer.Exit(0)


def _top(
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True,
                                 callback=_version),
) -> None:
    """The top level's own options (the full app only: one command alone stays a command)."""


def make_app(names=tuple(COMMANDS), top: bool = True) -> typer.Typer:
    """The Typer app with the given commands (all of them by default); `top`: with --version
    and shell completion (--install-completion, --show-completion)."""
    new = typer.Typer(
        name="gradcli",
        help=HELP,
        add_completion=top,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    if top:
        new.callback()(_top)
    for name in names:
        new.command(name)(_exit_code(guard(command(name), default_dtype(name))))
    return new


def _exit_code(guarded):
    """A reported user error as Click's Exit, so that the app run as a Click command
    (as Typer's CliRunner runs it) ends with its exit code."""

    @functools.wraps(guarded)
    def exiting(**kwargs):
        try:
            return guarded(**kwargs)
        except Failed as failed:
            raise typer.Exit(failed.code) from None

    return exiting


def _command_for(args: list[str]):
    """The click command to run, and its arguments.

    Typer builds every registered command from its signature before running one;
    for a known command name only that one is built (a faster start).
    """
    if args and args[0] in COMMANDS:
        single = typer.main.get_command(make_app([args[0]], top=False))
        return single, args[1:], f"gradcli {args[0]}"
    return typer.main.get_command(make_app()), args, "gradcli"


def run_typer(args: list[str]) -> int:
    """Typer parses `args` and runs the command; Click's own exits and usage errors become
    exit codes here (gradcli's errors pass through, to `app.run_app`)."""
    try:  # typer >= 0.16 vendors click
        from typer._click import exceptions as click_errors
    except ImportError:  # pragma: no cover
        from click import exceptions as click_errors

    try:
        command, args, prog_name = _command_for(args)
        code = command.main(args=args, prog_name=prog_name, standalone_mode=False)
        return code if isinstance(code, int) else 0
    except (typer.Exit, getattr(click_errors, "Exit", typer.Exit)) as exc:
        return exc.exit_code
    except (typer.Abort, getattr(click_errors, "Abort", typer.Abort)):
        sys.stderr.write("\naborted\n")
        return int(ExitCode.INTERRUPTED)
    except click_errors.ClickException as exc:
        exc.show()
        if "--json" in args:
            from ..render.jsonout import dumps

            code = int(getattr(exc, "exit_code", 2) or 2)
            sys.stdout.write(dumps({"error": {"code": code, "message": exc.format_message()}}) + "\n")
        return int(ExitCode.USAGE)
