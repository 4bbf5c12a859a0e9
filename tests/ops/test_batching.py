"""Every op's batching rule (vmap) against the loop: run per sample and stacked.

Over the op table's own cases (and a few for the ops with no test domain): the
inputs stacked into a batch of 3 (each sample a little different), run once as
batched tensors (ops/batching.py, the op's rule or its loop fallback) and per
sample; values and first-order
gradients must agree. Each case runs with every tensor input batched, and with
only the first batched (the others shared by all samples). A wrong rule is
caught (a mutation test).
"""
import numpy as np
import pytest

from gradcli._tensor import Tensor
from gradcli.autograd.engine import grad
from gradcli.ops import OPS, apply, batching

from op_cases import CASES

B = 3


def _samples(inputs, batched):
    rng = np.random.default_rng(11)
    out = []
    for i, a in enumerate(inputs):
        if i in batched:
            if a.dtype.kind == "f":
                noise = rng.uniform(-1, 1, (B,) + a.shape) * 1e-2
                out.append(np.stack([a + (b > 0) * noise[b] for b in range(B)]))
            else:
                out.append(np.stack([a] * B))
        else:
            out.append(a)
    return out


def _flat(out):
    return list(out) if isinstance(out, tuple) else [out]


def _leaf(a, grads=True):
    return Tensor(np.array(a), requires_grad=grads and a.dtype.kind == "f") if isinstance(a, np.ndarray) else a


def _loop(op, stacked, batched, params, with_grads=True):
    values, grads = [], []
    for b in range(B):
        xs = [_leaf(a[b, ...], with_grads) if i in batched else _leaf(a, with_grads) for i, a in enumerate(stacked)]
        outs = _flat(apply(op, tuple(xs), params))
        values.append([o._data for o in outs])
        grads.append(_grads(outs, xs))
    return values, grads


def _grads(outs, xs):
    floats = [o for o in outs if o.requires_grad]
    leaves = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
    if not floats or not leaves:
        return [None] * len(leaves)
    total = floats[0].sum() if len(floats) == 1 else sum(o.sum() for o in floats)
    return [None if g is None else g._data for g in grad(total, leaves, allow_unused=True)]


def _batched(op, stacked, batched, params, with_grads=True):
    level = batching.enter(B)
    try:
        leaves = [_leaf(a, with_grads) for a in stacked]
        xs = [batching.wrap(t, (level,)) if i in batched else t for i, t in enumerate(leaves)]
        outs = _flat(apply(op, tuple(xs), params))
        physical = [batching.unwrap(o) for o in outs]
    finally:
        batching.exit(level)
    for p, lv in physical:
        assert lv == (level,), f"{op.name}: a result not batched"
    values = [p._data for p, _ in physical]
    floats = [p for p, _ in physical if p.requires_grad]
    grads_in = [x for x in leaves if isinstance(x, Tensor) and x.requires_grad]
    if floats and grads_in:
        total = floats[0].sum() if len(floats) == 1 else sum(o.sum() for o in floats)
        grads = [None if g is None else g._data for g in grad(total, grads_in, allow_unused=True)]
    else:
        grads = [None] * len(grads_in)
    return values, grads


def _check(op, inputs, params, batched, with_grads=True):
    stacked = _samples(inputs, batched)
    loop_values, loop_grads = _loop(op, stacked, batched, params, with_grads)
    values, grads = _batched(op, stacked, batched, params, with_grads)
    for k, v in enumerate(values):
        np.testing.assert_allclose(v, np.stack([lv[k] for lv in loop_values]), rtol=1e-10, atol=1e-12,
                                   err_msg=f"{op.name}: output {k}")
    positions = [i for i, a in enumerate(stacked) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                 and with_grads]
    for j, (i, g) in enumerate(zip(positions, grads)):
        per = [lg[j] for lg in loop_grads]
        if g is None:
            assert all(p is None or not np.any(p) for p in per), f"{op.name}: gradient {i} missing"
            continue
        want = np.stack([np.zeros_like(stacked[i][0] if i in batched else stacked[i]) if p is None else p
                         for p in per])
        if i not in batched:   # a shared input: its gradient is the samples' sum
            want = want.sum(axis=0)
        np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-11, err_msg=f"{op.name}: gradient of input {i}")


def _tensor_positions(inputs):
    return [i for i, a in enumerate(inputs) if isinstance(a, np.ndarray)]


@pytest.mark.parametrize("op, inputs, params", CASES)
def test_batched_op_matches_the_loop(op, inputs, params):
    positions = _tensor_positions(inputs)
    if not positions:
        pytest.skip(f"{op.name}: no tensor input")
    _check(op, inputs, params, set(positions))


@pytest.mark.parametrize("op, inputs, params", CASES)
def test_batched_first_input_only(op, inputs, params):
    positions = _tensor_positions(inputs)
    if len(positions) < 2:
        pytest.skip(f"{op.name}: one tensor input")
    _check(op, inputs, params, {positions[0]})


def test_a_wrong_rule_is_caught():
    """sum_dim's rule without its dims shifted reduces over the batch: the check says so."""
    op = OPS["sum_dim"]
    saved = batching.RULES["sum_dim"]
    batching.RULES["sum_dim"] = lambda op, xs, lvs, levels, params: apply(
        op, tuple(xs), {**params, "keepdim": True})
    try:
        with pytest.raises(AssertionError):
            _check(op, [np.arange(6.0).reshape(2, 3)], {"dim": 1, "keepdim": True}, {0})
    finally:
        batching.RULES["sum_dim"] = saved


def test_the_loop_fallback_gives_the_same_answer():
    """An op with its rule removed runs per sample and stacked."""
    op = OPS["mul"]
    saved = batching.RULES.pop("mul")
    try:
        _check(op, [np.arange(6.0).reshape(2, 3), np.arange(3.0)], {}, {0, 1})
        _check(op, [np.arange(6.0).reshape(2, 3), np.arange(3.0)], {}, {1})
    finally:
        batching.RULES["mul"] = saved


_A = np.array([[1.5, -2.0, 0.5], [3.0, 0.0, -1.0]])
_B = np.array([[1.5, 2.0, -0.5], [-3.0, 0.5, -1.0]])
_NO_DOMAIN = [  # the ops the table gives no test domain (not differentiable)
    *[(name, [_A, _B], {}) for name in ("lt", "le", "gt", "ge", "eq", "ne", "floor_divide")],
    *[(name, [_A, _B[1]], {}) for name in ("lt", "eq", "floor_divide")],
    *[(name, [_A > 0, _B > 0], {}) for name in ("logical_and", "logical_or")],
    ("logical_not", [_A > 0], {}),
    *[(name, [_B], {"other": 2.0}) for name in ("floor_divide_scalar", "rfloor_divide", "rremainder")],
    *[(name, [_A], params) for name in ("argmax", "argmin")
      for params in ({"dim": None, "keepdim": False}, {"dim": 1, "keepdim": False}, {"dim": 0, "keepdim": True})],
]


@pytest.mark.parametrize("name, inputs, params", _NO_DOMAIN, ids=lambda v: v if isinstance(v, str) else "")
def test_ops_without_a_domain(name, inputs, params):
    op = OPS[name]
    _check(op, inputs, params, set(range(len(inputs))), with_grads=False)
    if len(inputs) > 1:
        _check(op, inputs, params, {0}, with_grads=False)
