"""Dtypes as PyTorch has them (issue 12): creation defaults, type promotion, printing,
conversion, the requires-grad refusal, float32 arithmetic and the default dtype.

The expected dtypes and texts are PyTorch 2.13's for the same expressions.
"""
from functools import partial

import numpy as np
import pytest

import gradcli as g
from gradcli import dtypes
from gradcli.errors import AutogradError, ProgramError, ProgramTypeError, ShapeError


@pytest.fixture
def float32_default():
    with dtypes.default_dtype(dtypes.float32):
        yield


def names(t):
    return str(t.dtype)


# -- the dtype objects ------------------------------------------------------------------

@pytest.mark.parametrize("alias, name", [
    ("half", "float16"), ("float", "float32"), ("double", "float64"), ("short", "int16"),
    ("int", "int32"), ("long", "int64"), ("float32", "float32"), ("uint8", "uint8"), ("int8", "int8"),
    ("bool", "bool"),
])
def test_dtype_objects_and_aliases(alias, name):
    d = getattr(g, alias)
    assert d is getattr(g, name) and repr(d) == f"torch.{name}"


def test_unsupported_dtypes_are_named_in_the_error():
    with pytest.raises(ProgramTypeError, match="bfloat16"):
        g.zeros(2, dtype=dtypes.Unsupported("bfloat16"))
    with pytest.raises(ProgramTypeError, match="complex64"):
        g.tensor([1.0]).to(dtypes.Unsupported("complex64"))


def test_finfo_and_iinfo():
    assert g.finfo(g.float32).eps == float(np.finfo(np.float32).eps)
    assert g.finfo(g.float64).tiny == float(np.finfo(np.float64).tiny)
    assert g.iinfo(g.int8).max == 127 and g.iinfo(g.uint8).min == 0
    with pytest.raises(ProgramTypeError):
        g.iinfo(g.float32)


# -- creation defaults ----------------------------------------------------------------------

CREATION = [
    (lambda: g.tensor([1, 2]), "torch.int64"),
    (lambda: g.tensor([1.0, 2.0]), "torch.float32"),
    (lambda: g.tensor(0.5), "torch.float32"),
    (lambda: g.tensor([True, False]), "torch.bool"),
    (lambda: g.tensor([1, 2.5]), "torch.float32"),
    (lambda: g.tensor([True, 2]), "torch.int64"),
    (lambda: g.tensor([1, 2], dtype=g.float64), "torch.float64"),
    (lambda: g.tensor([1.5], dtype=g.int32), "torch.int32"),
    (lambda: g.arange(4), "torch.int64"),
    (lambda: g.arange(0, 1, 0.25), "torch.float32"),
    (lambda: g.arange(4, dtype=g.float64), "torch.float64"),
    (lambda: g.zeros(2), "torch.float32"),
    (lambda: g.ones(2, dtype=g.int16), "torch.int16"),
    (lambda: g.full((2,), 7), "torch.int64"),
    (lambda: g.full((2,), 7.0), "torch.float32"),
    (lambda: g.full((2,), True), "torch.bool"),
    (lambda: g.linspace(0, 1, 3), "torch.float32"),
    (lambda: g.eye(2), "torch.float32"),
    (lambda: g.rand(2), "torch.float32"),
    (lambda: g.randn(2, dtype=g.float64), "torch.float64"),
    (lambda: g.zeros_like(g.tensor([1, 2])), "torch.int64"),
    (lambda: g.ones_like(g.tensor([1, 2]), dtype=g.float16), "torch.float16"),
    (lambda: g.tensor([1, 2], dtype=g.int8).new_zeros(3), "torch.int8"),
    (lambda: g.Tensor([1, 2]), "torch.float32"),
    (lambda: g.FloatTensor([1, 2]), "torch.float32"),
    (lambda: g.LongTensor([1, 2]), "torch.int64"),
]


@pytest.mark.parametrize("make, expected", CREATION)
def test_creation_defaults(float32_default, make, expected):
    assert names(make()) == expected


def test_creation_follows_the_default_dtype():
    # the suite runs with float64 as the default (tests/conftest.py)
    assert names(g.tensor([1.0])) == "torch.float64" and names(g.zeros(1)) == "torch.float64"
    assert names(g.Tensor([1])) == "torch.float64" and names(g.FloatTensor([1])) == "torch.float32"


# -- type promotion ------------------------------------------------------------------------

