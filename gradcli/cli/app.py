"""The `gradcli` command: the Typer app and the one boundary that maps errors to exit codes.

User errors (codes 1-4) print `FILE:LINE:COL: error: ...` and never a traceback
(`guard`, around every command); anything else is a bug in gradcli (exit 70),
with a traceback only under --debug (`run_app`).
"""
from __future__ import annotations

import functools
import importlib
import os
import sys

import typer

from ..errors import ExitCode, GradcliError
from .common import Failed, PipeClosed, report

# name -> (module of gradcli.cli, function): a command's module is imported when the
# command is built, so `gradcli backward` does not import gradcheck's, graph's or plot's
COMMANDS = {
    "eval": ("commands", "eval_cmd"),
    "backward": ("commands", "backward_cmd"),
    "grad": ("commands", "grad_cmd"),
    "jacobian": ("commands", "jacobian_cmd"),
    "hessian": ("commands", "hessian_cmd"),
    "gradcheck": ("gradcheck", "gradcheck_cmd"),
    "graph": ("graph", "graph_cmd"),
    "plot": ("plot", "plot_cmd"),
    "run": ("commands", "run_cmd"),
    "ops": ("commands", "ops_cmd"),
}


def command(name: str):
    """The function of command `name` (a `options.WithCommon`)."""
    module, attr = COMMANDS[name]
    return getattr(importlib.import_module(f".{module}", __package__), attr)


def guard(command, default_dtype: str = "float64"):
    """The one boundary for user errors: a GradcliError a command raises is reported
    here (against the program it read, as JSON too with --json) and becomes its exit code.

    `command` is a `options.WithCommon`; the shared options reach it as one Common,
    which keeps the program once read (`Common.source`). The command runs with the
    default dtype `--dtype` gives, else `default_dtype` (float32 for `run`, as PyTorch).
    """
    from ..dtypes import NAMES, default_dtype as dtype_context

    @functools.wraps(command)
    def guarded(**kwargs):
        opts, own = command.split(kwargs)
        try:
            choose_colour(opts.color)
            with dtype_context(NAMES[opts.dtype.value if opts.dtype is not None else default_dtype]):
                return command.command(opts, **own)
        except GradcliError as err:
            raise Failed(report(err, opts.source, opts.json)) from None
        except BrokenPipeError:
            raise PipeClosed() from None

    return guarded


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


def choose_colour(mode: str) -> None:
    from ..errors import UsageError
    from ..render import style

    if mode not in style.MODES:
        raise UsageError(f"--color {mode}: give auto, always or never")
    style.choose(mode)


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
        new.command(name)(guard(command(name), "float32" if name == "run" else "float64"))
    return new


def __getattr__(name: str):
    """`app`, the full Typer app, made when first asked for (a run builds only its command)."""
    if name == "app":
        globals()["app"] = made = make_app()
        return made
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _command_for(args: list[str]):
    """The click command to run, and its arguments.

    Typer builds every registered command from its signature before running one;
    for a known command name only that one is built (a faster start).
    """
    if args and args[0] in COMMANDS:
        single = typer.main.get_command(make_app([args[0]], top=False))
        return single, args[1:], f"gradcli {args[0]}"
    return typer.main.get_command(__getattr__("app")), args, "gradcli"


def run_app(argv: list[str] | None = None) -> int:
    """Run the CLI on `argv` and return the exit code (never raises for user errors)."""
    try:  # typer >= 0.16 vendors click
        from typer._click import exceptions as click_errors
    except ImportError:  # pragma: no cover
        from click import exceptions as click_errors

    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    # click splits "--symbolic=full" into a flag and a value: the hidden flag it stands for
    args = ["--symbolic-full" if a == "--symbolic=full" else a for a in args]
    if debug:
        args.remove("--debug")
    try:
        command, args, prog_name = _command_for(args)
        code = command.main(args=args, prog_name=prog_name, standalone_mode=False)
        return code if isinstance(code, int) else 0
    except Failed as failed:
        return failed.code
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
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return int(ExitCode.INTERRUPTED)
    except (BrokenPipeError, PipeClosed):
        _silence_stdout()
        return 0
    except MemoryError:
        from .backstop import out_of_memory

        return out_of_memory()
    except OSError as exc:
        from .backstop import write_failed

        code = write_failed(exc)
        if code is None:
            return _internal_error(debug)
        return code
    except RecursionError:
        if debug:
            raise
        sys.stderr.write("gradcli: error: the program nests too deeply to run\n")
        return int(ExitCode.PROGRAM)
    except Exception:  # a bug in gradcli itself
        return _internal_error(debug)


def _internal_error(debug: bool) -> int:
    """Report the exception being handled as a bug in gradcli (exit 70)."""
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
