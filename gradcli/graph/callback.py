"""The one boundary where the engine calls an object a program supplied.

Hooks, a custom Function's forward/backward/setup_context, the function given to
`autograd.functional` or `gradcheck`, an optimizer's closure: whatever the program put
there (a number, a class, a namespace, a function that fails) ends as a program error
at the program's location (exit 3), never as a Python exception escaping the engine.
"""
from __future__ import annotations

from ..errors import GradcliError, ProgramError, ProgramTypeError
from ..limits import OP_WORK, budget


def call_program(what: str, span, fn, *args, **kwargs):
    """`fn(*args, **kwargs)` for a program-supplied `fn`; any failure a program error
    located at `span` (`what` names the call-back in the message). Each call is charged as an
    op (a list of 10^6 hooks, a builtin as a hook): the interpreter charges a program's
    function its own steps besides."""
    budget.charge(OP_WORK)
    if not callable(fn):
        raise ProgramTypeError(f"{what}: '{_type_name(fn)}' object is not callable", span)
    try:
        return fn(*args, **kwargs)
    except GradcliError as error:
        raise error.at(span)
    except (RecursionError, MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:  # the program's object failed as Python would
        raise ProgramError(f"{what}: {_type_name(exc)}: {exc}", span) from None


def _type_name(value) -> str:
    kind = value if isinstance(value, type) else type(value)
    return getattr(kind, "__name__", "object")
