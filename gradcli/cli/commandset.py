"""The commands by name, and `guard`, the boundary that turns a command's user error into
its exit code. Below both `app` (which reads the common command line without Typer) and
`typer_app` (which builds the Typer app from these), so neither imports the other.
"""
from __future__ import annotations

import functools
import importlib

from ..errors import GradcliError
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


def choose_colour(mode: str) -> None:
    from ..errors import UsageError
    from ..render import style

    if mode not in style.MODES:
        raise UsageError(f"--color {mode}: give auto, always or never")
    style.choose(mode)


def default_dtype(name: str) -> str:
    """A command's default floating dtype: float32 for `run`, as PyTorch; float64 otherwise."""
    return "float32" if name == "run" else "float64"


# graph reports its conflicting options as Click's usage errors, so Typer always reads its line
READ_WITHOUT_TYPER = frozenset(COMMANDS) - {"graph"}
