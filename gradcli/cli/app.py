"""The `gradcli` command: reads the command line and maps every failure to an exit code.

User errors (codes 1-4) print `FILE:LINE:COL: error: ...` and never a traceback
(`commandset.guard`, around every command); anything else is a bug in gradcli (exit 70),
with a traceback only under --debug (`run_app`).
"""
from __future__ import annotations

import os
import sys

from ..errors import ExitCode, GradcliError
from .common import Failed, PipeClosed
from .commandset import (  # noqa: F401  (app.COMMANDS, app.guard, ... for callers)
    COMMANDS, READ_WITHOUT_TYPER, command, default_dtype, guard,
)


def __getattr__(name: str):
    """`app`, the full Typer app, made when first asked for (a run builds only its command)."""
    if name == "app":
        from .typer_app import make_app

        globals()["app"] = made = make_app()
        return made
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _run(args: list[str]) -> int:
    """Run the command line `args`: read by `ArgvReader` when it can (no Typer, no Click: a
    faster start), else by Typer, which also gives help and usage errors."""
    if args and args[0] in READ_WITHOUT_TYPER:
        chosen = command(args[0])
        reader = chosen.reader
        kwargs = reader.read(args[1:]) if reader is not None else None
        if kwargs is not None:
            try:
                code = guard(chosen, default_dtype(args[0]))(**kwargs)
            except KeyboardInterrupt:  # as Typer's main: quietly
                return int(ExitCode.INTERRUPTED)
            except EOFError:  # as Click's main
                sys.stderr.write("\n\naborted\n")
                return int(ExitCode.INTERRUPTED)
            return code if isinstance(code, int) else 0
    from .typer_app import run_typer

    return run_typer(args)


def run_app(argv: list[str] | None = None, debug: bool = False) -> int:
    """Run the CLI on `argv` and return the exit code (never raises for user errors).

    The process's options still on the line (`options.PROCESS`: `gradcli.cli.main` takes them
    first and passes --debug as `debug`) are taken off here too; --max-memory and
    --max-seconds then do nothing, as the ceilings belong to a process `main` sets up."""
    from .options import take_process_options

    args = list(sys.argv[1:] if argv is None else argv)
    # click splits "--symbolic=full" into a flag and a value: the hidden flag it stands for
    args = ["--symbolic-full" if a == "--symbolic=full" else a for a in args]
    try:
        args, given = take_process_options(args)
    except GradcliError as err:  # an option without its value, as `main` reports it
        sys.stderr.write(f"gradcli: error: {err}\n")
        return int(ExitCode.USAGE)
    debug = debug or given["debug"]
    try:
        return _run(args)
    except Failed as failed:
        return failed.code
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return int(ExitCode.INTERRUPTED)
    except (BrokenPipeError, PipeClosed):
        _silence_stdout()
        return 0
    except MemoryError as exc:
        exc.__traceback__ = None  # its frames (and the program's values) are freed first
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
