"""Exceptions in a program: the builtin exception types it may name, raise and catch, and
the Python exception that a gradcli error stands for in an `except` clause.

An error the engine raises is caught as the Python type PyTorch raises: a shape or
autograd error as RuntimeError, a bad argument as TypeError or ValueError, an index
out of range as IndexError. A limit (steps, elements, sequence length, recursion
depth) is never caught: a program cannot go on past its budget.
"""
from __future__ import annotations

import builtins

from gradcli.errors import GradcliError, LimitError, ProgramError

# The exception classes a program can reach by name (and nothing else of Python's).
EXCEPTION_TYPES = {cls.__name__: cls for cls in (
    BaseException, Exception, ArithmeticError, AssertionError, AttributeError,
    FloatingPointError, IndexError, KeyError, LookupError, NameError, NotImplementedError,
    OverflowError, RecursionError, RuntimeError, StopIteration, TypeError, ValueError,
    ZeroDivisionError, OSError, FileNotFoundError, ImportError, ModuleNotFoundError,
    KeyboardInterrupt, Warning, UserWarning, RuntimeWarning, DeprecationWarning,
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


def python_exception(error: GradcliError) -> BaseException | None:
    """The exception value an `except` clause sees for `error`; None if it cannot be caught."""
    if isinstance(error, RaisedError):
        return error.value
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
