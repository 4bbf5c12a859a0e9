"""optim.SGD and nn.MSELoss: seed s07, PyTorch's numbers to the last bit, zero_grad, errors."""
from fractions import Fraction

import numpy as np
import pytest

import gradcli as g
from gradcli import nn, optim
from gradcli.errors import ProgramError, ProgramValueError
from gradcli.optim import fma


def test_seed_s07_training():
    # shared/seed-cases/s07_training.py, line for line
    x = g.tensor([2, 4, 6, 8], dtype=g.float32)
    y = g.tensor([4, 8, 12, 16], dtype=g.float32)
    w = g.tensor(0, dtype=g.float32, requires_grad=True)
    optimizer = optim.SGD([w], lr=0.01)
    loss = nn.MSELoss()
    printed = []
    for epoch in range(1, 101):
        l = loss(w * x, y)
        l.backward()
        optimizer.step()
        optimizer.zero_grad()
        if epoch <= 3 or epoch == 100:
            printed.append(f"epoch: {epoch}, w: {w:.3f}, loss: {l:.8f}, w.grad: {w.grad}")
    assert printed == [
        "epoch: 1, w: 1.200, loss: 120.00000000, w.grad: None",
        "epoch: 2, w: 1.680, loss: 19.20000267, w.grad: None",   # PyTorch's float32 values
        "epoch: 3, w: 1.872, loss: 3.07200074, w.grad: None",
        "epoch: 100, w: 2.000, loss: 0.00000000, w.grad: None",
    ]
    assert w.is_leaf and w.requires_grad


def test_mse_loss_module():
    a = g.tensor([1.0, 2.0], requires_grad=True)
    t = g.tensor([0.0, 4.0])
    out = nn.MSELoss()(a, t)
    assert out.item() == 2.5
    assert out.grad_fn.name() == "MseLossBackward0"
    assert nn.MSELoss(reduction="sum")(a, t).item() == 5.0
    assert nn.MSELoss(reduction="none")(a, t).tolist() == [1.0, 4.0]
    with pytest.raises(ProgramValueError, match="avg is not a valid value for reduction"):
        nn.MSELoss(reduction="avg")


def _run(steps=3, **options):
    w = g.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1, **options)
    for _ in range(steps):
        loss = ((w * g.tensor([3.0, 0.5]) - 1.0) ** 2).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
    return w.tolist()


# What PyTorch 2 (float64) prints for the same three steps: its `add_(alpha=)` is a
# fused multiply-add, so these differ from the plain `p - lr * g` in the last bits.
@pytest.mark.parametrize("options, expected", [
    ({}, [-0.008000000000000071, -1.4295]),
    ({"momentum": 0.9}, [0.748, -0.9254999999999999]),
    ({"momentum": 0.9, "dampening": 0.5}, [-0.31999999999999995, -1.189375]),
    ({"momentum": 0.9, "nesterov": True, "weight_decay": 0.01}, [-5.303510062059002, -0.5137784836819999]),
    ({"weight_decay": 0.1, "maximize": True}, [14.773179, -2.561888]),
])
def test_sgd_matches_pytorch_to_the_last_bit(options, expected):
    assert _run(**options) == expected


def test_step_updates_in_place_and_bumps_the_version():
    w = g.tensor([1.0, 2.0], requires_grad=True)
    alias = w.data
    opt = optim.SGD([w], lr=0.5)
    (w * w).sum().backward()
    opt.step()
    assert w.tolist() == [0.0, 0.0]
    assert alias.tolist() == [0.0, 0.0]
    assert w._version == 1
    assert w.grad_fn is None and w.requires_grad


def test_parameters_without_a_gradient_are_left_alone():
    a = g.tensor([1.0], requires_grad=True)
    b = g.tensor([1.0], requires_grad=True)
    opt = optim.SGD([a, b], lr=1.0, momentum=0.5)
    (a * 2.0).sum().backward()
    opt.step()
    assert a.tolist() == [-1.0] and b.tolist() == [1.0]
    assert b._version == 0


def test_zero_grad():
    w = g.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad()
    assert w.grad is None
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0, 0.0]
    (w * 3.0).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]


def test_param_groups():
    a = g.tensor([1.0], requires_grad=True)
    b = g.tensor([1.0], requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    assert [group["lr"] for group in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[0]["momentum"] == 0.0 and opt.param_groups[0]["params"] == [a]
    (a + b).sum().backward()
    opt.step()
    assert a.tolist() == [0.9] and b.tolist() == [0.5]
    opt.param_groups[1]["lr"] = 0.25     # changed between steps, as schedulers do
    b.grad = g.tensor([1.0])
    opt.step()
    assert b.tolist() == [0.25]


@pytest.mark.parametrize("make, message", [
    (lambda w: optim.SGD([], lr=0.1), "optimizer got an empty parameter list"),
    (lambda w: optim.SGD([w], lr=-1.0), "Invalid learning rate: -1.0"),
    (lambda w: optim.SGD([w], lr=0.1, momentum=-0.5), "Invalid momentum value: -0.5"),
    (lambda w: optim.SGD([w], lr=0.1, weight_decay=-1), "Invalid weight_decay value: -1.0"),
    (lambda w: optim.SGD([w], lr=0.1, nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
    (lambda w: optim.SGD([w * 2.0], lr=0.1), "can't optimize a non-leaf Tensor"),
    (lambda w: optim.SGD([w, w], lr=0.1), "some parameters appear in more than one parameter group"),
])
def test_sgd_argument_errors(make, message):
    w = g.tensor([1.0], requires_grad=True)
    with pytest.raises(ProgramError) as info:
        make(w)
    assert str(info.value) == message


def test_fma_is_correctly_rounded():
    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal((3, 2000))
    c = c * rng.choice([1.0, 1e-9, 1e9], 2000)
    cases = [(a, b, c), (a, b, -(a * b))]          # the second: catastrophic cancellation
    for x, y, z in cases:
        got = fma(x, y, z)
        exact = [float(Fraction(p) * Fraction(q) + Fraction(r)) for p, q, r in zip(x, y, z)]
        assert got.tolist() == exact
    assert fma(0.1, 3.0, -0.30000000000000004).item() == float(
        Fraction(0.1) * 3 - Fraction(0.30000000000000004))
    assert np.isnan(fma(np.inf, 0.0, 1.0)) and fma(np.inf, 1.0, 1.0) == np.inf
