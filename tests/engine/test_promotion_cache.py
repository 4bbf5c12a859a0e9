"""The engine's promotion caches (`registry.apply`): a cached promotion must give what an
uncached one gives, across dtypes, operand kinds and changes of the default dtype.

`Op.float_dtype`/`float_hit` remember the last promotion of a floating array with a
Python number or an array of its own dtype; each case below runs an op twice or more in
an order that would expose a stale entry.
"""
import numpy as np
import pytest

import gradcli as g
from gradcli import dtypes
from gradcli.ops.registry import OPS


@pytest.mark.parametrize("first, second", [
    ("float32", "float64"), ("float64", "float32"), ("float16", "float32"), ("float32", "float16"),
])
def test_the_remembered_float_promotion_follows_the_input_dtype(first, second):
    for name in (first, second, first):
        x = g.tensor([0.1, 0.7], dtype=getattr(g, name), requires_grad=True)
        for result in (x * 0.1, x + x, g.sin(x), x < 0.5, x * 3):
            want = "bool" if result is not None and str(result.dtype) == "torch.bool" else name
            assert str(result.dtype) == f"torch.{want}"
        (x * 0.1).sum().backward()
        assert str(x.grad.dtype) == f"torch.{name}"


def uncached(fn):
    """`fn()` with every promotion cache emptied first."""
    dtypes._CACHE.clear()
    for op in OPS.values():
        op.float_dtype = op.float_hit = None
    return fn()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_a_remembered_promotion_prepares_its_inputs_as_an_uncached_one(dtype):
    # float16 ops are computed in float32 (`dtypes.half_opmath`): the remembered promotion
    # must compute as an uncached one does
    x = g.tensor([0.3, 1.7, -2.5], dtype=getattr(g, dtype))
    y = g.tensor([0.1, 0.2, 0.3], dtype=getattr(g, dtype))
    for fn in (lambda: x * 0.1, lambda: x / y, lambda: g.sigmoid(x), lambda: 0.7 - x, lambda: g.atan2(x, y),
               lambda: x ** 2.5, lambda: g.pow(x, y)):
        expected = uncached(fn)._data
        for _ in range(3):   # the first call fills the remembered promotion, the others use it
            assert np.array_equal(fn()._data, expected, equal_nan=True) and fn()._data.dtype == expected.dtype


def test_integer_promotions_follow_the_default_dtype_after_floats_were_cached():
    i = g.tensor([1, 2, 3])
    f = g.tensor([1.0, 2.0], dtype=g.float64)
    with dtypes.default_dtype(dtypes.float32):
        assert str((f * 2.5).dtype) == "torch.float64"
        assert str((i * 2.5).dtype) == "torch.float32"
        assert str(g.sin(i).dtype) == "torch.float32"
    with dtypes.default_dtype(dtypes.float64):
        assert str((f * 2.5).dtype) == "torch.float64"
        assert str((i * 2.5).dtype) == "torch.float64"
        assert str(g.sin(i).dtype) == "torch.float64"


def test_a_mixed_float_pair_is_not_taken_for_the_remembered_one():
    a = g.tensor([1.0, 2.0], dtype=g.float32, requires_grad=True)
    b = g.tensor([1.0, 2.0], dtype=g.float64, requires_grad=True)
    (a * 2.0).sum()                      # remembers float32 for mul
    out = a * b                          # float32 array with a float64 array: float64
    assert str(out.dtype) == "torch.float64"
    out.sum().backward()
    assert str(a.grad.dtype) == "torch.float32" and str(b.grad.dtype) == "torch.float64"
    assert OPS["mul"].float_dtype is not None


def assert_slots_alike(t, made):
    """Every slot of the tensor `made` by Tensor._make is set in `t`, to the same value."""
    for slot in type(made).__slots__:
        if slot == "__weakref__":
            continue
        assert hasattr(t, slot) == hasattr(made, slot), slot
        if hasattr(made, slot):
            assert getattr(t, slot) is getattr(made, slot) or getattr(t, slot) == getattr(made, slot), slot


def test_a_recorded_result_is_made_as_tensor_make_makes_it():
    # `registry.apply` builds a recorded result inline (the hot path): every slot Tensor._make
    # sets must be set to the same value there
    from gradcli._tensor import Tensor

    x = g.tensor([1.0, 2.0], requires_grad=True)
    out = x * 2.0
    assert_slots_alike(out, Tensor._make(out._data, out.grad_fn, True, 0, out._counter))


def test_a_new_tensor_is_made_as_tensor_make_makes_it():
    # Tensor.__init__ sets its fields from _tensor._FRESH, _make by hand: the same slots, alike
    from gradcli._tensor import Tensor

    for requires_grad in (False, True):
        new = Tensor([1.0, 2.0], requires_grad=requires_grad)
        assert_slots_alike(new, Tensor._make(new._data, None, requires_grad))


@pytest.mark.parametrize("order", [("float64", "float32", "float64"), ("float32", "float64", "float32")])
def test_a_widened_function_computes_float32_in_float64_whichever_dtype_was_remembered(order):
    # sin's forward computes float32 in float64 and rounds once (ops/torch_math.py); for a
    # remembered float64 promotion `apply` calls np.sin itself (`torch_math.forward_for`)
    values = np.linspace(-3, 3, 101)
    for name in order:
        x = g.tensor(values, dtype=getattr(g, name), requires_grad=True)
        for _ in range(2):   # the first call remembers the promotion, the second uses it
            out = g.sin(x)._data
            want = np.sin(values) if name == "float64" else np.sin(x._data.astype(np.float64)).astype(np.float32)
            assert out.dtype == want.dtype and np.array_equal(out, want)
        assert OPS["sin"].float_hit[-1] is (np.sin if name == "float64" else OPS["sin"].forward)