def t(values, dtype):
    return g.tensor(values, dtype=getattr(g, dtype))


PROMOTION = [
    # (left, right, result dtype): PyTorch's result_type for each pair
    (lambda: t([1, 2], "int64") * 2.5, "torch.float32"),
    (lambda: t([1, 2], "int64") * 2, "torch.int64"),
    (lambda: t([1, 2], "int32") + t(5, "int64"), "torch.int32"),          # 0-d below dimmed
    (lambda: t([1, 2], "int32") + t([5, 6], "int64"), "torch.int64"),
    (lambda: t([1, 2], "float32") + t(1, "float64"), "torch.float32"),
    (lambda: t([1, 2], "float32") + t([1, 1], "float64"), "torch.float64"),
    (lambda: t([1, 2], "float16") * t(2, "float32"), "torch.float16"),
    (lambda: t([1, 2], "int64") + t(1.5, "float64"), "torch.float64"),     # a higher category wins
    (lambda: t([1, 2], "uint8") + t([1, 2], "int8"), "torch.int16"),
    (lambda: t([1, 2], "uint8") + t(5, "int64"), "torch.uint8"),
    (lambda: t([True], "bool") + True, "torch.bool"),
    (lambda: t([True], "bool") + 1, "torch.int64"),
    (lambda: t([True], "bool") * 1.5, "torch.float32"),
    (lambda: t([1, 2], "int64") / t([2, 2], "int64"), "torch.float32"),   # true division
    (lambda: t([1, 2], "int32") / 2, "torch.float32"),
    (lambda: t([1, 2], "int64").sin(), "torch.float32"),
    (lambda: t([1, 2], "int64") < 1.5, "torch.bool"),
    (lambda: t([1, 2], "float64") == t([1, 2], "int64"), "torch.bool"),
    (lambda: t([1, 2], "int64").sum(), "torch.int64"),
    (lambda: t([True, True], "bool").sum(), "torch.int64"),
    (lambda: t([1, 2], "int32").sum(), "torch.int64"),
    (lambda: t([1, 2], "float32").sum(), "torch.float32"),
    (lambda: t([1, 2], "float32").argmax(), "torch.int64"),
    (lambda: t([[1, 2]], "float32").max(1)[1], "torch.int64"),
    (lambda: t([1, 2], "float32").abs(), "torch.float32"),
    (lambda: t([1, 2], "int16").abs(), "torch.int16"),
    (lambda: t([1, 2], "int64") ** 2, "torch.int64"),
    (lambda: t([1, 2], "int64") ** 0.5, "torch.float32"),
    (lambda: 2 ** t([1, 2], "int64"), "torch.int64"),
    (lambda: 1.5 - t([1, 2], "int32"), "torch.float32"),    # a number on the left (rsub)
    (lambda: t([1, 2], "int64").clamp(0.5), "torch.float32"),
    (lambda: t([1, 2], "int64").round(), "torch.int64"),
    (lambda: t([1, 2], "int16").floor(), "torch.int16"),
]


@pytest.mark.parametrize("compute, expected", PROMOTION)
def test_promotion_table(float32_default, compute, expected):
    assert names(compute()) == expected


def test_promotion_under_a_float64_default():
    assert names(t([1, 2], "int64") * 2.5) == "torch.float64"
    assert names(t([1, 2], "float32") * 2.5) == "torch.float32"


def test_result_type_promote_types_can_cast(float32_default):
    assert g.result_type(t([1], "int32"), 2.5) is g.float32
    assert g.result_type(t([1], "int32"), t(2, "int64")) is g.int32
    assert g.promote_types(g.uint8, g.int8) is g.int16
    assert g.promote_types(g.int32, g.float16) is g.float16
    assert not g.can_cast(g.float32, g.int32) and g.can_cast(g.int64, g.float16)
    assert not g.can_cast(g.int8, g.bool) and g.can_cast(g.bool, g.uint8)


def test_mean_of_integers_is_an_error():
    with pytest.raises(ProgramTypeError, match="mean\\(\\): could not infer output dtype.*Got: Long"):
        t([1, 2], "int64").mean()


def test_narrow_integers_wrap():
    assert (t([100], "int8") + 100).tolist() == [-56]
    assert (-3 - t(3, "uint8")).tolist() == 250
    assert names(t([100], "int8") + 1000) == "torch.int8"


