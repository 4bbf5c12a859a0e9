"""`torch.nn` as far as gradcli goes: loss modules that call the functions of `gradcli.ops`.

A loss module is a callable holding its options (`reduction`); the function
it calls is looked up when it is called, so this module depends on no op
being defined at import time.
"""
from __future__ import annotations

from ..errors import ProgramValueError
from ..ops import FUNCTIONS

__all__ = ["MSELoss"]

REDUCTIONS = ("none", "mean", "sum")


class _Loss:
    """Base of the loss modules: `loss(input, target)` is `<function>(input, target, reduction=...)`."""

    function = ""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        if reduction not in REDUCTIONS:
            raise ProgramValueError(f"{reduction} is not a valid value for reduction")
        self.reduction = reduction

    def forward(self, input, target):
        return FUNCTIONS[self.function](input, target, reduction=self.reduction)

    __call__ = forward

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class MSELoss(_Loss):
    """Mean squared error, `mse_loss(input, target, reduction)` (MseLossBackward0)."""

    function = "mse_loss"
