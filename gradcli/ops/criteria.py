"""The losses of issue 27: F.margin_ranking_loss, hinge_embedding_loss, soft_margin_loss,
cosine_embedding_loss, triplet_margin_loss, poisson_nll_loss, gaussian_nll_loss and
multilabel_soft_margin_loss.

All but soft_margin_loss are composed from differentiable ops in the order ATen
(or torch/nn/functional.py) composes them, so their graphs are PyTorch's
(ClampMinBackward0, WhereBackward0, MeanBackward0...); soft_margin_loss is an op of
its own, as in ATen (SoftMarginLossBackward0).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ProgramValueError, ShapeError
from .._tensor import Tensor
from .domains import vectorize
from .nn import _check_reduction, _reduce, _reduce_object, loss_op
from .registry import OPS, TENSORS, apply, defop, export


def _div_scalar(self, other):
    return self / other


div_scalar_op = defop(
    "div_scalar", "DivBackward1", _div_scalar, public=False,
    rules=(lambda F, g, other: g / other,), formulas=("grad / other",),
    sympy=lambda sp, x, other: np.asarray(x, dtype=object) / sp.Float(other),
    domain=lambda rng: [((rng.uniform(-2, 2, (2, 3)),), {"other": 3.0}), ((rng.uniform(-2, 2, ()),), {"other": -0.5})],
    doc="ATen's C++ division by a number (div.Scalar), which reductions inside losses use",
)


def div_scalar(input, other):
    """input / other for a Python number `other`, as ATen's C++ code divides (DivBackward1)."""
    return apply(div_scalar_op, (input,), {"other": float(other)})


def _t(x):
    return x if isinstance(x, Tensor) else TENSORS.tensor(x)


def _reduced(loss, reduction):
    """apply_loss_reduction: the loss itself, its mean (MeanBackward0) or its sum (SumBackward0)."""
    _check_reduction(reduction)
    if reduction == "none":
        return loss
    return TENSORS.mean(loss) if reduction == "mean" else TENSORS.sum(loss)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    input1, input2, target = _t(input1), _t(input2), _t(target)
    if not (len(input1.shape) == len(input2.shape) == len(target.shape)):
        raise ShapeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                         f"input1: {_sizes(input1)}, input2: {_sizes(input2)}, target: {_sizes(target)} ")
    loss = TENSORS.clamp_min(-target * (input1 - input2) + float(margin), 0)
    return _reduced(loss, reduction)


