"""Every op's tangent rule (forward mode), checked at first and second order.

Over the same cases as tests/ops/test_op_table.py (each op's own domain): the
tangent J v against central differences of the forward, and against the
backward rule (<u, J v> = <J^T u, v>); forward over reverse (the tangent of a
gradient, H v) and reverse over forward (the gradient of <w, J v>) against
central differences. A mutation test shows the check fails on a wrong rule.
"""
import numpy as np
import pytest

from gradcli._tensor import Tensor
from gradcli.autograd.engine import grad
from gradcli.ops import OPS, apply
from gradcli.ops import dual

from op_cases import CASES

EPS = 1e-6


def _differentiable(op, inputs):
    """Positions of the inputs a tangent is given to: float arrays with a backward rule."""
    return [i for i, a in enumerate(inputs) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
            and op.rules[i] is not None]


def _flat(out):
    outs = out if isinstance(out, tuple) else (out,)
    return [o for o in outs if o._data.dtype.kind == "f"]


def _run(op, params, xs):
    return _flat(apply(op, tuple(xs), params))


def _tensors(inputs, requires_grad=False):
    return [Tensor(np.array(a), requires_grad=requires_grad and a.dtype.kind == "f")
            if isinstance(a, np.ndarray) else a for a in inputs]


def _jvp(op, params, xs, vs):
    """The outputs and their tangents, by the op's tangent rule."""
    level = dual.enter_level()
    try:
        for i, v in vs.items():
            level.set(xs[i], Tensor._make(v) if isinstance(v, np.ndarray) else v)
        outs = _run(op, params, xs)
        tangents = [level.get(o) for o in outs]
    finally:
        dual.exit_level(level)
    return outs, [np.zeros_like(o._data) if t is None else t for o, t in zip(outs, tangents)]


def _shifted(inputs, vs, h):
    return [np.asarray(a + h * vs[i]) if i in vs else a for i, a in enumerate(inputs)]


def _setup(op, inputs):
    positions = _differentiable(op, inputs)
    if not positions:
        pytest.skip(f"{op.name}: no float input to give a tangent")
    rng = np.random.default_rng(7)
    vs = {i: rng.standard_normal(np.shape(inputs[i])) for i in positions}
    return positions, vs


def _data(t):
    return t._data if isinstance(t, Tensor) else np.asarray(t)


