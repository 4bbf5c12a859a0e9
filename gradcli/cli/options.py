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
Expr = Annotated[Optional[str], typer.Option("--expr", "-e", help="The program as text instead of FILE.",
                                             metavar="TEXT")]
Of = Annotated[Optional[str], typer.Option(
    "--of", help="The tensor to answer about (default: the program's output, the last assignment).",
    metavar="NAME")]
Set = Annotated[Optional[List[str]], typer.Option("--set", help="Override an input's value (repeatable).",
                                                  metavar="NAME=VALUE")]
Json = Annotated[bool, typer.Option(
    "--json", help="Print one JSON document for scripts (indented in a terminal, compact when piped).")]
Points = Annotated[Optional[str], typer.Option(
    "--points", help="JSON Lines of --set values (a path or -): one run and one JSON line per point.",
    metavar="FILE")]
MaxElements = Annotated[int, typer.Option("--max-elements", help="The most elements one tensor may have.",
                                          metavar="N")]
MaxSteps = Annotated[int, typer.Option(
    "--max-steps", help="The most loop iterations plus calls in one run (a long loop body or a large "
                        "tensor counts as several; derivatives may build this many graph nodes).",
    metavar="N")]
Color = Annotated[str, typer.Option(
    "--color", help="Colour: auto (in a terminal, unless NO_COLOR is set), always or never.",
    metavar="auto|always|never")]


class DTypeName(str, Enum):
    float32 = "float32"
    float64 = "float64"


DType = Annotated[Optional[DTypeName], typer.Option(
    "--dtype", help="The default floating dtype (default: float64, float32 for run, as in PyTorch).",
    show_default=False)]
Wrt = Annotated[Optional[str], typer.Option(
    "--wrt", help="Comma-separated inputs to differentiate with respect to (default: every input).",
    metavar="NAMES", show_default=False)]


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
    color: str = _option(Color, "auto")
    source: object = None  # not an option: the program (a `common.Source`) once read

    def limits(self):
        """The per-run budgets of SPEC 2.5 these options give."""
        from ..lang import Limits

        return Limits(max_elements=self.max_elements, max_steps=self.max_steps)


LIMIT_OPTIONS = ("max_elements", "max_steps")
SHARED = tuple(f for f in fields(Common) if "typer" in f.metadata)
ALWAYS = ("color",)  # every command has these


def common_options(*names: str):
    """Give a command the shared options `names` (all by default) as one `Common`.

    The command is written `def cmd(opts: Common, <its own options>)`.
    """
    unknown = set(names) - {f.name for f in SHARED}
    if unknown:
        raise TypeError(f"no shared option {', '.join(sorted(unknown))}")
    shared = tuple(f for f in SHARED if not names or f.name in names or f.name in ALWAYS)
    return lambda command: WithCommon(command, shared)


def _is_argument(parameter) -> bool:
    """A positional argument (FILE): it keeps its place before the options."""
    return any(isinstance(m, typer.models.ArgumentInfo) for m in getattr(parameter.annotation, "__metadata__", ()))


class WithCommon:
    """A command as Typer sees and calls it: keyword arguments, its own options before the
    shared ones (so its help lists them first)."""

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
        arguments = [p for p in shared if _is_argument(p)]
        return inspect.Signature(arguments + own + [p for p in shared if not _is_argument(p)])

    def split(self, kwargs: dict) -> tuple[Common, dict]:
        """(the shared options as one Common, the command's own options)."""
        own = dict(kwargs)
        return Common(**{f.name: own.pop(f.name) for f in self.shared}), own

    def __call__(self, **kwargs):
        opts, own = self.split(kwargs)
        return self.command(opts, **own)

