"""The options the commands share, declared once, and `common_options`, which gives
them to a command as one `Common` (sqlite-utils' `common_options`, for Typer).

An option is declared as `Annotated[type, Option(...)]` in a command's signature,
with gradcli's own `Option` and `Argument`: they take typer.Option's arguments and
become Typer's declarations only when Typer builds the command (help, completion, a
usage error). The common invocation never imports Typer: `ArgvReader` reads the same
declarations (`WithCommon.parameters`). An option for every command is one entry of `SHARED`;
the process's options (`PROCESS`: --max-memory, --max-seconds, --debug) are declared here
too, so that every command's help lists them.
"""
from __future__ import annotations

import functools
import inspect
import typing
from enum import Enum
from typing import Annotated, List, Optional

from ..limits import COMMAND_RUNS


class Option:
    """An option as a command declares it: typer.Option's arguments, without importing Typer."""

    typer_kind = "Option"

    def __init__(self, *flags: str, help: str | None = None, metavar: str | None = None,
                 show_default: bool = True, hidden: bool = False, case_sensitive: bool = True):
        self.flags = flags
        self.settings = {"help": help, "metavar": metavar, "show_default": show_default, "hidden": hidden,
                         "case_sensitive": case_sensitive}

    def to_typer(self):
        import typer

        return getattr(typer, self.typer_kind)(*self.flags, **self.settings)


class Argument(Option):
    """A positional argument (FILE): it keeps its place before the options."""

    typer_kind = "Argument"


File = Annotated[Optional[str], Argument(
    help="The program: a file, or - for standard input. A file that imports torch is a PyTorch "
         "program: Python's numbers, and its inputs are the tensors made with requires_grad=True "
         "(or .requires_grad_()) and module parameters by path (fc1.weight). Any other file is an "
         "expression: each name assigned a number or list at the top level (x = 2.0) is an input.",
    metavar="FILE", show_default=False)]
Expr = Annotated[Optional[str], Option("--expr", "-e", help="The program as text instead of FILE.", metavar="TEXT")]
Of = Annotated[Optional[str], Option(
    "--of", help="The tensor to answer about (default: the program's output, the last assignment).",
    metavar="NAME")]
Set = Annotated[Optional[List[str]], Option(
    "--set", help="Replace the value of a top-level assignment of a literal, NAME = number or list "
                  "(an expression's input, or a PyTorch program's setting such as lr); repeatable.",
    metavar="NAME=VALUE")]
Json = Annotated[bool, Option(
    "--json", help="Print one JSON document for scripts (indented in a terminal, compact when piped).")]
Points = Annotated[Optional[str], Option(
    "--points", help="JSON Lines of --set values (a path or -): one run and one JSON line per point "
                     "(each run with the budget of --max-steps, all of them together "
                     f"{COMMAND_RUNS} times it).",
    metavar="FILE")]
MaxElements = Annotated[int, Option("--max-elements", help="The most elements one tensor may have.", metavar="N")]
MaxSteps = Annotated[int, Option(
    "--max-steps", help="The most loop iterations plus calls in one run (a long loop body or a large "
                        "tensor counts as several; derivatives may build this many graph nodes); "
                        f"a command's runs together (--points lines, plot samples) at most "
                        f"{COMMAND_RUNS} times it.",
    metavar="N")]
Color = Annotated[str, Option(
    "--color", help="Colour: auto (in a terminal, unless NO_COLOR is set), always or never.",
    metavar="auto|always|never")]


class DTypeName(str, Enum):
    float32 = "float32"
    float64 = "float64"


DType = Annotated[Optional[DTypeName], Option(
    "--dtype", help="The default floating dtype (default: float64, float32 for run, as in PyTorch).",
    show_default=False)]
Wrt = Annotated[Optional[str], Option(
    "--wrt", help="Comma-separated inputs to differentiate with respect to: names, parameter paths "
                  "(fc1.weight), or a reassigned leaf as `x (2:1)` (default: every input).",
    metavar="NAMES", show_default=False)]

MaxMemory = Annotated[Optional[str], Option(
    "--max-memory", help="The process's memory ceiling, such as 4G or 512M; 0 for none (default 4G).",
    metavar="SIZE", show_default=False)]
MaxSeconds = Annotated[Optional[str], Option(
    "--max-seconds", help="The CPU seconds one run may take; 0 for no limit (the default).",
    metavar="SECONDS", show_default=False)]