@pytest.mark.parametrize("op, inputs, params", CASES)
def test_tangent_matches_finite_differences(op, inputs, params):
    _, vs = _setup(op, inputs)
    _, tangents = _jvp(op, params, _tensors(inputs), vs)
    plus = _run(op, params, _tensors(_shifted(inputs, vs, EPS)))
    minus = _run(op, params, _tensors(_shifted(inputs, vs, -EPS)))
    for t, p, m in zip(tangents, plus, minus):
        np.testing.assert_allclose(_data(t), (p._data - m._data) / (2 * EPS), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op, inputs, params", CASES)
def test_tangent_is_the_transpose_of_the_backward(op, inputs, params):
    positions, vs = _setup(op, inputs)
    _, tangents = _jvp(op, params, _tensors(inputs), vs)
    xs = _tensors(inputs, requires_grad=True)
    outs = _run(op, params, xs)
    rng = np.random.default_rng(11)
    us = [rng.standard_normal(o._data.shape) for o in outs]
    forward = sum(float(np.sum(u * _data(t))) for u, t in zip(us, tangents))
    kept = [(o, Tensor._make(u)) for o, u in zip(outs, us) if o.requires_grad]
    if not kept:
        assert forward == pytest.approx(0.0, abs=1e-9)
        return
    grads = grad([o for o, _ in kept], [xs[i] for i in positions], [u for _, u in kept], allow_unused=True)
    backward = sum(float(np.sum(g._data * vs[i])) for g, i in zip(grads, positions) if g is not None)
    assert forward == pytest.approx(backward, rel=1e-6, abs=1e-9)


def _gradient(op, params, xs, positions, us):
    """grad of <u, f(x)> by the differentiable inputs, with a graph (create_graph)."""
    outs = _run(op, params, xs)
    kept = [(o, Tensor._make(u)) for o, u in zip(outs, us) if o.requires_grad]
    if not kept:
        return [None] * len(positions)
    return list(grad([o for o, _ in kept], [xs[i] for i in positions], [u for _, u in kept],
                     create_graph=True, allow_unused=True))


@pytest.mark.parametrize("op, inputs, params", CASES)
def test_forward_over_reverse(op, inputs, params):
    """The tangent of a gradient (H v), against central differences of the gradient."""
    positions, vs = _setup(op, inputs)
    rng = np.random.default_rng(13)
    us = [rng.standard_normal(o._data.shape) for o in _run(op, params, _tensors(inputs))]
    level = dual.enter_level()
    try:
        xs = _tensors(inputs, requires_grad=True)
        for i in positions:
            level.set(xs[i], Tensor._make(vs[i]))
        grads = _gradient(op, params, xs, positions, us)
        tangents = [None if g is None else level.get(g) for g in grads]
    finally:
        dual.exit_level(level)
    plus = _gradient(op, params, _tensors(_shifted(inputs, vs, EPS), True), positions, us)
    minus = _gradient(op, params, _tensors(_shifted(inputs, vs, -EPS), True), positions, us)
    for t, p, m in zip(tangents, plus, minus):
        if p is None or m is None:
            continue
        expected = (p._data - m._data) / (2 * EPS)
        got = np.zeros_like(expected) if t is None else np.broadcast_to(_data(t), expected.shape)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op, inputs, params", CASES)
def test_reverse_over_forward(op, inputs, params):
    """The gradient of <w, J v> by the inputs, against central differences along another direction."""
    positions, vs = _setup(op, inputs)
    rng = np.random.default_rng(17)
    directions = {i: rng.standard_normal(np.shape(inputs[i])) for i in positions}
    ws = [rng.standard_normal(o._data.shape) for o in _run(op, params, _tensors(inputs))]

    def score(values, requires_grad):
        xs = _tensors(values, requires_grad)
        _, tangents = _jvp(op, params, xs, vs)
        total = None
        for w, t in zip(ws, tangents):
            if isinstance(t, Tensor):
                term = (t * Tensor._make(w)).sum()
                total = term if total is None else total + term
        return xs, total

    xs, s = score(inputs, True)
    if s is None or not s.requires_grad:
        pytest.skip(f"{op.name}: the tangent does not depend on the inputs here")
    grads = grad(s, [xs[i] for i in positions], allow_unused=True)
    analytic = sum(float(np.sum(g._data * directions[i])) for g, i in zip(grads, positions) if g is not None)
    _, sp = score(_shifted(inputs, directions, EPS), False)
    _, sm = score(_shifted(inputs, directions, -EPS), False)
    assert analytic == pytest.approx((sp._data - sm._data) / (2 * EPS), rel=1e-4, abs=1e-5)


def test_every_differentiable_op_has_a_tangent_rule():
    for op in OPS.values():
        if op.differentiable:
            assert op.tangent is not None, op


@pytest.mark.parametrize("op, inputs, params", [c for c in CASES if c.values[0].tangent == "pointwise"][::4])
def test_checker_catches_a_wrong_tangent(op, inputs, params, monkeypatch):
    _, vs = _setup(op, inputs)
    honest = _jvp(op, params, _tensors(inputs), vs)[1]
    if all(np.allclose(_data(t), 0) for t in honest):
        pytest.skip(f"{op.name} has a zero derivative here")
    scaled = tuple(None if r is None else (lambda r: lambda F, t, *a: r(F, t, *a) * 1.1)(r) for r in op.rules)
    monkeypatch.setattr(op, "tangent", scaled)
    monkeypatch.setattr(op, "tangent_plans", op.plans)
    with pytest.raises(AssertionError):
        test_tangent_matches_finite_differences(op, inputs, params)
