"""One typed hierarchy of gradcli's errors, each class carrying its exit code.

The library raises these and never prints or exits; the CLI boundary renders
them as ``FILE:LINE:COL: error: message`` with the source line, a caret and a
hint. Errors that PyTorch raises as ``RuntimeError``/``TypeError`` subclass
those too, so library users can catch them the way they would with PyTorch.
"""
from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Exit codes of SPEC section 6."""

    OK = 0
    CHECK_FAILED = 1
    USAGE = 2
    PROGRAM = 3
    AUTOGRAD = 4
    INTERRUPTED = 130
    INTERNAL = 70


class Span(tuple):
    """A 1-based (line, col) position in a program, with an optional end column."""

    __slots__ = ()

    def __new__(cls, line: int, col: int, end_col: int | None = None):
        return tuple.__new__(cls, (line, col, end_col))

    line = property(lambda self: self[0])
    col = property(lambda self: self[1])
    end_col = property(lambda self: self[2])

    def __repr__(self) -> str:
        return f"{self[0]}:{self[1]}"


class GradcliError(Exception):
    """Base of every error gradcli reports to a user."""

    exit_code = ExitCode.INTERNAL
    node = None   # the backward node whose rule raised it (set by the engine): its source is the place

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint

    @property
    def hint(self) -> str | None:
        """The hint, made when first read: a "did you mean" search over every name costs
        ~0.5 ms, and an error a program catches in a loop is never shown (a hint given as a
        function is called then)."""
        hint = self._hint
        if callable(hint):
            hint = self._hint = hint()
        return hint

    @hint.setter
    def hint(self, value) -> None:
        self._hint = value

    def at(self, span: Span | None) -> "GradcliError":
        """Attach a source position unless one is already known; returns self."""
        if self.span is None and span is not None:
            self.span = span
        return self

    def __str__(self) -> str:
        return self.message


class UsageError(GradcliError):
    """The command line is wrong: unknown option, missing --wrt, unreadable FILE."""

    exit_code = ExitCode.USAGE


class ProgramError(GradcliError):
    """The program is wrong: syntax, unknown name, bad shape or type, a limit reached."""

    exit_code = ExitCode.PROGRAM


class ParseError(ProgramError):
    """The program does not parse."""


class NameNotFound(ProgramError, NameError):
    """A name that is neither defined by the program nor built in."""


class ShapeError(ProgramError, RuntimeError):
    """Shapes that do not fit (PyTorch raises these as RuntimeError)."""


class ProgramTypeError(ProgramError, TypeError):
    """A value of the wrong type (PyTorch raises these as TypeError)."""


class ProgramValueError(ProgramError, ValueError):
    """A value of the right type but out of its range."""


class LimitError(ProgramError):
    """A resource limit of SPEC 2.5 was reached; the message names the option."""


class AutogradError(GradcliError, RuntimeError):
    """PyTorch's autograd errors, worded as PyTorch words them."""

    exit_code = ExitCode.AUTOGRAD


class CheckFailed(GradcliError):
    """A gradient check found a mismatch (exit 1)."""

    exit_code = ExitCode.CHECK_FAILED


def type_name(value) -> str:
    """The type of a value as a program sees it (for error messages).

    The language's own values name themselves as Python's do (`Closure.__name__` is
    "function", `Builtin`'s "builtin_function_or_method", `Namespace`'s "module"),
    so this needs no import of the language.
    """
    if isinstance(value, type):
        return "type"
    program_class = getattr(value.__class__, "program_class", None)
    if program_class is not None:  # a program's plain object: its class's name
        return value.program_class.name
    return type(value).__name__


# A function the library hands to a program (`torch.func.grad(f)`, `once_differentiable`):
# the language calls only these, its own closures and the builtin table's entries.
class Builtin:
    """A function a program may call: its name and the Python callable behind it."""

    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn):
        self.name = name
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        qualified = CLASS_NAME[0](self.fn)   # a class (nn.Linear, int) prints as one
        return f"<class '{qualified}'>" if qualified is not None else f"<built-in function {self.name}>"


# fn -> the name it prints with as a class (`torch.nn.modules.linear.Linear`), or None for a
# plain function; the language installs its own (lang/classnames.py) when it makes its builtins
CLASS_NAME = [lambda fn: None]


CUDA_MESSAGE = "Torch not compiled with CUDA enabled"


def cuda_unavailable() -> "ProgramError":
    """PyTorch's refusal of CUDA on a CPU build, which a program catches as AssertionError."""
    error = ProgramError(CUDA_MESSAGE)
    error.__cause__ = AssertionError(CUDA_MESSAGE)
    return error


def close_matches(word: str, candidates, n: int = 1) -> list:
    """The candidates closest to `word`, for a "did you mean" hint (difflib's; imported
    only when an error needs it, not at every start)."""
    from difflib import get_close_matches

    return get_close_matches(word, candidates, n=n)
