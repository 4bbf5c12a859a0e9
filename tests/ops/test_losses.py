"""The loss functions and modules: hand-derived values and gradients, node names, options, errors."""
import math
import warnings

import numpy as np
import pytest

from gradcli import nn
from gradcli.errors import ProgramValueError
from gradcli.ops import NN_FUNCTIONS as F
from gradcli._tensor import Tensor

LOG2 = math.log(2.0)


def T(v, requires_grad=False):
    return Tensor(np.array(v, dtype=float), requires_grad=requires_grad)


def test_l1_loss_is_composed_as_pytorchs():
    x = T([1.0, -2.0], True)
    loss = nn.L1Loss()(x, T([0.0, 0.0]))
    assert loss.grad_fn.name() == "MeanBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "AbsBackward0"
    assert loss.item() == 1.5
    loss.backward()
    assert x.grad._data.tolist() == [0.5, -0.5]
    assert nn.L1Loss(reduction="sum")(x, T([0.0, 0.0])).item() == 3.0


def test_smooth_l1_and_huber():
    x = T([0.5, 3.0], True)
    loss = nn.SmoothL1Loss()(x, T([0.0, 0.0]))
    assert loss.grad_fn.name() == "SmoothL1LossBackward0"
    assert loss.item() == pytest.approx((0.125 + 2.5) / 2)     # 0.5 d^2 below beta=1, d - 0.5 above
    loss.backward()
    assert x.grad._data.tolist() == [0.25, 0.5]
    y = T([1.0, 3.0], True)
    huber = nn.HuberLoss(reduction="sum", delta=2.0)(y, T([0.0, 0.0]))
    assert huber.grad_fn.name() == "HuberLossBackward0"
    assert huber.item() == 0.5 + 2.0 * (3.0 - 1.0)
    huber.backward()
    assert y.grad._data.tolist() == [1.0, 2.0]
    with pytest.raises(ProgramValueError, match="does not support negative values for beta"):
        F["smooth_l1_loss"](x, x, beta=-1.0)
    with pytest.raises(ProgramValueError, match="non-positive values for delta"):
        F["huber_loss"](x, x, delta=0.0)


def test_bce_with_logits_and_pos_weight():
    x = T([0.0], True)
    loss = nn.BCEWithLogitsLoss()(x, T([1.0]))
    assert loss.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"
    assert loss.item() == pytest.approx(LOG2)     # -log(sigmoid(0))
    loss.backward()
    assert x.grad._data.tolist() == [-0.5]        # sigmoid(0) - 1
    x.grad = None
    weighted = nn.BCEWithLogitsLoss(pos_weight=T([3.0]))(x, T([1.0]))
    assert weighted.item() == pytest.approx(3 * LOG2)
    weighted.backward()
    assert x.grad._data.tolist() == [-1.5]        # (3 + 1 - 1) * 0.5 - 3
    with pytest.raises(ProgramValueError, match=r"Target size \(torch.Size\(\[2\]\)\) must be the same"):
        F["binary_cross_entropy_with_logits"](x, T([1.0, 0.0]))


def test_kl_div_batchmean_and_log_target():
    x = T([[math.log(0.25), math.log(0.75)]], True)
    loss = nn.KLDivLoss(reduction="batchmean")(x, T([[0.5, 0.5]]))
    assert loss.grad_fn.name() == "DivBackward0"
    assert loss.item() == pytest.approx(0.5 * math.log(2.0) + 0.5 * math.log(2.0 / 3.0))
    loss.backward()
    assert x.grad._data.tolist() == [[-0.5, -0.5]]
    logt = nn.KLDivLoss(reduction="sum", log_target=True)(x, T([[math.log(0.5), math.log(0.5)]]))
    assert logt.item() == pytest.approx(0.5 * math.log(2.0) + 0.5 * math.log(2.0 / 3.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.KLDivLoss()(x, T([[0.5, 0.5]]))
    assert "batchmean" in str(caught[0].message)


def test_cross_entropy_and_nll_modules_pass_their_options():
    logits = T([[0.0, 0.0]], True)
    assert nn.CrossEntropyLoss()(logits, T([1.0])).item() == pytest.approx(LOG2)
    weighted = nn.CrossEntropyLoss(weight=T([1.0, 3.0]), reduction="sum")(logits, T([1.0]))
    assert weighted.item() == pytest.approx(3 * LOG2)
    # equal logits: smoothing changes nothing
    assert nn.CrossEntropyLoss(label_smoothing=0.3)(logits, T([0.0])).item() == pytest.approx(LOG2)
    assert nn.CrossEntropyLoss()(logits, T([[0.25, 0.75]])).item() == pytest.approx(LOG2)
    with pytest.raises(ProgramValueError, match="Target 5 is out of bounds."):
        nn.CrossEntropyLoss()(logits, T([5.0]))
    nll = nn.NLLLoss(ignore_index=0)(T([[-1.0, -2.0], [-3.0, -4.0]]), T([0.0, 1.0]))
    assert nll.grad_fn is None and nll.item() == 4.0      # only the second row counts
    assert nn.BCELoss()(T([0.5]), T([1.0])).item() == pytest.approx(LOG2)
    with pytest.raises(ProgramValueError, match="bad is not a valid value for reduction"):
        nn.HuberLoss(reduction="bad")
    assert repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"


def test_a_mean_over_only_ignored_targets_is_nan_with_a_zero_gradient():
    logits = T([[0.5, -1.0], [2.0, 0.0]], True)
    for smoothing in (0.0, 0.2):
        logits.grad = None
        loss = nn.CrossEntropyLoss(ignore_index=1, label_smoothing=smoothing)(logits, T([1.0, 1.0]))
        assert math.isnan(loss.item())
        loss.backward()
        assert logits.grad._data.tolist() == [[0.0, 0.0], [0.0, 0.0]]
