"""A str's methods and `%` formatting, as Python's but inside the language's limits.

`'{} device'.format(d)` reads only positional and keyword fields (no `{0.attr}` or
`{0[key]}`: a format field never reaches an attribute), with widths and precisions
bounded as f-strings are (MAX_FORMAT_WIDTH); `'%.3f' % x` is checked the same way
before Python formats it. Every method that builds a string checks the result's
length against MAX_SEQUENCE_LENGTH before building it.
"""
from __future__ import annotations

import re

from gradcli.errors import LimitError, ProgramTypeError, ProgramValueError
from gradcli.lang.limits import MAX_FORMAT_WIDTH, MAX_SEQUENCE_LENGTH
from gradcli.lang.sequences import check_length, materialize
from gradcli.limits import check_walk, measure

_NUMBER = re.compile(r"\d+")
# One `%` conversion: (mapping key)(flags)(width)(.precision)(type); compiled on first use
# (by `re`'s cache), as `string` is imported on a program's first str.format: not at start.
_PERCENT = (r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[-#0 +]*)(?P<width>\*|\d+)?"
            r"(?:\.(?P<precision>\*|\d*))?(?P<type>[diouxXeEfFgGcrsa%])?")

# The methods a program may call on a str (each returns a new value; a str is immutable).
STR_METHODS = frozenset({
    "format", "join", "split", "rsplit", "strip", "lstrip", "rstrip", "upper", "lower",
    "startswith", "endswith", "replace", "find", "rfind", "index", "count", "isdigit",
    "isalpha", "isalnum", "isspace", "isupper", "islower", "title", "capitalize", "splitlines",
    "ljust", "rjust", "center", "zfill", "partition", "rpartition", "casefold", "swapcase",
})
_PADDING = frozenset({"ljust", "rjust", "center", "zfill"})


def _check_spec(spec: str) -> None:
    for number in _NUMBER.findall(spec):
        if len(number) > 6 or int(number) > MAX_FORMAT_WIDTH:
            raise ProgramValueError(f"format width or precision {number} is too large "
                                    f"(at most {MAX_FORMAT_WIDTH})")


def check_printed(value) -> None:
    """As builtins.check_printed: a nested value whose text would pass the string limit."""
    if isinstance(value, (list, tuple, dict)):   # (OrderedDict, defaultdict too)
        depth, size, distinct = measure(value)
        if 3 * size > MAX_SEQUENCE_LENGTH:
            raise LimitError(f"printing a value of {size} items would make a string longer "
                             f"than the limit of {MAX_SEQUENCE_LENGTH} characters")


def _format_value(value, spec: str, conversion) -> str:
    _check_spec(spec)
    check_walk(value)
    check_printed(value)
    if conversion == "r":
        value = repr(value)
    elif conversion == "s":
        value = str(value)
    elif conversion == "a":
        value = ascii(value)
    return format(value, spec)


def format_string(template: str, args: tuple, kwargs: dict, depth: int = 0) -> str:
    """`template.format(*args, **kwargs)`: fields `{}`, `{0}`, `{name}` with a conversion and
    a spec (which may hold one level of nested fields); never `{0.attr}` or `{0[key]}`."""
    import string

    out = []
    auto = 0
    for literal, field, spec, conversion in string.Formatter().parse(template):
        out.append(literal)
        if field is None:
            continue
        if field == "":
            key = auto
            auto += 1
        elif field.isdigit():
            key = int(field)
        elif field.isidentifier() and not field.startswith("_"):
            key = field
        else:
            raise ProgramValueError(f"format field '{{{field}}}' is not supported",
                                    hint="fields are {}, {0} or {name}; read attributes and "
                                         "items before formatting")
        if key.__class__ is int:
            if key >= len(args):
                raise ProgramValueError(f"Replacement index {key} out of range for positional "
                                        f"args tuple")
            value = args[key]
        elif key in kwargs:
            value = kwargs[key]
        else:
            raise ProgramValueError(f"KeyError: '{key}'")
        if spec and "{" in spec:
            if depth:
                raise ProgramValueError("Max string recursion exceeded")
            spec = format_string(spec, args[auto:] if field == "" else args, kwargs, 1)
        out.append(_format_value(value, spec or "", conversion))
        check_length(sum(len(part) for part in out), "a string")
    return "".join(out)


def percent_format(template: str, values) -> str:
    """`template % values`: each conversion's width and precision checked, then Python's."""
    for match in re.finditer(_PERCENT, template):
        for part in ("width", "precision"):
            number = match.group(part)
            if number == "*":
                raise ProgramValueError("'*' widths in % formatting are not supported",
                                        hint="write the width in the format, or use an f-string")
            if number:
                _check_spec(number)
        if match.group("type") is None:
            raise ProgramValueError(f"unsupported format character at index {match.start()}")
    check_walk(values)
    check_printed(values)
    text = template % values
    check_length(len(text), "a string")
    return text


def str_method(text: str, name: str):
    """The Python function `text.name` stands for, with the length limits checked first."""
    if name == "format":
        return lambda *args, **kwargs: format_string(text, args, kwargs)
    if name == "join":
        def join(items):
            parts = materialize(items)
            for part in parts:
                if part.__class__ is not str:
                    raise ProgramTypeError(f"sequence item: expected str instance, "
                                           f"{type(part).__name__} found")
            check_length(sum(map(len, parts)) + len(text) * max(len(parts) - 1, 0), "a string")
            return text.join(parts)
        return join
    if name == "replace":
        def replace(old, new, count=-1):
            if old.__class__ is not str or new.__class__ is not str:
                raise ProgramTypeError("replace() arguments must be str")
            times = text.count(old) if old else len(text) + 1
            check_length(len(text) + times * max(len(new) - len(old), 0), "a string")
            return text.replace(old, new, count)
        return replace
    if name in _PADDING:
        method = getattr(text, name)

        def pad(width, *fill):
            if width.__class__ is not int:
                raise ProgramTypeError("width must be an int")
            check_length(width, "a string")
            return method(width, *fill)
        return pad
    if name in ("split", "rsplit", "splitlines"):
        method = getattr(text, name)

        def split(*args, **kwargs):
            check_length(len(text) + 1)  # at most one item per character, and one more
            return method(*args, **kwargs)
        return split
    return getattr(text, name)