Debug = Annotated[bool, Option("--debug", help="Print the traceback of an internal error (exit 70).")]

# The process's options, last in every command's help. `take_process_options` takes them
# off the command line before a command's options are read, anywhere on it (before the
# command's name too): the ceilings are set before anything runs, and --debug also covers
# what fails outside a command. Typer and `ArgvReader` see them only as declarations, and
# `WithCommon.split` drops them.
PROCESS = (
    ("max_memory", MaxMemory, None),
    ("max_seconds", MaxSeconds, None),
    ("debug", Debug, False),
)

# The shared options, in the order of a command's help: (name, declaration, default).
SHARED = (
    ("file", File, None),
    ("expr", Expr, None),
    ("of", Of, None),
    ("sets", Set, None),
    ("json", Json, False),
    ("points", Points, None),
    ("max_elements", MaxElements, 10**8),
    ("max_steps", MaxSteps, 10**6),
    ("dtype", DType, None),
    ("color", Color, "auto"),
)
LIMIT_OPTIONS = ("max_elements", "max_steps")
_PROCESS_NAMES = frozenset(name for name, _, _ in PROCESS)
ALWAYS = ("color",)  # every command has these


def take_process_options(args: list[str]) -> tuple[list[str], dict]:
    """Take the `PROCESS` options off `args`, wherever they stand before `--`: (the rest, {name:
    the value given, as text (True for a flag), else the declared default}). A value-taking
    option at the end of the line is a UsageError."""
    flags, values = {}, {}
    for name, annotation, default in PROCESS:
        kind, declaration = declared(annotation)
        flags.update((flag, (name, kind is bool)) for flag in declaration.flags)
        values[name] = default
    rest, i = [], 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        flag, equals, value = arg.partition("=")
        name, is_flag = flags.get(flag, (None, False))
        if name is None or (is_flag and equals):
            rest.append(arg)
        elif is_flag:
            values[name] = True
        else:
            if not equals:
                if i + 1 >= len(args):
                    from ..errors import UsageError

                    raise UsageError(f"Option '{flag}' requires an argument.")
                i += 1
                value = args[i]
            values[name] = value
        i += 1
    return rest, values


class Common:
    """The shared options of a command, as given, and the program once it is read.

    A command that runs a program reports its errors against `source` (see
    `commandset.guard`). A new shared option is one more entry of SHARED; a limit also goes
    into LIMIT_OPTIONS and `limits`.
    """

    __slots__ = tuple(name for name, _, _ in SHARED) + ("source",)

    def __init__(self, **given):
        for name, _, default in SHARED:
            setattr(self, name, given.pop(name, default))
        if given:
            raise TypeError(f"no shared option {', '.join(sorted(given))}")
        self.source = None  # the program (a `common.Source`) once read

    def limits(self):
        """The per-run budgets of SPEC 2.5 these options give."""
        from ..lang import Limits

        return Limits(max_elements=self.max_elements, max_steps=self.max_steps)


def common_options(*names: str):
    """Give a command the shared options `names` (all by default) as one `Common`.

    The command is written `def cmd(opts: Common, <its own options>)`.
    """
    unknown = set(names) - {name for name, _, _ in SHARED}
    if unknown:
        raise TypeError(f"no shared option {', '.join(sorted(unknown))}")
    shared = tuple(s for s in SHARED if not names or s[0] in names or s[0] in ALWAYS)
    return lambda command: WithCommon(command, shared)


def declared(annotation) -> tuple[object, Option]:
    """(kind, declaration) of a parameter annotated `Annotated[kind, Option or Argument]`."""
    kind, declaration = typing.get_args(annotation)[:2]
    return kind, declaration


