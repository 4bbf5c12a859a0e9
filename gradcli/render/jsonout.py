"""JSON that strict parsers accept: tensors as numbers or nested lists, NaN and
infinities as the strings "NaN", "Infinity", "-Infinity" (SPEC 5)."""
from __future__ import annotations

import json
import math

import numpy as np

from .._tensor import Tensor
from ..errors import LimitError
from ..limits import measure


def _number(x: float):
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def _array(a: np.ndarray):
    if a.dtype == np.bool_:
        return a.tolist()
    if a.ndim == 0:
        return _number(float(a))
    return [_array(row) for row in a] if a.ndim > 1 else [_number(float(v)) for v in a]


def value(v):
    """A program value as JSON: tensors, numbers, tuples and lists of them, None."""
    if isinstance(v, Tensor):
        return _array(v._data)
    if isinstance(v, np.ndarray):
        return _array(v)
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float, np.floating, np.integer)):
        return _number(float(v)) if isinstance(v, (float, np.floating)) else int(v)
    if isinstance(v, (tuple, list)):
        return [value(x) for x in v]
    if isinstance(v, dict):
        return {str(k): value(x) for k, x in v.items()}
    return None


# Lists nested deeper than this (`a = [a]` in a loop, a list that holds itself) have no
# JSON or printed form worth showing; they are left out rather than overflow the stack.
MAX_DEPTH = 100


# Items of a Python value shown in full, shared parts counted each time they are shown
# (`a = [a, a]` 60 times is 2^60 items in 60 lists): past this it is left out unwalked.
MAX_ITEMS = 10**6


def is_value(v) -> bool:
    """Whether a program value has a JSON form (functions, modules and nodes do not)."""
    if v.__class__ in (list, tuple, dict):
        try:
            _depth, size, _distinct = measure(v, MAX_DEPTH)
        except LimitError:
            return False
        if size > MAX_ITEMS:
            return False
    stack = [(v, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (Tensor, bool, int, float, str, np.floating)) or v is None:
            continue
        if not isinstance(v, (tuple, list)) or depth >= MAX_DEPTH:
            return False
        stack.extend((x, depth + 1) for x in v)
    return True


def dumps(doc, compact: bool = False) -> str:
    if compact:
        return json.dumps(doc, separators=(",", ":"), allow_nan=False)
    return json.dumps(doc, indent=2, allow_nan=False)
