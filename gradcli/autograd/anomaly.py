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
    """torch.autograd.set_detect_anomaly(mode): a switch and a context manager."""

    def __init__(self, mode: bool):
        self.prev = enabled[0]
        enabled[0] = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        enabled[0] = self.prev
        return False


def detect_anomaly():
    return set_detect_anomaly(True)
