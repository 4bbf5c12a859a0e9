"""The language's arithmetic on plain values, as Python's but inside the limits: ints past
MAX_INT_BITS become floats, powers overflow to infinities, sequence repetition and
concatenation are checked before they are built; and nested lists of numbers as a
tensor's shape and float data (the interpreter's operators and list literals use these).
"""
from __future__ import annotations

import math
import operator

import numpy as np

from gradcli._tensor import Tensor, as_int
from gradcli.lang.builtins import check_length
from gradcli.lang.limits import MAX_INT_BITS
from gradcli.limits import OP_WORK, budget as _budget

# An int result past MAX_INT_BITS, or a power that overflows: the exception, the conversion
# to float64 and numpy's errstate cost ~2-4 us beside the tokens, as an op without a node.
OVERFLOW_WORK = OP_WORK
_BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "@": operator.matmul, "**": operator.pow,
    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
    ">>": operator.rshift,
}
_MAX_TENSOR_DIMS = 64  # numpy's limit


def _int_arithmetic(op: str, left: int, right: int):
    """Python int arithmetic, but a result past MAX_INT_BITS becomes a float
    (numbers are float64), so no program can build a huge integer."""
    # |left| ** right has more than right * (bits of |left| - 1) bits: past the limit, the
    # power is computed as a float without building the integer (2 ** 62 stays an int)
    if op == "**" and right > 0 and abs(left) > 1 and right * (abs(left).bit_length() - 1) > MAX_INT_BITS:
        _budget.charge(OVERFLOW_WORK)
        return _number_power(_int_to_float(left), right)
    if op == "<<" and right > 0 and abs(left).bit_length() + right > MAX_INT_BITS:
        return _int_to_float(left) * 2.0 ** min(right, 2048)  # past the limit: a float
    result = _BINARY[op](left, right)
    if result.__class__ is int and result.bit_length() > MAX_INT_BITS:
        # a big int was made (operands of up to ~1030 bits, from int(1e308)): its digits,
        # and the conversion (an OverflowError past float64)
        _budget.charge(OVERFLOW_WORK + (result.bit_length() >> 5))
        return _int_to_float(result)
    return result


def _int_to_float(value: int) -> float:
    """An int as float64: past its range, an infinity (as numpy converts), not OverflowError."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _number_power(left, right):
    """`**` of two plain numbers with float64's results where Python's differ: an overflow
    is an infinity (`9 ** 9 ** 9`), not OverflowError, and a negative base to a fractional
    power is nan, not a complex number (no value of the language is complex)."""
    if left.__class__ is int and right.__class__ is int:
        return _int_arithmetic("**", left, right)
    try:
        result = left ** right
    except OverflowError:
        _budget.charge(OVERFLOW_WORK)
        with np.errstate(all="ignore"):
            return float(np.float64(left) ** np.float64(right))
    if result.__class__ is complex:
        return math.nan
    return result


def _check_sequence_arithmetic(op: str, left, right):
    """Refuse `seq * n` and `seq + seq` results over MAX_SEQUENCE_LENGTH before building them;
    an integral float is accepted as the count."""
    if op == "+":
        if isinstance(left, (list, tuple, str)) and isinstance(right, (list, tuple, str)):
            check_length(len(left) + len(right), f"a {type(left).__name__}")
        return left, right
    sequence, count = (left, right) if isinstance(left, (list, tuple, str)) else (right, left)
    if isinstance(count, Tensor) or not isinstance(count, (int, float)):
        return left, right
    count = as_int(count, "a repeat count")
    check_length(len(sequence) * max(count, 0), f"a {type(sequence).__name__}")
    return sequence, count


def _numeric_shape(items: list):
    """The shape of a nested list of numbers; None if it holds anything else, False if ragged."""
    level = items
    shape = []
    while isinstance(level, list):
        if not level or len(shape) == _MAX_TENSOR_DIMS:
            # deeper than any tensor: a Python list (`a = [a]` in a loop stays linear)
            return None
        shape.append(len(level))
        level = level[0]
    stack = [(items, 0)]
    while stack:
        current, depth = stack.pop()
        if depth == len(shape):
            if current.__class__ not in (int, float):
                return None
            continue
        if current.__class__ is not list:
            return None if not isinstance(current, (int, float)) or isinstance(current, bool) \
                else False
        if len(current) != shape[depth]:
            return False
        stack.extend((item, depth + 1) for item in current)
    return tuple(shape)


def _to_float(value):
    """Ints to floats, through nested lists (every tensor is float64)."""
    if value.__class__ is int:
        return float(value)
    if value.__class__ is list:
        return [_to_float(item) for item in value]
    return value
