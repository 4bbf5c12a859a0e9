"""The losses beyond nn.py's: F.l1_loss, smooth_l1_loss, huber_loss,
binary_cross_entropy_with_logits and kl_div.

smooth_l1_loss, huber_loss and binary_cross_entropy_with_logits are ops with
PyTorch's node names; l1_loss and kl_div are composed as PyTorch composes them
(abs(input - target).mean(); xlogy(target, target) - target * input, or
exp(target) * (target - input) for log targets), so their graphs are PyTorch's.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..errors import ProgramValueError
from .._tensor import Tensor
from .domains import vectorize
from .nn import (_bce_scale, _broadcast_tensors, _check_reduction, _numel, _numpy, _reduce, _reduce_object,
                 _size_str, loss_op)
from .apply import apply
from .registry import TENSORS, export
from .shapes import broadcast


def _shape(x):
    return tuple(np.shape(x._data if isinstance(x, Tensor) else x))


def _scale(out, reduction, self):
    return out / float(max(_numel(self), 1)) if reduction == "mean" else out


def _pair_cases(**params):
    def make(rng):
        u = lambda *s: rng.uniform(-2, 2, s)  # noqa: E731
        out = []
        for reduction in ("mean", "sum", "none"):
            a, b = u(2, 3), u(2, 3)
            # keep |a - b| away from the kink
            d = a - b
            a = np.where(np.abs(np.abs(d) - 1.0) < 0.1, a + 0.3 * np.sign(d), a)
            out.append(((a, b), {**params, "reduction": reduction}))
        return out
    return make


def _as_target(input, target):
    if not isinstance(target, Tensor):
        target = Tensor(target)
    si, st = _shape(input), _shape(target)
    if si != st:
        warnings.warn(f"Using a target size ({_size_str(st)}) that is different to the input size "
                      f"({_size_str(si)}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)
    return _broadcast_tensors(input, target)


# -- smooth_l1_loss, huber_loss ---------------------------------------------------------------


def _smooth_l1(self, target, beta=1.0, reduction="mean"):
    d = np.subtract(self, target)
    a = np.abs(d)
    return _reduce(np.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta), reduction)


def _smooth_l1_grad(F, g, self, target, beta, reduction):
    d = self - target
    return _scale(g * F.where(F.abs(d) < beta, d / beta, F.sign(d)), reduction, d)


def _smooth_l1_target_grad(F, g, self, target, beta, reduction):
    return -_smooth_l1_grad(F, g, self, target, beta, reduction)


def _smooth_l1_sympy(sp, x, t, beta=1.0, reduction="mean"):
    b = sp.Float(beta)
    loss = vectorize(lambda e: sp.Piecewise((e * e / (2 * b), sp.Abs(e) < b), (sp.Abs(e) - b / 2, True)))(x - t)
    return _reduce_object(loss, reduction)


smooth_l1_loss_op = loss_op(
    "smooth_l1_loss", "SmoothL1LossBackward0", _smooth_l1, (_smooth_l1_grad, _smooth_l1_target_grad),
    ("grad * where(|self - target| < beta, (self - target) / beta, sign(self - target)) (/ numel for mean)",
     "-(the same)"), _smooth_l1_sympy, _pair_cases(beta=1.0))


def _huber(self, target, delta=1.0, reduction="mean"):
    half = getattr(self, "dtype", None) == np.float16   # (dtypes._HALF_OWN: the inputs as they are)
    if half:   # PyTorch computes each element in float and rounds it once, then reduces those
        self, target = np.asarray(self, np.float32), np.asarray(target, np.float32)
    d = np.subtract(self, target)
    a = np.abs(d)
    loss = np.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))
    return _reduce(loss.astype(np.float16) if half else loss, reduction)


def _huber_grad(F, g, self, target, delta, reduction):
    d = self - target
    return _scale(g * F.where(F.abs(d) < delta, d, F.sign(d) * delta), reduction, d)


def _huber_target_grad(F, g, self, target, delta, reduction):
    return -_huber_grad(F, g, self, target, delta, reduction)


def _huber_sympy(sp, x, t, delta=1.0, reduction="mean"):
    c = sp.Float(delta)
    loss = vectorize(lambda e: sp.Piecewise((e * e / 2, sp.Abs(e) < c), (c * (sp.Abs(e) - c / 2), True)))(x - t)
    return _reduce_object(loss, reduction)


huber_loss_op = loss_op(
    "huber_loss", "HuberLossBackward0", _huber, (_huber_grad, _huber_target_grad),
    ("grad * where(|self - target| < delta, self - target, delta * sign(self - target)) (/ numel for mean)",
     "-(the same)"), _huber_sympy, _pair_cases(delta=1.0))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """abs(input - target), then mean or sum: composed as PyTorch does (MeanBackward0 over AbsBackward0)."""
    _check_reduction(reduction)
    input, target = _as_target(input, target)
    loss = TENSORS.abs(input - target)
    if weight is not None:
        loss = loss * weight
    if reduction == "none":
        return loss
    return TENSORS.sum(loss) if reduction == "sum" else TENSORS.mean(loss)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta, d = input - target (SmoothL1LossBackward0)."""
    _check_reduction(reduction)
    beta = float(beta)
    if beta < 0:
        raise ProgramValueError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    input, target = _as_target(input, target)
    return apply(smooth_l1_loss_op, (input, target), {"beta": beta, "reduction": reduction})


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta), d = input - target (HuberLossBackward0)."""
    _check_reduction(reduction)
    delta = float(delta)
    if delta <= 0:
        raise ProgramValueError("huber_loss does not support non-positive values for delta.")
    input, target = _as_target(input, target)
    return apply(huber_loss_op, (input, target), {"delta": delta, "reduction": reduction})


# -- binary_cross_entropy_with_logits -----------------------------------------------------------


def _bce_logits(self, target, weight=None, pos_weight=None, reduction="mean"):
    x = np.asarray(self)
    t = np.asarray(target)
    log_weight = 1.0 if pos_weight is None else (pos_weight - 1.0) * t + 1.0
    loss = (1.0 - t) * x + log_weight * (np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0.0))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _bce_logits_input_grad(F, g, self, target, weight, pos_weight, reduction):
    if pos_weight is None:
        out = F.sigmoid(self) - target
    else:
        pt = target * pos_weight
        out = (pt + 1.0 - target) * F.sigmoid(self) - pt
    return _bce_scale(g * out, weight, reduction, self)


def _bce_logits_target_grad(F, g, self, weight, pos_weight, reduction):
    # d/dt of (1 - t) x + (1 + (p - 1) t) softplus(-x)
    out = -self if pos_weight is None else F.softplus(-self) * (pos_weight - 1.0) - self
    return _bce_scale(g * out, weight, reduction, self)


def _bce_logits_sympy(sp, x, t, weight=None, pos_weight=None, reduction="mean"):
    x, t = np.asarray(x, dtype=object), np.asarray(t, dtype=object)
    lw = 1 if pos_weight is None else (np.asarray(pos_weight, dtype=object) - 1) * t + 1
    loss = (1 - t) * x + lw * vectorize(lambda e: sp.log(1 + sp.exp(-e)))(x)
    if weight is not None:
        loss = loss * np.asarray(weight, dtype=object)
    return _reduce_object(loss, reduction)


def _bce_logits_cases(rng):
    u = lambda *s: rng.uniform(-3, 3, s)  # noqa: E731
    p = lambda *s: rng.uniform(0, 1, s)  # noqa: E731
    return [((u(2, 3), p(2, 3)), {}),
            ((u(3,), p(3,)), {"reduction": "sum", "pos_weight": rng.uniform(0.5, 3, (3,))}),
            ((u(2, 3), p(2, 3)), {"reduction": "none", "weight": rng.uniform(0.5, 2, (3,)),
                                  "pos_weight": rng.uniform(0.5, 3, (3,))})]


bce_logits_op = loss_op(
    "binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0", _bce_logits,
    (_bce_logits_input_grad, _bce_logits_target_grad),
    ("grad * ((pos_weight target + 1 - target) sigmoid(self) - pos_weight target) * weight (/ numel)",
     "grad * ((pos_weight - 1) softplus(-self) - self) * weight (/ numel)"), _bce_logits_sympy, _bce_logits_cases)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Binary cross entropy of sigmoid(input), computed stably (BinaryCrossEntropyWithLogitsBackward0)."""
    _check_reduction(reduction)
    si, st = _shape(input), _shape(target)
    if si != st:
        raise ProgramValueError(f"Target size ({_size_str(st)}) must be the same as input size ({_size_str(si)})")
    w, pw = _numpy(weight), _numpy(pos_weight)
    for p in (w, pw):
        if p is not None:
            try:
                broadcast(p.shape, si)
            except ValueError:
                raise ProgramValueError(
                    f"The size of tensor a ({p.shape[-1] if p.ndim else 1}) must match the size of tensor b "
                    f"({si[-1] if si else 1}) at non-singleton dimension {max(len(si) - 1, 0)}") from None
    return apply(bce_logits_op, (input, target), {"weight": w, "pos_weight": pw, "reduction": reduction})


