"""Exceptions in a program: the builtin exception types it may name, raise and catch, and
the Python exception that a gradcli error stands for in an `except` clause.

An error the engine raises is caught as the Python type PyTorch raises: a shape or
autograd error as RuntimeError, a bad argument as TypeError or ValueError, an index
out of range as IndexError. A limit (steps, elements, sequence length, recursion
depth) is never caught: a program cannot go on past its budget.
"""
from __future__ import annotations

import builtins

from gradcli.errors import ExitCode, GradcliError, LimitError, ProgramError

# The exception classes a program can reach by name (and nothing else of Python's).
EXCEPTION_TYPES = {cls.__name__: cls for cls in (
    BaseException, Exception, ArithmeticError, AssertionError, AttributeError,
    FloatingPointError, IndexError, KeyError, LookupError, NameError, NotImplementedError,
    OverflowError, RecursionError, RuntimeError, StopIteration, TypeError, ValueError,
    ZeroDivisionError, OSError, FileNotFoundError, ImportError, ModuleNotFoundError,
    KeyboardInterrupt, Warning, UserWarning, RuntimeWarning, DeprecationWarning, SystemExit,
)}
EXCEPTION_CLASSES = frozenset(EXCEPTION_TYPES.values())

_RECURSION = "maximum recursion depth exceeded"


class RaisedError(ProgramError):
    """A program's own `raise`: the exception value it raised, until something catches it.

    Uncaught, it reads as Python's last traceback line: `ValueError: bad input`.
    """

    def __init__(self, value: BaseException, span=None):
        text = str(value)
        name = type(value).__name__
        super().__init__(f"{name}: {text}" if text else name, span)
        self.value = value


class ProgramExit(ProgramError):
    """`sys.exit(code)` (or `raise SystemExit(code)`) not caught: the program ends there, as
    Python's does. A code of None or 0 is a normal end (the run goes on to its result); a
    str (or any other object) is printed on stderr alone, and the exit code is 1, as
    Python's; a non-zero int gives exit code 1 too (gradcli's codes 2-4 and 70 keep
    their meaning), with nothing printed."""

    bare = True   # rendered as its message alone, with no location (render/errors.py)

    def __init__(self, code, span=None):
        if isinstance(code, float) and code.is_integer():
            code = int(code)   # a gradcli program's `0` is a float (SPEC 2.1)
        number = code is None or (isinstance(code, int) and not isinstance(code, bool)) or code is False
        super().__init__("" if number else str(code), span)
        self.code = code
        self.exit_code = ExitCode.OK if code is None or code is False or (number and code == 0) \
            else ExitCode.CHECK_FAILED

    @property
    def success(self) -> bool:
        return self.exit_code == ExitCode.OK


def program_exit(error: GradcliError) -> ProgramExit | None:
    """The ProgramExit `error` stands for (sys.exit, or the program's own SystemExit), or None."""
    if isinstance(error, ProgramExit):
        return error
    if isinstance(error, RaisedError) and isinstance(error.value, SystemExit):
        code = error.value.args[0] if len(error.value.args) == 1 else (error.value.args or None)
        return ProgramExit(code, error.span)
    return None


def python_exception(error: GradcliError) -> BaseException | None:
    """The exception value an `except` clause sees for `error`; None if it cannot be caught."""
    if isinstance(error, RaisedError):
        return error.value
    if isinstance(error, ProgramExit):
        return SystemExit(error.code)
    if isinstance(error, LimitError) or error.message.startswith(_RECURSION):
        return None
    cause = error.__cause__ or error.__context__  # `raise ... from None` keeps the context
    kind = next((cls for cls in type(error).__mro__ if cls in EXCEPTION_CLASSES
                 and cls not in (Exception, BaseException)), None)
    if kind is None and cause is not None and type(cause) in EXCEPTION_CLASSES:
        kind = type(cause)
    if kind is None:
        kind = RuntimeError  # what PyTorch raises for most errors
    if isinstance(cause, kind) and type(cause).__module__ == builtins.__name__:
        return kind(*cause.args)  # Python's own message (a KeyError's key)
    return kind(error.message)