def test_inplace_refuses_a_result_it_cannot_hold(float32_default):
    x = t([1, 2], "int64")
    with pytest.raises(ProgramTypeError, match="result type Float can't be cast to the desired output type Long"):
        x.mul_(1.5)
    y = t([1, 2], "float32")
    y += t([1, 1], "int64")
    assert names(y) == "torch.float32" and y.tolist() == [2.0, 3.0]


# -- float32 arithmetic ------------------------------------------------------------------

def test_float32_item_is_the_float32_value(float32_default):
    assert g.tensor(0.1).item() == 0.10000000149011612
    assert g.tensor(0.1, dtype=g.float64).item() == 0.1
    assert isinstance(g.tensor(3).item(), int)


def test_float32_math_is_computed_in_float32(float32_default):
    a = g.tensor([0.1, 0.7])
    b = g.tensor([0.2, 0.3])
    expected = (np.float32([0.1, 0.7]) * np.float32([0.2, 0.3]) + np.float32(1.1)).tolist()
    assert (a * b + 1.1).tolist() == expected
    assert (a / 3).tolist() == (np.float32([0.1, 0.7]) / np.float32(3)).tolist()


# -- printing ------------------------------------------------------------------------------

PRINTING = [
    # (make, text under float32 default, text under float64 default)
    (lambda: g.tensor([1.5, 2], dtype=g.float32), "tensor([1.5000, 2.0000])",
     "tensor([1.5000, 2.0000], dtype=torch.float32)"),
    (lambda: g.tensor([1.5, 2], dtype=g.float64), "tensor([1.5000, 2.0000], dtype=torch.float64)",
     "tensor([1.5000, 2.0000])"),
    (lambda: g.tensor([1.5, 2], dtype=g.float16), "tensor([1.5000, 2.0000], dtype=torch.float16)",
     "tensor([1.5000, 2.0000], dtype=torch.float16)"),
    (lambda: g.tensor([1, 2]), "tensor([1, 2])", "tensor([1, 2])"),
    # the other integer dtypes print theirs under either default
    *[(partial(g.tensor, [1, 2], dtype=getattr(g, name)),) + (f"tensor([1, 2], dtype=torch.{name})",) * 2
      for name in ("int32", "int16", "int8", "uint8")],
    (lambda: g.tensor([True, False]), "tensor([ True, False])", "tensor([ True, False])"),
    (lambda: g.tensor([], dtype=g.int64), "tensor([], dtype=torch.int64)", "tensor([], dtype=torch.int64)"),
    (lambda: g.zeros(0, 2, dtype=g.int32), "tensor([], size=(0, 2), dtype=torch.int32)",
     "tensor([], size=(0, 2), dtype=torch.int32)"),
    (lambda: g.tensor(1.0, dtype=g.float64, requires_grad=True) * 2,
     "tensor(2., dtype=torch.float64, grad_fn=<MulBackward0>)", "tensor(2., grad_fn=<MulBackward0>)"),
]


@pytest.mark.parametrize("make, under32, under64", PRINTING)
def test_printing_with_and_without_the_dtype_suffix(make, under32, under64):
    with dtypes.default_dtype(g.float32):
        assert repr(make()) == under32
    with dtypes.default_dtype(g.float64):
        assert repr(make()) == under64


# -- conversion ----------------------------------------------------------------------------

@pytest.mark.parametrize("method, expected", [
    ("float", "torch.float32"), ("double", "torch.float64"), ("half", "torch.float16"),
    ("long", "torch.int64"), ("int", "torch.int32"), ("short", "torch.int16"), ("bool", "torch.bool"),
    ("byte", "torch.uint8"),
])
def test_conversion_methods(method, expected):
    x = g.tensor([0.0, 1.5])
    y = getattr(x, method)()
    assert names(y) == expected and y.tolist() == np.array([0.0, 1.5]).astype(y._data.dtype).tolist()


def test_conversion_to_the_same_dtype_returns_self_and_otherwise_records_tocopy(float32_default):
    x = g.tensor([1.0, 2.0], requires_grad=True)
    assert x.float() is x and x.to(g.float32) is x and x.type(g.float32) is x
    y = x.double()
    assert y.grad_fn.name() == "ToCopyBackward0" and names(y) == "torch.float64"
    (y * y).sum().backward()
    assert names(x.grad) == "torch.float32" and x.grad.tolist() == [2.0, 4.0]
    assert names(x.to(g.tensor([1]))) == "torch.int64" and not x.long().requires_grad
    assert x.type() == "torch.FloatTensor" and names(x.type("torch.DoubleTensor")) == "torch.float64"


