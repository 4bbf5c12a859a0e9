"""Anomaly detection: stop at the first backward node that produces NaN.

The error names the node as PyTorch does ("Function 'SqrtBackward0' returned
nan values in its 0th output.") and carries the place in the program where
the forward op that made the node was created.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..errors import AutogradError
from .._tensor import Tensor

enabled = [False]


def check(node, grads) -> None:
    for i, g in enumerate(grads or ()):
        if g is None:
            continue
        data = g._data if isinstance(g, Tensor) else g
        if np.isnan(data).any():
            raise AutogradError(f"Function '{node.name()}' returned nan values in its {i}th output.",
                                span=node.source,
                                hint="this is where the forward operation that made the node ran")


@contextmanager
def detect_anomaly_if(flag: bool):
    prev = enabled[0]
    enabled[0] = bool(flag) or prev
    try:
        yield
    finally:
        enabled[0] = prev


class set_detect_anomaly:
    """torch.autograd.set_detect_anomaly(mode, check_nan=True): a switch and a context manager.

    Only the NaN check is modelled (it is what anomaly mode reports here), so
    `check_nan=False` turns the switch on without a check to make.
    """

    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = enabled[0]
        enabled[0] = bool(mode) and bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        enabled[0] = self.prev
        return False


class detect_anomaly:
    """torch.autograd.detect_anomaly(check_nan=True): on inside a `with` block only."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = bool(check_nan)
        self.prev = None

    def __enter__(self):
        self.prev = enabled[0]
        enabled[0] = self.check_nan
        return self

    def __exit__(self, *exc):
        enabled[0] = self.prev
        return False


def is_anomaly_enabled() -> bool:
    return enabled[0]
