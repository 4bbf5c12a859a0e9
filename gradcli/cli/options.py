"""The options the commands share, declared once, and `common_options`, which gives
them to a command as one `Common` (sqlite-utils' `common_options`, for Typer).

Typer reads a command's options from its signature, so the decorator rewrites
the signature: the shared options first, each with its help, then the command's
own. An option for every command is one field of `Common`.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Annotated, List, Optional

import typer

File = Annotated[Optional[str], typer.Argument(help="The program: a file, or - for standard input.", metavar="FILE",
                                               show_default=False)]
Expr = Annotated[Optional[str], typer.Option("--expr", "-e", help="The program as text instead of FILE.")]
Of = Annotated[Optional[str], typer.Option("--of", help="The tensor to answer about (default: the output, SPEC 2.4).")]
Set = Annotated[Optional[List[str]], typer.Option("--set", help="NAME=VALUE: override an input (repeatable).")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON document for scripts.")]
Points = Annotated[Optional[str], typer.Option(
    "--points", help="JSON Lines of --set values (a path or -): one run and one JSON line per point.")]
MaxElements = Annotated[int, typer.Option("--max-elements", help="The most elements one tensor may have.")]
MaxSteps = Annotated[int, typer.Option(
    "--max-steps", help="The most loop iterations plus calls in one run (a long loop body or a large "
                        "tensor counts as several; derivatives may build this many graph nodes).")]


class DTypeName(str, Enum):
    float32 = "float32"
    float64 = "float64"


DType = Annotated[Optional[DTypeName], typer.Option(
    "--dtype", help="The default floating dtype (default: float64, float32 for run, as in PyTorch).",
    show_default=False)]
Wrt = Annotated[str, typer.Option("--wrt", help="Comma-separated names to differentiate with respect to.",
                                  show_default=False)]


def _option(declaration, default=None):
    """A field of `Common` that is a command-line option: its Typer declaration and default."""
    return field(default=default, metadata={"typer": declaration})


@dataclass
class Common:
    """The shared options of a command, as given, and the program once it is read.

    A command that runs a program reports its errors against `source` (see
    `app.guard`). A new shared option is one more field here; a limit also goes
    into LIMIT_OPTIONS and `limits`.
    """

    file: Optional[str] = _option(File)
    expr: Optional[str] = _option(Expr)
    of: Optional[str] = _option(Of)
    sets: Optional[List[str]] = _option(Set)
    json: bool = _option(Json, False)
    points: Optional[str] = _option(Points)
    max_elements: int = _option(MaxElements, 10**8)
    max_steps: int = _option(MaxSteps, 10**6)
    dtype: Optional[DTypeName] = _option(DType)
    source: object = None  # not an option: the program (a `common.Source`) once read

    def limits(self):
        """The per-run budgets of SPEC 2.5 these options give."""
        from ..lang import Limits

        return Limits(max_elements=self.max_elements, max_steps=self.max_steps)


LIMIT_OPTIONS = ("max_elements", "max_steps")
SHARED = tuple(f for f in fields(Common) if "typer" in f.metadata)


def common_options(*names: str):
    """Give a command the shared options `names` (all by default) as one `Common`.

    The command is written `def cmd(opts: Common, <its own options>)`.
    """
    unknown = set(names) - {f.name for f in SHARED}
    if unknown:
        raise TypeError(f"no shared option {', '.join(sorted(unknown))}")
    shared = tuple(f for f in SHARED if not names or f.name in names)
    return lambda command: WithCommon(command, shared)


class WithCommon:
    """A command as Typer sees and calls it: keyword arguments, the shared ones first."""

    def __init__(self, command, shared):
        self.command = command
        self.shared = shared
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(self, attr, getattr(command, attr))
        # Typer reads each option from the signature; the names' type hints add nothing.
        self.__annotations__ = {}

    @functools.cached_property
    def __signature__(self) -> inspect.Signature:
        """Built when Typer first reads it: for the one command being run (a faster start)."""
        own = list(inspect.signature(self.command, eval_str=True).parameters.values())[1:]
        shared = [inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=f.default,
                                    annotation=f.metadata["typer"]) for f in self.shared]
        return inspect.Signature(shared + own)

    def split(self, kwargs: dict) -> tuple[Common, dict]:
        """(the shared options as one Common, the command's own options)."""
        own = dict(kwargs)
        return Common(**{f.name: own.pop(f.name) for f in self.shared}), own

    def __call__(self, **kwargs):
        opts, own = self.split(kwargs)
        return self.command(opts, **own)