# -- autograd --------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: g.arange(4, requires_grad=True),
    lambda: g.tensor([1, 2]).requires_grad_(),
    lambda: g.tensor([True]).requires_grad_(),
    lambda: g.ones(2, dtype=g.int32, requires_grad=True),
])
def test_only_floating_tensors_can_require_grad(make):
    with pytest.raises(AutogradError, match="Only Tensors of floating point and complex dtype can require "
                                            "gradients"):
        make()


def test_a_gradient_has_its_tensors_dtype(float32_default):
    w = g.tensor([1.0, 2.0], requires_grad=True)
    x = g.tensor([3.0, 4.0], dtype=g.float64)
    (w * x).sum().backward()     # the product is float64
    assert names(w.grad) == "torch.float32" and w.grad.tolist() == [3.0, 4.0]


def test_the_inplace_error_names_the_tensor_type(float32_default):
    a = g.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    c = b * b
    b.add_(1)
    with pytest.raises(AutogradError, match=r"\[torch.FloatTensor \[2\]\]"):
        c.sum().backward()


# -- the default dtype -------------------------------------------------------------------------

def test_set_default_dtype_and_get_default_dtype():
    with dtypes.default_dtype(g.float32):
        assert g.get_default_dtype() is g.float32
        g.set_default_dtype(g.float64)
        assert g.get_default_dtype() is g.float64 and names(g.tensor(1.0)) == "torch.float64"
        assert names(g.tensor([1]) * 0.5) == "torch.float64"
        with pytest.raises(ProgramTypeError):
            g.set_default_dtype(g.int64)
    assert g.get_default_dtype() is g.float64   # the suite's (restored)


def test_mixed_dtype_backward_casts_at_each_edge(float32_default):
    # the float64 product's gradient reaches z (float32) as float32, as PyTorch's engine casts it
    w = g.tensor([1.5, 2.0], requires_grad=True)
    x = g.tensor([0.1, 0.3], dtype=g.float64, requires_grad=True)
    z = w * 3
    z.retain_grad()
    (z * x).sum().backward()
    assert names(z.grad) == "torch.float32" and names(w.grad) == "torch.float32"
    assert names(x.grad) == "torch.float64" and x.grad.tolist() == [4.5, 6.0]
    assert w.grad.tolist() == (np.float32([0.1, 0.3]) * np.float32(3)).tolist()


def test_the_gradient_of_a_float32_max_with_ties_stays_float32():
    """PyTorch 2.13: grad of x.max() over [1., 3., 3.] (float32) is [0., 0.5, 0.5], float32
    (an int64 count of the ties once promoted it to float64)."""
    x = g.tensor(np.array([1.0, 3.0, 3.0], dtype=np.float32), requires_grad=True)
    grad, = g.autograd.grad(x.max(), x)
    assert grad._data.dtype == np.float32
    assert grad.tolist() == [0.0, 0.5, 0.5]


# -- numbers into a dtype: PyTorch's checked conversion ------------------------------------------

