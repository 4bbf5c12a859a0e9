"""The sequences a program may iterate, and the length check made before one is built.

Below `builtins` and `pymodules` (whose `math.fsum`, `np.array` and the like take any
iterable of the language), so that neither imports the other for them.
"""
from __future__ import annotations

from itertools import islice

from gradcli.errors import LimitError, ProgramTypeError
from gradcli.lang.limits import MAX_SEQUENCE_LENGTH
from gradcli.lang.values import type_name

# Types whose values a program may iterate, index and take len() of.
SEQUENCE_TYPES = (list, tuple, range, str, dict, set)


def check_length(length: int, what: str = "a list") -> None:
    """Refuse a Python sequence longer than MAX_SEQUENCE_LENGTH (before building it)."""
    if length > MAX_SEQUENCE_LENGTH:
        raise LimitError(f"{what} of {length} items exceeds the limit of {MAX_SEQUENCE_LENGTH} items",
                         hint="use a tensor (zeros, arange, ...) for large data")


def materialize(iterable, what: str = "a list") -> list:
    """The items of an iterable value as a list, refusing more than MAX_SEQUENCE_LENGTH.

    Every iterable the language has (list, tuple, range, str, dict, Tensor) knows
    its length, so the check comes before any item is made.
    """
    iterator = iterate(iterable)
    try:
        length = len(iterable)
    except TypeError:  # an iterator, a program's object without __len__: counted as it goes
        items = list(islice(iterator, MAX_SEQUENCE_LENGTH + 1))
        check_length(len(items), what)
        return items
    check_length(length, what)
    return list(iterator)


def iterate(value):
    """An iterator over a value the language lets a program iterate."""
    from gradcli._tensor import Tensor

    if isinstance(value, SEQUENCE_TYPES) or isinstance(value, Tensor) \
            or getattr(value.__class__, "program_iterable", False):  # Sequential, ModuleList...
        return iter(value)
    raise ProgramTypeError(f"'{type_name(value)}' object is not iterable")
