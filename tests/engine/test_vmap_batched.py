"""vmap on batched tensors (ops/batching.py) composed with the transforms, against loops.

Each answer is compared with the same computation per sample (gradcli's own
transforms, run one sample at a time), the loop vmap's batching rules must
equal; PyTorch's printed outputs for these programs are compared in
test_forward_mode_samples.py.
"""
import numpy as np
import pytest

import gradcli
from gradcli.autograd import func, func_forward
from gradcli.autograd.vmap import vmap
from gradcli.errors import AutogradError, ShapeError
from gradcli.ops import NN_FUNCTIONS as F
from gradcli.ops import batching

RNG = np.random.default_rng(3)
X = gradcli.tensor(RNG.standard_normal((4, 3)))
Y = gradcli.tensor(RNG.standard_normal((5, 3)))


def _h(a):
    return a.sin() * a.sum()


def test_nested_vmaps_and_in_dims():
    out = vmap(vmap(lambda a, b: (a * b).sum(), (None, 0)), (0, None))(X, Y)
    np.testing.assert_allclose(out._data, X._data @ Y._data.T, rtol=1e-12)
    assert not batching.LEVELS and not batching.ON[0]


def test_out_dims_moves_the_batch_dim():
    np.testing.assert_allclose(vmap(lambda a: a.sin(), 1, 1)(X)._data, np.sin(X._data))
    np.testing.assert_allclose(vmap(lambda a: a.sum(0), 1, 0)(X)._data, X._data.sum(0))


@pytest.mark.parametrize("transform", [func.jacrev, func_forward.jacfwd])
def test_jacobians_inside_vmap(transform):
    want = np.stack([func.jacrev(_h)(X[i])._data for i in range(4)])
    np.testing.assert_allclose(vmap(transform(_h))(X)._data, want, rtol=1e-12)


def test_hessian_inside_vmap():
    out = vmap(func_forward.hessian(lambda a: (a ** 3).sum()))(X)
    np.testing.assert_allclose(out._data, np.stack([np.diag(6 * X._data[i]) for i in range(4)]), rtol=1e-12)


def test_hessian_is_the_loop_of_jvps():
    def rosen(x):
        return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()

    x = gradcli.tensor(RNG.uniform(-1, 1, 12))
    from gradcli.autograd import functional

    np.testing.assert_allclose(func_forward.hessian(rosen)(x)._data, functional.hessian(rosen, x)._data,
                               rtol=1e-10, atol=1e-10)


def test_grad_through_vmap():
    x = gradcli.tensor(X._data, requires_grad=True)
    vmap(_h)(x).sum().backward()
    want = np.stack([func.grad(lambda a: _h(a).sum())(X[i])._data for i in range(4)])
    np.testing.assert_allclose(x.grad._data, want, rtol=1e-12)


def test_per_sample_gradients_with_batched_targets():
    w = gradcli.tensor(RNG.standard_normal((3, 3)))
    targets = gradcli.tensor(np.array([0, 2, 1, 2]))

    def loss(w, x, t):
        return F["cross_entropy"](F["linear"](x.unsqueeze(0), w), t.unsqueeze(0))

    out = vmap(func.grad(loss), in_dims=(None, 0, 0))(w, X, targets)
    want = np.stack([func.grad(loss)(w, X[i], targets[i])._data for i in range(4)])
    np.testing.assert_allclose(out._data, want, rtol=1e-12)


def test_max_with_dim_runs_per_sample():
    out = vmap(lambda a: a.max(0)[0])(X.reshape(2, 2, 3))
    np.testing.assert_allclose(out._data, X._data.reshape(2, 2, 3).max(1))


def test_in_place_on_a_batched_tensor():
    np.testing.assert_allclose(vmap(lambda a: a.clone().mul_(2))(X)._data, 2 * X._data)


W = gradcli.tensor([1.0, 2.0, 3.0], requires_grad=True)


@pytest.mark.parametrize("fn, error", [
    (lambda a: a.sum().item(), "calling .item()"),
    (lambda a: a if a.sum() > 0 else -a, "data-dependent control flow"),
    # PyTorch's text, for a tensor whether batched or not (W does not depend on the batch)
    (lambda a: (W * a).sum().backward(), r"backward\(\) called inside a functorch transform"),
    (lambda a: (W * 2).sum().backward(), r"backward\(\) called inside a functorch transform"),
])
def test_refusals(fn, error):
    W.grad = None
    with pytest.raises(AutogradError, match=error):
        vmap(fn)(X)
    assert not batching.ON[0] and W.grad is None


def test_in_place_into_an_unbatched_tensor_is_refused():
    z = gradcli.zeros(3)
    with pytest.raises(ShapeError, match="doesn't match the broadcast shape"):
        vmap(lambda a: z.add_(a))(X)


def test_randomness_error_and_same():
    with pytest.raises(AutogradError, match="randomness"):
        vmap(lambda a: a + gradcli.rand(3))(X)
    out = vmap(lambda a: a * 0 + gradcli.rand(3), randomness="same")(X)
    np.testing.assert_allclose(out._data, np.broadcast_to(out._data[0], out._data.shape))


def test_vjp_inside_vmap():
    def f(a):
        _, fn = func.vjp(lambda x: x.sin() * 2, a)
        return fn(gradcli.ones(3, dtype=gradcli.float64))[0]

    np.testing.assert_allclose(vmap(f)(X)._data, 2 * np.cos(X._data), rtol=1e-12)


def test_forward_ad_inside_vmap():
    from gradcli.autograd import forward_ad as fw

    def f(a):
        with fw.dual_level():
            d = fw.make_dual(a, gradcli.ones(3, dtype=gradcli.float64))
            return fw.unpack_dual(d.sin()).tangent

    np.testing.assert_allclose(vmap(f)(X)._data, np.cos(X._data), rtol=1e-12)


def test_indexed_assignment_inside_vmap_and_its_gradient():
    def f(a):
        b = a.clone()
        b[1] = 0.0
        b[0] = a[2] * 2
        return b

    x = gradcli.tensor(X._data, requires_grad=True)
    out = vmap(f)(x)
    want = X._data.copy()
    want[:, 1] = 0.0
    want[:, 0] = 2 * X._data[:, 2]
    np.testing.assert_allclose(out._data, want)
    out.sum().backward()
    np.testing.assert_allclose(x.grad._data, np.tile([0.0, 0.0, 3.0], (4, 1)))


def test_indexed_assignment_of_a_batched_value_into_an_unbatched_tensor_is_refused():
    def f(a):
        b = gradcli.zeros(2, 3, dtype=gradcli.float64)
        b[0] = a
        return b

    with pytest.raises(AutogradError, match=r"vmap: inplace arithmetic\(self, \*extra_args\) is not possible"):
        vmap(f)(X)   # PyTorch's copy_ rule's text (tests/engine/forward_mode/vmap_setitem.out)


def test_gradcli_ops_says_how_vmap_runs_each_op():
    from gradcli.answers.optable import op_detail
    from gradcli.ops import OPS

    assert op_detail("mul")["vmap"].startswith("elementwise")
    assert op_detail("sum_dim")["vmap"] == "its dims shifted past the batch dims"
    assert op_detail("trace")["vmap"].startswith("per sample")
    assert all(op_detail(name)["vmap"] for name in OPS)