# (expression, PyTorch 2.13's values, or the C type its overflow error names)
_FILLS = [
    (lambda: g.full((2,), 70000.0, dtype=g.float16), "c10::Half"),
    (lambda: g.full((0,), 70000.0, dtype=g.float16), "c10::Half"),
    (lambda: g.full((1,), 70000.0, dtype=g.float16), [float("inf")]),   # one half: unchecked
    (lambda: g.full((2,), 65504.1, dtype=g.float16), "c10::Half"),
    (lambda: g.full((2,), 65504.0, dtype=g.float16), [65504.0, 65504.0]),
    (lambda: g.full((1,), float("-inf"), dtype=g.float16), [float("-inf")]),
    (lambda: g.full((1,), 1e300, dtype=g.float32), "float"),
    (lambda: g.full((2,), 3.4e38, dtype=g.float32), [3.3999999521443642e38] * 2),
    (lambda: g.full((2,), 127.5, dtype=g.int8), "int8_t"),
    (lambda: g.full((1,), -1, dtype=g.uint8), [255]),
    (lambda: g.full((1,), -255, dtype=g.uint8), [1]),
    (lambda: g.full((1,), -256, dtype=g.uint8), "uint8_t"),
    (lambda: g.full((1,), -1.0, dtype=g.uint8), "uint8_t"),
    (lambda: g.full((2,), 1e20, dtype=g.int64), "int64_t"),
    (lambda: g.zeros(2, dtype=g.float16).fill_(70000.0), "c10::Half"),
    (lambda: g.zeros(1, dtype=g.float16).fill_(70000.0), [float("inf")]),
    (lambda: g.zeros(2, dtype=g.float16).new_full((2,), 70000.0), "c10::Half"),
    (lambda: g.full_like(g.zeros(2, dtype=g.float16), 70000.0), "c10::Half"),
    (lambda: g.zeros(1, dtype=g.float16).masked_fill(g.tensor([True]), 70000.0), "c10::Half"),
    (lambda: g.zeros(1, dtype=g.float16).clamp(min=-70000.0), "c10::Half"),
    (lambda: g.zeros(1, dtype=g.float32).clamp(max=1e300), "float"),
    (lambda: g.zeros(2, dtype=g.float16).scatter(0, g.tensor([1]), 70000.0), "c10::Half"),
    (lambda: g.zeros(2, dtype=g.float16).scatter(0, g.zeros(0, dtype=g.int64), 70000.0), [0.0, 0.0]),
    (lambda: g.where(g.tensor([True, False]), g.zeros(2, dtype=g.float16), 70000.0), [0.0, float("inf")]),
    (lambda: g.zeros(2, dtype=g.float16) + 70000.0, [float("inf")] * 2),
    (lambda: g.tensor([70000.0], dtype=g.float16), [float("inf")]),
]


@pytest.mark.parametrize("make, expected", _FILLS, ids=range(len(_FILLS)))
def test_a_number_past_the_dtype_is_refused_where_pytorch_refuses_it(make, expected):
    if isinstance(expected, str):
        with pytest.raises(ProgramError, match=f"^value cannot be converted to type {expected} without overflow$"):
            make()
    else:
        assert make().tolist() == expected


def test_a_double_becomes_a_half_through_a_float():
    # float(-4.580078176346397) is the midpoint between two halves (ties to even: -4.578125);
    # the double itself is past it, so numpy's direct conversion gives -4.58203125
    x = -4.580078176346397
    assert np.float16(x) == np.float16(-4.58203125)
    made = [g.tensor([x], dtype=g.float16), g.full((2,), x, dtype=g.float16), g.tensor([x]).double().half(),
            g.zeros(2, dtype=g.float16).fill_(x), g.zeros(2, dtype=g.float16) + x,
            g.zeros(2, dtype=g.float16) + g.tensor(x, dtype=g.float64),
            g.zeros(2, dtype=g.float16).copy_(g.tensor([x, x], dtype=g.float64)),
            g.zeros(3, dtype=g.float16).scatter(0, g.tensor([1]), x)[1:2]]
    for t in made:
        assert set(t.tolist()) == {-4.578125}


def test_a_subtraction_of_bools_is_refused_with_pytorchs_words():
    with pytest.raises(ProgramTypeError, match=r"with two bool tensors is not supported. Use the `\^`"):
        g.tensor([True]) - g.tensor([True])
    with pytest.raises(ProgramTypeError, match="with two bool tensors"):
        g.sub(g.tensor([True]), g.tensor([False]), alpha=2)
    with pytest.raises(ProgramTypeError, match="with a bool tensor is not supported. If you are trying to invert"):
        g.tensor([True]) - 1


def test_an_index_put_of_another_dtype_is_refused_as_pytorch_refuses_it():
    h = g.zeros(3, dtype=g.float16)
    with pytest.raises(ProgramError, match="^Index put requires the source and destination dtypes match, got "
                                           "Half for the destination and Double for the source.$"):
        h[g.tensor([1])] = g.tensor(2.0, dtype=g.float64)
    with pytest.raises(ProgramError, match="got Float for the destination and Long for the source"):
        g.zeros(3, dtype=g.float32)[[0, 1]] = g.tensor([2, 3])
    f = g.zeros(3, dtype=g.float32)
    f[g.tensor([True, False, True])] = g.tensor(2.0, dtype=g.float64)   # one mask, a 0-d value: masked_fill's
    f[1:] = g.tensor([4, 5])                                            # a slice: copy_'s cast
    assert f.tolist() == [2.0, 4.0, 5.0]
    # the value is written as PyTorch casts it: a double into half through a float
    h[0] = -4.580078176346397
    h[g.tensor([True, False, True])] = g.tensor(-4.580078176346397, dtype=g.float64)
    assert h.tolist() == [-4.578125, 0.0, -4.578125]


