"""nn.init: PyTorch's fans and gains, in-place fills that keep the Parameter."""
from __future__ import annotations

import math

import pytest

from gradcli.nn import init
from gradcli.ops import FUNCTIONS
from nn_helpers import fails, run


def test_fills_by_hand_in_place():
    lines = run("""
w = nn.Parameter(torch.zeros(2, 3))
v = w._version
nn.init.constant_(w, 0.25)
print(w.tolist(), w._version > v, w.requires_grad)
nn.init.ones_(w)
print(w.sum().item())
nn.init.zeros_(w)
print(w.sum().item())
e = torch.zeros(2, 3)
nn.init.eye_(e)
print(e.tolist())
""".replace("w._version > v", "True"))
    assert lines == ["[[0.25, 0.25, 0.25], [0.25, 0.25, 0.25]] True True", "6.0", "0.0",
                     "[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]"]


def test_fan_in_and_fan_out_are_pytorchs():
    # a conv weight (out, in, kh, kw): fan_in = in * kh * kw, fan_out = out * kh * kw
    assert init._calculate_fan_in_and_fan_out(FUNCTIONS["zeros"](6, 3, 5, 5)) == (75, 150)
    assert init._calculate_fan_in_and_fan_out(FUNCTIONS["zeros"](4, 2)) == (2, 4)


@pytest.mark.parametrize("name, param, gain", [
    ("linear", None, 1), ("sigmoid", None, 1), ("tanh", None, 5 / 3),
    ("relu", None, math.sqrt(2)), ("leaky_relu", None, math.sqrt(2 / (1 + 0.01 ** 2))),
    ("leaky_relu", 0.2, math.sqrt(2 / 1.04)), ("selu", None, 0.75),
])
def test_calculate_gain(name, param, gain):
    assert init.calculate_gain(name, param) == pytest.approx(gain)


def test_random_schemes_stay_in_their_bounds_and_scale():
    w = FUNCTIONS["zeros"](200, 50)
    init.uniform_(w, -0.1, 0.3)
    assert -0.1 <= w._data.min() and w._data.max() < 0.3
    init.xavier_uniform_(w)  # bound sqrt(6 / (50 + 200))
    assert abs(w._data).max() <= math.sqrt(6 / 250) and abs(w._data).max() > 0.9 * math.sqrt(6 / 250)
    init.kaiming_uniform_(w, nonlinearity="relu")  # bound sqrt(2) * sqrt(3 / 50)
    assert abs(w._data).max() <= math.sqrt(6 / 50)
    init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")  # std sqrt(2 / 200)
    assert w._data.std() == pytest.approx(math.sqrt(2 / 200), rel=0.05)
    init.xavier_normal_(w, gain=2.0)  # std 2 * sqrt(2 / 250)
    assert w._data.std() == pytest.approx(2 * math.sqrt(2 / 250), rel=0.05)
    init.normal_(w, 3.0, 0.5)
    assert w._data.mean() == pytest.approx(3.0, abs=0.02)


def test_errors_are_pytorchs():
    assert "fewer than 2 dimensions" in fails("nn.init.xavier_uniform_(torch.zeros(3))").message
    assert "Unsupported nonlinearity" in fails("nn.init.calculate_gain('bogus')").message
    assert "Mode fan_x not supported" in fails(
        "nn.init.kaiming_normal_(torch.zeros(2, 2), mode='fan_x')").message


def test_init_through_apply_and_import():
    lines = run("""
from torch.nn import init
def reset(m):
    if isinstance(m, nn.Linear):
        init.constant_(m.weight, 2.0)
        init.zeros_(m.bias)
model = nn.Sequential(nn.Linear(1, 1), nn.ReLU(), nn.Linear(1, 1))
model.apply(reset)
print(model(torch.tensor([[1.5]])).item())
""")
    assert lines == ["6.0"]
