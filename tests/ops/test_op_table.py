"""Every op of the op table, checked against central differences at first and second order.

The cases come from each op's own domain (shapes (), (3,), (2, 3) and broadcasting
pairs), so adding an op to the table adds its checks here. A mutation test shows
the checker can fail: each op's backward scaled by 1.1 must be caught.
"""
import re

import numpy as np
import pytest

from gradcli.autograd import gradcheck, gradgradcheck
from gradcli.autograd.gradcheck import compare
from gradcli.ops import apply
from gradcli._tensor import Tensor

from op_cases import CASES, DIFFERENTIABLE


def _tensors(inputs):
    return tuple(Tensor(np.array(a), requires_grad=True) if isinstance(a, np.ndarray) else a
                 for a in inputs)


def _function(op, params):
    def f(*xs):
        out = apply(op, xs, params)
        return out[0] if isinstance(out, tuple) else out
    return f


def test_every_differentiable_op_has_a_complete_entry():
    for op in DIFFERENTIABLE:
        assert re.fullmatch(r"[A-Z]\w*Backwards?\d*", op.node), op
        assert op.domain is not None, f"{op.name} has no test domain"
        assert op.sympy is not None, f"{op.name} has no SymPy counterpart"
        assert all(f for f, r in zip(op.formulas, op.rules) if r is not None), f"{op.name} lacks a formula"


@pytest.mark.parametrize("op, inputs, params", CASES)
def test_first_order(op, inputs, params):
    assert gradcheck(_function(op, params), _tensors(inputs))


@pytest.mark.parametrize("op, inputs, params", CASES)
def test_second_order(op, inputs, params):
    assert gradgradcheck(_function(op, params), _tensors(inputs))


@pytest.mark.parametrize("op, inputs, params", CASES[::3])
def test_checker_catches_a_wrong_backward(op, inputs, params, monkeypatch):
    f = _function(op, params)
    tensors = _tensors(inputs)
    honest = compare(f, tensors, keep=True)
    if all(np.allclose(r.analytical_jacobian, 0) for r in honest):
        pytest.skip(f"{op.name} has a zero derivative here: scaling it changes nothing")
    scaled = tuple(None if r is None else (lambda r: lambda F, g, *a: r(F, g, *a) * 1.1)(r)
                   for r in op.rules)
    monkeypatch.setattr(op, "rules", scaled)
    results = compare(f, tensors, keep=True)
    bad = [r for r in results if not r.ok]
    assert bad, f"a backward of {op.name} scaled by 1.1 passed the check"
    worst = bad[0]
    assert worst.analytical == pytest.approx(1.1 * worst.numerical, rel=1e-3, abs=1e-6)