@pytest.mark.parametrize("name", ["hardswish", "hardsigmoid", "selu", "celu", "mish", "elu", "leaky_relu",
                                  "relu6", "hardtanh", "softsign", "tanhshrink", "logsigmoid", "silu", "gelu",
                                  "softplus", "sigmoid", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_an_activation_keeps_its_inputs_dtype(name, dtype):
    x = g.tensor([-2.5, -0.5, 0.0, 0.5, 4.0], dtype=getattr(g, dtype))
    assert getattr(g, name)(x).dtype is getattr(g, dtype)
    assert g.threshold(x, 0.1, 20.0).dtype is getattr(g, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_dropout_keeps_its_inputs_dtype_and_scales_as_pytorch(dtype):
    d = getattr(g, dtype)
    g.manual_seed(0)
    y = g.dropout(g.ones(200, dtype=d), 0.3)
    assert y.dtype is d
    kept = set(y.tolist()) - {0.0}
    # PyTorch divides its float noise by 1 - p in float: 1.4285714626312256 (float32), 1.4287109375 (half)
    assert kept == ({1.4285714626312256} if dtype == "float32" else {1.4287109375})
    assert g.dropout1d(g.ones(2, 3, 4, dtype=d), 0.3).dtype is d
    assert g.dropout2d(g.ones(2, 3, 4, 4, dtype=d), 0.3).dtype is d


# PyTorch 2.13's refusals of an integer (or bool) input to a floating-only kernel
_FLOAT_ONLY = [
    (lambda x: g.gelu(x), '"GeluKernelImpl" not implemented for \'Long\''),
    (lambda x: g.silu(x), '"silu_cpu" not implemented for \'Long\''),
    (lambda x: g.selu(x), '"elu_cpu" not implemented for \'Long\''),
    (lambda x: g.leaky_relu(x), '"leaky_relu_cpu" not implemented for \'Long\''),
    (lambda x: g.hardswish(x), '"hardswish_cpu" not implemented for \'Long\''),
    (lambda x: g.logsigmoid(x), '"log_sigmoid_cpu" not implemented for \'Long\''),
    (lambda x: g.softplus(x), '"softplus_cpu" not implemented for \'Long\''),
    (lambda x: g.softmax(x, 1), '"softmax_lastdim_kernel_impl" not implemented for \'Long\''),
    (lambda x: g.log_softmax(x, 0), '"log_softmax_kernel_impl" not implemented for \'Long\''),
    (lambda x: x.std(), "std and var only support floating point and complex dtypes"),
    (lambda x: x.var(0), "std and var only support floating point and complex dtypes"),
    (lambda x: x.norm(), "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
    (lambda x: g.gelu(x > 2), '"GeluKernelImpl" not implemented for \'Bool\''),
    (lambda x: g.glu(x), '"glu_cpu" not implemented for \'Long\''),
]


@pytest.mark.parametrize("call, message", _FLOAT_ONLY, ids=range(len(_FLOAT_ONLY)))
def test_an_integer_input_to_a_floating_kernel_is_refused_with_pytorchs_words(call, message):
    x = g.tensor([[1, 2], [3, 4]])
    with pytest.raises(ProgramError) as caught:
        call(x)
    assert str(caught.value) == message
    assert g.threshold(x, 2, 0).dtype is g.int64 and g.hardtanh(x).dtype is g.int64   # these keep ints
    assert g.softmax(x, 1, dtype=g.float32).dtype is g.float32   # converted first


def test_a_tensor_of_more_than_32_dims_broadcasts_as_in_pytorch():
    # numpy's broadcast_shapes stops at 32 dims (an internal error in gradcli, found by the fuzz);
    # arrays, and PyTorch's tensors, go further
    x = g.tensor([1.0, 2.0], requires_grad=True)
    y = x
    for _ in range(40):
        y = y[None]
    z = (y * 2 + g.ones(2)).sum()
    z.backward()
    assert y.dim() == 41 and z.item() == 8.0 and x.grad.tolist() == [2.0, 2.0]
    assert (y + y.transpose(0, 39)).shape == (1,) * 40 + (2,)
    with pytest.raises(ShapeError, match="must match the size of tensor b"):
        y + g.ones(3)