# -- kl_div -----------------------------------------------------------------------------------------


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target * (log(target) - input) pointwise (exp(target) * (target - input) for log targets).

    Composed as PyTorch composes it. 'mean' divides by every element (PyTorch warns that
    'batchmean', the sum over the batch size, is the KL divergence).
    """
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ProgramValueError(f"{reduction} is not a valid value for reduction")
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if not isinstance(target, Tensor):
        target = Tensor(target)
    if log_target:
        loss = TENSORS.exp(target) * (target - input)
    elif target.requires_grad:
        loss = TENSORS.where(target > 0, target * TENSORS.log(TENSORS.clamp_min(target, 1e-300)), 0.0) \
            - target * input
    else:
        t = target._data
        with np.errstate(divide="ignore", invalid="ignore"):
            xlogy = np.where(t == 0, 0.0, t * np.log(t)).astype(t.dtype)
        loss = Tensor._make(xlogy) - target * input
    if reduction == "none":
        return loss
    if reduction == "batchmean":
        shape = _shape(input)
        return TENSORS.sum(loss) / (shape[0] if shape else 1)
    return TENSORS.sum(loss) if reduction == "sum" else TENSORS.mean(loss)


for _name, _function in (("l1_loss", l1_loss), ("smooth_l1_loss", smooth_l1_loss), ("huber_loss", huber_loss),
                         ("binary_cross_entropy_with_logits", binary_cross_entropy_with_logits),
                         ("kl_div", kl_div)):
    export(_name, _function, method=False, nn=True)
