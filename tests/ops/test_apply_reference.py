"""The fast `apply` (ops/apply.py) against its plain reference (ops/reference.py), on every
op's domain, in float64 and float32 and with inputs that do not require grad: the same
values, dtypes, node names, saved values and gradients."""
import numpy as np
import pytest

import gradcli
from gradcli._tensor import Tensor
from gradcli.ops import OPS
from gradcli.ops.apply import apply
from gradcli.ops.reference import reference_apply


def _cases():
    for op in OPS.values():
        if op.domain is None:
            continue
        rng = np.random.default_rng(sum(map(ord, op.name)))
        for k, (inputs, params) in enumerate(op.domain(rng)):
            # every input requiring grad in float64; the first only in float32 (promotion
            # and an input left out of the graph); none in float64 (no node)
            for dtype, grad in ((np.float64, "all"), (np.float32, "first"), (np.float64, "none")):
                yield pytest.param(op, inputs, params, dtype, grad, id=f"{op.name}-{k}-{np.dtype(dtype)}-{grad}")


def _tensors(inputs, dtype, grad):
    out = []
    for k, a in enumerate(inputs):
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            wants = grad == "all" or grad == "first" and k == 0
            out.append(Tensor(np.array(a, dtype=dtype), requires_grad=wants))
        elif isinstance(a, np.ndarray):
            out.append(Tensor(np.array(a)))
        else:
            out.append(a)
    return tuple(out)


def _summary(out):
    outs = out if isinstance(out, tuple) else (out,)
    return [(o._data.dtype, o._data.shape, o.requires_grad,
             o.grad_fn.name() if o.grad_fn is not None else None,
             [name for name, _ in o.grad_fn.saved_tensors_info()]
             if hasattr(o.grad_fn, "saved_tensors_info") else None) for o in outs]


def _gradients(out, tensors):
    outs = [o for o in (out if isinstance(out, tuple) else (out,)) if o.requires_grad]
    wrt = [t for t in tensors if isinstance(t, Tensor) and t.requires_grad]
    if not outs or not wrt:
        return []
    total = sum((o * gradcli.ones_like(o)).sum() for o in outs)
    return [None if g is None else g._data
            for g in gradcli.autograd.grad(total, wrt, allow_unused=True)]


@pytest.mark.parametrize("op, inputs, params, dtype, grad", list(_cases()))
def test_reference_apply_gives_what_apply_gives(op, inputs, params, dtype, grad):
    fast_inputs = _tensors(inputs, dtype, grad)
    slow_inputs = _tensors(inputs, dtype, grad)
    try:
        fast = apply(op, fast_inputs, dict(params))
    except Exception as error:   # the same refusal (an op's domain error, a dtype it rejects)
        with pytest.raises(type(error)):
            reference_apply(op, slow_inputs, dict(params))
        return
    slow = reference_apply(op, slow_inputs, dict(params))
    assert _summary(fast) == _summary(slow)
    for f, s in zip(fast if isinstance(fast, tuple) else (fast,), slow if isinstance(slow, tuple) else (slow,)):
        np.testing.assert_array_equal(f._data, s._data)
    for f, s in zip(_gradients(fast, fast_inputs), _gradients(slow, slow_inputs)):
        if f is None or s is None:
            assert f is s
        else:
            assert f.dtype == s.dtype
            np.testing.assert_array_equal(f, s)


def test_the_comparison_can_fail():
    """A reference that forgot to promote would be caught: float32 * float64 is float64."""
    a = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    b = Tensor(np.ones(3), requires_grad=True)
    assert _summary(apply(OPS["mul"], (a, b))) != _summary(apply(OPS["mul"], (a, a)))