class WithCommon:
    """A command as Typer and `ArgvReader` see it: keyword arguments, its own options before the
    shared ones (so its help lists them first)."""

    def __init__(self, command, shared):
        self.command = command
        self.shared = shared
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(self, attr, getattr(command, attr))
        # Typer reads each option from the signature; the names' type hints add nothing.
        self.__annotations__ = {}

    @functools.cached_property
    def parameters(self) -> list[inspect.Parameter]:
        """Every parameter, annotated `Annotated[type, Option or Argument]`, in the order of the help:
        the argument, the command's own options, the shared options."""
        own = list(inspect.signature(self.command, eval_str=True).parameters.values())[1:]
        shared = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                                    annotation=annotation)
                  for name, annotation, default in self.shared + PROCESS]
        arguments = [p for p in shared if isinstance(declared(p.annotation)[1], Argument)]
        return arguments + own + [p for p in shared if p not in arguments]

    @functools.cached_property
    def __signature__(self) -> inspect.Signature:
        """The signature Typer reads (built when Typer first asks: for help, completion or a
        usage error), with Typer's own declarations."""
        signature = []
        for p in self.parameters:
            kind, declaration = declared(p.annotation)
            signature.append(p.replace(annotation=Annotated[kind, declaration.to_typer()]))
        return inspect.Signature(signature)

    @functools.cached_property
    def reader(self) -> "ArgvReader | None":
        """The parser of the common invocation (None: only Typer can read this command's options)."""
        return ArgvReader.of(self.parameters)

    def split(self, kwargs: dict) -> tuple[Common, dict]:
        """(the shared options as one Common, the command's own options); the process's options
        (`PROCESS`, read before the command) are dropped."""
        own = {name: value for name, value in kwargs.items() if name not in _PROCESS_NAMES}
        return Common(**{name: own.pop(name) for name, _, _ in self.shared}), own

    def __call__(self, **kwargs):
        opts, own = self.split(kwargs)
        return self.command(opts, **own)


def _conversion(kind) -> tuple[object, bool]:
    """(how a value of `kind` is read from argv, whether the option repeats): int, float, str,
    an Enum, or bool for a flag; (None, False) for a kind only Typer reads."""
    if typing.get_origin(kind) is typing.Union:
        kinds = [k for k in typing.get_args(kind) if k is not type(None)]
        if len(kinds) != 1:
            return None, False
        kind = kinds[0]
    if typing.get_origin(kind) is list:
        inner, _ = _conversion(typing.get_args(kind)[0])
        return (inner, True) if inner in (str, int, float) else (None, False)
    if kind in (bool, int, float, str) or (isinstance(kind, type) and issubclass(kind, Enum)):
        return kind, False
    return None, False


class ArgvReader:
    """Reads a command's arguments as Click does, in the forms people type: `--opt VALUE`,
    `--opt=VALUE`, `-e VALUE`, flags, repeated options, FILE anywhere, `--`.

    Anything else (--help, an unknown or abbreviated option, `-eTEXT`, a value that does not
    convert, a missing value, an extra argument) reads as None: Typer then parses the line
    and reports the error in its own words. `tests/cli/test_argv_reader.py` checks that
    what it reads is what Typer would pass.
    """

    def __init__(self, options: dict, argument: tuple | None, defaults: dict):
        self.options = options      # flag -> (name, conversion, repeats)
        self.argument = argument    # (name, repeats), or None
        self.defaults = defaults

    @classmethod
    def of(cls, parameters: list[inspect.Parameter]) -> "ArgvReader | None":
        options, argument = {}, None
        for p in parameters:
            kind, declaration = declared(p.annotation)
            convert, repeats = _conversion(kind)
            if convert is None or not declaration.settings["case_sensitive"]:
                return None
            if isinstance(declaration, Argument):
                if argument is not None:
                    return None
                argument = (p.name, repeats)
            else:
                for flag in declaration.flags:
                    options[flag] = (p.name, convert, repeats)
        return cls(options, argument, {p.name: p.default for p in parameters})

    def read(self, args: list[str]) -> dict | None:
        """The command's keyword arguments, or None for Typer to read `args`."""
        values = dict(self.defaults)
        positional = []
        i, n = 0, len(args)
        while i < n:
            token = args[i]
            i += 1
            if token == "--":
                positional.extend(args[i:])
                break
            if token[:1] != "-" or token == "-":
                positional.append(token)
                continue
            flag, equals, value = token.partition("=") if token[:2] == "--" else (token, "", "")
            option = self.options.get(flag)
            if option is None:
                return None
            name, convert, repeats = option
            if convert is bool:
                if equals:
                    return None
                values[name] = True
                continue
            if not equals:
                if i == n:
                    return None
                value = args[i]
                i += 1
            try:
                value = convert(value)
            except ValueError:
                return None
            values[name] = (values[name] or []) + [value] if repeats else value
        if self.argument is None:
            return None if positional else values
        name, repeats = self.argument
        if repeats:
            values[name] = positional or values[name]
        elif len(positional) > 1:
            return None
        elif positional:
            values[name] = positional[0]
        return values
