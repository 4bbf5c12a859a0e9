"""The cases every table-driven op test runs: each differentiable op's own test domain."""
import numpy as np
import pytest

from gradcli.ops import OPS

# (an op PyTorch gives no derivative records a NotImplemented node: tests/ops/test_division.py)
DIFFERENTIABLE = [op for op in OPS.values() if op.differentiable and op.node != "NotImplemented"]


def _cases():
    for op in DIFFERENTIABLE:
        rng = np.random.default_rng(sum(map(ord, op.name)))
        for k, (inputs, params) in enumerate(op.domain(rng)):
            yield pytest.param(op, inputs, params, id=f"{op.name}-{k}")


CASES = list(_cases())
