"""The `gradcli` command: the Typer app and the one boundary that maps errors to exit codes.

User errors (codes 1-4) print `FILE:LINE:COL: error: ...` and never a traceback;
anything else is a bug in gradcli (exit 70), with a traceback only under --debug.
"""
from __future__ import annotations

import os
import sys

import typer

from ..errors import ExitCode, GradcliError
from . import commands
from .common import Failed, report

app = typer.Typer(
    name="gradcli",
    help="A gradient calculator and autograd inspector: values, gradients, higher-order "
         "derivatives, Jacobians, Hessians, gradient checks and the backward graph of a small "
         "Python-like program, on gradcli's own reverse-mode engine.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

app.command("eval")(commands.eval_cmd)
app.command("backward")(commands.backward_cmd)
app.command("grad")(commands.grad_cmd)
app.command("jacobian")(commands.jacobian_cmd)
app.command("hessian")(commands.hessian_cmd)
try:
    from .gradcheck import gradcheck_cmd

    app.command("gradcheck")(gradcheck_cmd)
except ImportError:  # pragma: no cover - while the command is being written
    pass
try:
    from .graph import graph_cmd

    app.command("graph")(graph_cmd)
except ImportError:  # pragma: no cover
    pass
app.command("run")(commands.run_cmd)
app.command("ops")(commands.ops_cmd)


def run_app(argv: list[str] | None = None) -> int:
    """Run the CLI on `argv` and return the exit code (never raises for user errors)."""
    import click

    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    if debug:
        args.remove("--debug")
    command = typer.main.get_command(app)
    try:
        command.main(args=args, prog_name="gradcli", standalone_mode=False)
        return 0
    except Failed as failed:
        return failed.code
    except GradcliError as err:
        return report(err, None, "--json" in args)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        sys.stderr.write("\naborted\n")
        return int(ExitCode.INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        return int(ExitCode.USAGE)
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except RecursionError:
        if debug:
            raise
        sys.stderr.write("gradcli: error: the program nests too deeply to run\n")
        return int(ExitCode.PROGRAM)
    except Exception:  # a bug in gradcli itself
        import traceback

        sys.stderr.write("gradcli: internal error: this is a bug in gradcli; please report it\n")
        if debug:
            traceback.print_exc()
        else:
            exc_type, exc, _ = sys.exc_info()
            sys.stderr.write(f"  {exc_type.__name__}: {exc}\n  (run again with --debug for the traceback)\n")
        return int(ExitCode.INTERNAL)


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
