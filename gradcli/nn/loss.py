"""`torch.nn` as far as gradcli goes: loss modules that call the functions of `gradcli.ops`.

A loss module is a callable holding its options (`reduction`); the function
it calls is looked up when it is called, so this module depends on no op
being defined at import time.
"""
from __future__ import annotations

from ..errors import ProgramValueError
from ..ops import FUNCTIONS

__all__ = ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
           "BCEWithLogitsLoss", "KLDivLoss"]

REDUCTIONS = ("none", "mean", "sum")


class _Loss:
    """Base of the loss modules: `loss(input, target)` is `<function>(input, target, reduction=..., **options)`.

    `options` names the keyword arguments the function takes from the module's
    attributes of the same names (`weight`, `ignore_index`, `beta`...).
    """

    function = ""
    options: tuple = ()
    reductions = REDUCTIONS

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        if reduction not in self.reductions:
            raise ProgramValueError(f"{reduction} is not a valid value for reduction")
        self.reduction = reduction

    def forward(self, input, target):
        extra = {name: getattr(self, name) for name in self.options}
        return FUNCTIONS[self.function](input, target, reduction=self.reduction, **extra)

    __call__ = forward

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class MSELoss(_Loss):
    """Mean squared error, `mse_loss(input, target, reduction)` (MseLossBackward0)."""

    function = "mse_loss"


class L1Loss(_Loss):
    """Mean absolute error, `l1_loss` (MeanBackward0 over AbsBackward0)."""

    function = "l1_loss"


class SmoothL1Loss(_Loss):
    """Squared below `beta`, absolute above (SmoothL1LossBackward0)."""

    function = "smooth_l1_loss"
    options = ("beta",)

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta


class HuberLoss(_Loss):
    """Squared below `delta`, delta-scaled absolute above (HuberLossBackward0)."""

    function = "huber_loss"
    options = ("delta",)

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction=reduction)
        self.delta = delta


class _WeightedLoss(_Loss):
    options = ("weight",)

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.weight = weight


class NLLLoss(_WeightedLoss):
    """Negative log likelihood of class indices (NllLossBackward0)."""

    function = "nll_loss"
    options = ("weight", "ignore_index")

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index


class CrossEntropyLoss(_WeightedLoss):
    """log_softmax then NLL of class indices, or the expectation over class probabilities."""

    function = "cross_entropy"
    options = ("weight", "ignore_index", "label_smoothing")

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities (BinaryCrossEntropyBackward0)."""

    function = "binary_cross_entropy"


class BCEWithLogitsLoss(_WeightedLoss):
    """Binary cross entropy of sigmoid(input), stably (BinaryCrossEntropyWithLogitsBackward0)."""

    function = "binary_cross_entropy_with_logits"
    options = ("weight", "pos_weight")

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None):
        super().__init__(weight, size_average, reduce, reduction)
        self.pos_weight = pos_weight


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of log-probabilities `input` from `target`."""

    function = "kl_div"
    options = ("log_target",)
    reductions = REDUCTIONS + ("batchmean",)

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target
