"""The loss modules of issue 27: margin, ranking and embedding losses, and the Poisson and
Gaussian negative log likelihoods. Each holds its options and calls its F function
(`gradcli.ops.criteria`) when called, as `loss.py`'s do."""
from __future__ import annotations

from ..errors import ProgramValueError
from ..ops import NN_FUNCTIONS
from .loss import _Loss

__all__ = ["MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss", "CosineEmbeddingLoss",
           "TripletMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss"]


class _Loss3(_Loss):
    """A loss of three tensors: loss(a, b, c) is <function>(a, b, c, **options, reduction=...)."""

    def forward(self, input1, input2, target):
        extra = {name: getattr(self, name) for name in self.options}
        return NN_FUNCTIONS[self.function](input1, input2, target, reduction=self.reduction, **extra)

    __call__ = forward


class MarginRankingLoss(_Loss3):
    """max(0, -y (x1 - x2) + margin)."""

    function, options = "margin_ranking_loss", ("margin",)

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = float(margin)


class HingeEmbeddingLoss(_Loss):
    """x where y = 1, max(0, margin - x) where y = -1."""

    function, options = "hinge_embedding_loss", ("margin",)

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = float(margin)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-y x)) (SoftMarginLossBackward0)."""

    function = "soft_margin_loss"


class CosineEmbeddingLoss(_Loss3):
    """1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1."""

    function, options = "cosine_embedding_loss", ("margin",)

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = float(margin)


class TripletMarginLoss(_Loss3):
    """max(0, margin + d(a, p) - d(a, n)), d the p-norm distance."""

    function, options = "triplet_margin_loss", ("margin", "p", "eps", "swap")

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin, self.p, self.eps, self.swap = float(margin), float(p), float(eps), bool(swap)


class PoissonNLLLoss(_Loss):
    """exp(x) - y x (log_input), or x - y log(x + eps)."""

    function, options = "poisson_nll_loss", ("log_input", "full", "eps")

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = bool(log_input), bool(full), float(eps)


class GaussianNLLLoss(_Loss):
    """0.5 (log var + (x - y)^2 / var), var clamped at eps."""

    function, options = "gaussian_nll_loss", ("full", "eps")

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full, self.eps = bool(full), float(eps)

    def forward(self, input, target, var):
        return NN_FUNCTIONS[self.function](input, target, var, full=self.full, eps=self.eps,
                                           reduction=self.reduction)

    __call__ = forward


class MultiLabelSoftMarginLoss(_Loss):
    """The mean over classes of each class's binary cross entropy with logits."""

    function, options = "multilabel_soft_margin_loss", ("weight",)

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.weight = weight


class MultiMarginLoss(_Loss):
    """The multi-class hinge loss: sum over i != y of max(0, margin - x[y] + x[i]) ** p, over C."""

    function, options = "multi_margin_loss", ("p", "margin", "weight")

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if p not in (1, 2):
            raise ProgramValueError("only p == 1 and p == 2 supported")
        self.p, self.margin, self.weight = int(p), float(margin), weight