def _sizes(t) -> str:
    return "torch.Size([" + ", ".join(str(s) for s in t.shape) + "])"


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1."""
    input, target = _t(input), _t(target)
    zeros = TENSORS.zeros_like(input)
    margin_clamp = TENSORS.clamp_min(float(margin) - input, 0)
    output_margin = TENSORS.where(target != 1, margin_clamp, zeros)
    output_self = TENSORS.where(target != -1, input, zeros)
    return _reduced(output_margin + output_self, reduction)


def _soft_margin(self, target, reduction="mean"):
    return _reduce(np.log1p(np.exp(-target * self)), reduction)


def _soft_margin_scale(out, reduction, self):
    return out / float(max(np.prod(self.shape), 1)) if reduction == "mean" else out


def _soft_margin_input_rule(F, g, self, target, reduction):
    return _soft_margin_scale(g * (-target * F.sigmoid(-target * self)), reduction, self)


def _soft_margin_target_rule(F, g, self, target, reduction):
    return _soft_margin_scale(g * (-self * F.sigmoid(-target * self)), reduction, self)


def _soft_margin_sympy(sp, x, t, reduction="mean"):
    x, t = np.asarray(x, dtype=object), np.asarray(t, dtype=object)
    return _reduce_object(vectorize(lambda e: sp.log(1 + sp.exp(e)))(-t * x), reduction)


soft_margin_loss_op = loss_op(
    "soft_margin_loss", "SoftMarginLossBackward0", _soft_margin, (_soft_margin_input_rule, _soft_margin_target_rule),
    ("grad * -target * sigmoid(-target * self) (/ numel for mean)",
     "grad * -self * sigmoid(-target * self) (/ numel for mean)"), _soft_margin_sympy,
    domain=lambda rng: [((rng.uniform(-2, 2, (2, 3)), rng.choice([-1.0, 1.0], (2, 3))), {"reduction": r})
                        for r in ("mean", "sum", "none")],
)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)) (SoftMarginLossBackward0)."""
    _check_reduction(reduction)
    return apply(soft_margin_loss_op, (_t(input), _t(target)), {"reduction": reduction})


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1."""
    input1, input2, target = _t(input1), _t(input2), _t(target)
    dim = len(input1.shape)
    if dim not in (1, 2) or len(input2.shape) != dim:
        raise ShapeError(f"cosine_embedding_loss expects 1D or 2D inputs of one dimension, got {dim}D")
    targ_dim = 1 if dim == 2 else 0
    eps = 1e-12
    prod_sum = TENSORS.sum(input1 * input2, targ_dim)
    mag_square1 = TENSORS.sum(input1 * input1, targ_dim) + eps
    mag_square2 = TENSORS.sum(input2 * input2, targ_dim) + eps
    cos = prod_sum / TENSORS.sqrt(mag_square1 * mag_square2)
    zeros = TENSORS.zeros_like(cos)
    pos = 1 - cos
    neg = TENSORS.clamp_min(cos - float(margin), 0)
    output = TENSORS.where(target == 1, pos, zeros) + TENSORS.where(target == -1, neg, zeros)
    return _reduced(output, reduction)


_vector_norm = OPS["norm"]
# ATen's C++ at::norm(x, p, dim) records NormBackward1 (torch.norm in Python records
# LinalgVectorNormBackward0): the same forward and rule under that name
norm_dim_op = defop(
    "norm_dim", "NormBackward1", _vector_norm.forward, public=False, cost=_vector_norm.cost,
    rules=_vector_norm.rules, formulas=_vector_norm.formulas, sympy=_vector_norm.sympy,
    domain=_vector_norm.domain, doc="at::norm(self, p, dim, keepdim), as pairwise_distance calls it",
)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """norm(x1 - x2 + eps, p) over the last dimension (NormBackward1)."""
    x1, x2 = _t(x1), _t(x2)
    innermost = max(len(x1.shape), len(x2.shape)) - 1
    return apply(norm_dim_op, (x1 - x2 + eps,), {"p": float(p), "dim": innermost, "keepdim": bool(keepdim)})


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance."""
    anchor, positive, negative = _t(anchor), _t(positive), _t(negative)
    dims = {len(anchor.shape), len(positive.shape), len(negative.shape)}
    if len(dims) != 1:
        raise ShapeError("The anchor, positive, and negative tensors are expected to have the same number of "
                         "dimensions")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = TENSORS.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _reduced(TENSORS.clamp_min(float(margin) + dist_pos - dist_neg, 0), reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """exp(input) - target * input (log_input), or input - target * log(input + eps); with `full`,
    Stirling's term where target > 1."""
    input, target = _t(input), _t(target)
    if log_input:
        loss = TENSORS.exp(input) - target * input
    else:
        loss = input - target * TENSORS.log(input + float(eps))
    if full:
        stirling = target * TENSORS.log(target) - target + 0.5 * TENSORS.log(2 * math.pi * target)
        loss = loss + TENSORS.masked_fill(stirling, target <= 1, 0)
    return _reduced(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) with `full`)."""
    input, target, var = _t(input), _t(target), _t(var)
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = TENSORS.unsqueeze(var, -1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ProgramValueError("var is of incorrect size")
    _check_reduction(reduction)
    if bool(np.any(var._data < 0)):
        raise ProgramValueError("var has negative entry/entries")
    var = TENSORS.clone(var)
    var._data = np.maximum(var._data, eps)   # clamp_ under no_grad, as PyTorch does
    loss = 0.5 * (TENSORS.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduced(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(target log sigmoid(input) + (1 - target) log sigmoid(-input)), averaged over the classes."""
    input, target = _t(input), _t(target)
    loss = -(target * TENSORS.logsigmoid(input) + (1 - target) * TENSORS.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = len(input.shape) - 1
    loss = TENSORS.sum(loss, class_dim) / input.shape[class_dim]
    return _reduced(loss, reduction)


def _const(F, array):
    """A constant array in the rule's namespace (a Tensor under create_graph)."""
    return Tensor._make(np.asarray(array)) if F is TENSORS else array


def _margin_terms(F, self, onehot, p, margin, weight):
    """Each class's max(0, margin - x[y] + x[i]) ** p (weighted by the target's class weight),
    zero at the target; and its derivative in z = margin - x[y] + x[i]."""
    off = _const(F, 1.0 - onehot)
    x_y = F.sum(self * _const(F, onehot), (1,), True)
    z = margin - x_y + self
    zero = 0.0 * z + 0.0  # +0.0: no negative zeros where z < 0
    positive = z > 0
    terms = F.where(positive, z ** p if p != 1 else z, zero) * off
    slope = F.where(positive, p * z ** (p - 1) if p != 1 else 1.0 + zero, zero) * off
    if weight is not None:
        w_y = _const(F, np.sum(onehot * weight, axis=1, keepdims=True))
        terms, slope = terms * w_y, slope * w_y
    return terms, slope


def _multi_margin(self, onehot, p=1, margin=1.0, weight=None, reduction="mean"):
    terms, _ = _margin_terms(_NP, self, onehot, p, margin, weight)
    return _reduce(np.sum(terms, axis=1) / self.shape[1], reduction)


def _multi_margin_rule(F, g, self, onehot, p, margin, weight, reduction):
    _, slope = _margin_terms(F, self, onehot, p, margin, weight)
    n, classes = self.shape
    scale = g / classes / (n if reduction == "mean" else 1)
    if reduction == "none":
        scale = F.reshape(scale, (n, 1))
    return (slope - _const(F, onehot) * F.sum(slope, (1,), True)) * scale


class _NP:
    """numpy under the names a rule uses (the forward shares the rule's arithmetic)."""

    sum = staticmethod(lambda x, dims, keepdim: np.sum(x, axis=dims, keepdims=keepdim))
    where = staticmethod(np.where)


def _multi_margin_cases(rng):
    onehot = np.eye(4)[[1, 3, 0]]
    return [((rng.uniform(-1, 1, (3, 4)),), {"onehot": onehot, "p": 1, "margin": 1.0, "weight": None,
                                             "reduction": "mean"}),
            ((rng.uniform(-1, 1, (3, 4)),), {"onehot": onehot, "p": 2, "margin": 0.5,
                                             "weight": np.array([1.0, 2.0, 0.5, 1.5]), "reduction": "none"})]


def _multi_margin_sympy(sp, x, onehot, p=1, margin=1.0, weight=None, reduction="mean"):
    x = np.asarray(x, dtype=object)
    x_y = (x * onehot).sum(axis=1, keepdims=True)
    z = margin - x_y + x
    terms = np.vectorize(lambda e, t: 0 if t else sp.Max(e, 0) ** p, otypes=[object])(z, onehot)
    if weight is not None:
        terms = terms * (onehot * weight).sum(axis=1, keepdims=True)
    return _reduce_object(terms.sum(axis=1) / x.shape[1], reduction)


multi_margin_loss_op = defop(
    "multi_margin_loss", "MultiMarginLossBackward0", _multi_margin, public=False,
    rules=(_multi_margin_rule,),
    formulas=("grad * (p z^(p-1) [z > 0] at each other class, minus their sum at the target) / C, "
              "z = margin - self[y] + self[i]",),
    sympy=_multi_margin_sympy, domain=_multi_margin_cases,
)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """sum over i != y of max(0, margin - x[y] + x[i]) ** p, over the classes (MultiMarginLossBackward0)."""
    _check_reduction(reduction)
    if int(p) not in (1, 2):
        raise ProgramValueError("only p == 1 and p == 2 supported")
    input = _t(input)
    x = input._data
    squeeze = x.ndim == 1
    if squeeze:
        input = TENSORS.unsqueeze(input, 0)
    classes = input.shape[1]
    t = np.asarray(target._data if isinstance(target, Tensor) else target, dtype=np.int64).reshape(-1)
    if np.any((t < 0) | (t >= classes)):
        raise ProgramValueError("target out of range")
    onehot = np.eye(classes, dtype=input._data.dtype)[t]
    w = None if weight is None else np.asarray(weight._data if isinstance(weight, Tensor) else weight)
    out = apply(multi_margin_loss_op, (input,), {"onehot": onehot, "p": int(p), "margin": float(margin),
                                                 "weight": w, "reduction": reduction})
    return TENSORS.squeeze(out, 0) if squeeze and reduction == "none" else out


for _name, _function in [("multi_margin_loss", multi_margin_loss), ("margin_ranking_loss", margin_ranking_loss), ("hinge_embedding_loss", hinge_embedding_loss),
                         ("soft_margin_loss", soft_margin_loss), ("cosine_embedding_loss", cosine_embedding_loss),
                         ("pairwise_distance", pairwise_distance), ("triplet_margin_loss", triplet_margin_loss),
                         ("poisson_nll_loss", poisson_nll_loss), ("gaussian_nll_loss", gaussian_nll_loss),
                         ("multilabel_soft_margin_loss", multilabel_soft_margin_loss)]:
    export(_name, _function, method=False, nn=True)
