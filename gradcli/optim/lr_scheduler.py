"""`torch.optim.lr_scheduler`: StepLR, ExponentialLR, CosineAnnealingLR and LambdaLR.

Each is PyTorch's chainable (recursive) form: `step()` counts an epoch and sets
every group's `lr` from its current value, as PyTorch 2 does, so a program
that also writes `param_groups[i]['lr']` sees PyTorch's numbers. Made, a
scheduler takes its first step (epoch 0), as PyTorch's does.
"""
from __future__ import annotations

import math

from ..graph.callback import call_program
from ..errors import ProgramTypeError, ProgramValueError
from . import checks
from .optimizers import Optimizer

__all__ = ["LRScheduler", "StepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR"]


class LRScheduler:
    """Base: `base_lrs` from each group's `initial_lr`, `last_epoch`, `get_last_lr()`."""

    def __init__(self, optimizer, last_epoch: int = -1):
        if not isinstance(optimizer, Optimizer):
            raise ProgramTypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group, _ in checks.groups(optimizer):
                group.setdefault("initial_lr", checks.option(group, "lr"))
        else:
            for i, (group, _) in enumerate(checks.groups(optimizer)):
                if "initial_lr" not in group:
                    raise ProgramValueError(f"param 'initial_lr' is not specified in param_groups[{i}] when "
                                            "resuming an optimizer")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._initial = True
        self.step()
        self._initial = False

    def get_lr(self) -> list:
        raise NotImplementedError

    def get_last_lr(self) -> list:
        return list(self._last_lr)

    def step(self, epoch=None) -> None:
        if epoch is not None:
            raise ProgramValueError("scheduler.step(epoch) is deprecated and not supported: call step()")
        self._step_count += 1
        self.last_epoch += 1
        for base in self.base_lrs:  # a program may have written anything into base_lrs
            checks.lr_of(base, "base_lrs")
        lrs = self.get_lr()
        for (group, _), lr in zip(checks.groups(self.optimizer), lrs):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group, _ in checks.groups(self.optimizer)]

    def _current(self) -> list:
        """Each group's lr, checked: a number (a program may have written anything there)."""
        return [checks.lr_of(checks.option(group, "lr"), "lr")
                for group, _ in checks.groups(self.optimizer)]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} last_epoch={self.last_epoch}>"


class StepLR(LRScheduler):
    """Multiply each lr by gamma every step_size epochs."""

    def __init__(self, optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1):
        self.step_size = int(step_size)
        if self.step_size <= 0:
            raise ProgramValueError(f"step_size must be a positive integer, got {step_size}")
        self.gamma = float(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]


class ExponentialLR(LRScheduler):
    """Multiply each lr by gamma every epoch."""

    def __init__(self, optimizer, gamma: float, last_epoch: int = -1):
        self.gamma = float(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        if self._initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]


class CosineAnnealingLR(LRScheduler):
    """Anneal each lr from its base to eta_min along half a cosine of T_max epochs (SGDR without restarts)."""

    def __init__(self, optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1):
        self.T_max = int(T_max)
        self.eta_min = float(eta_min)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        e, t, lo = self.last_epoch, self.T_max, self.eta_min
        if self._initial:
            return self._current()
        if self._step_count == 1 and e > 0:
            return [lo + (base - lo) * (1 + math.cos(e * math.pi / t)) / 2 for base in self.base_lrs]
        if (e - 1 - t) % (2 * t) == 0:
            return [lr + (base - lo) * (1 - math.cos(math.pi / t)) / 2
                    for base, lr in zip(self.base_lrs, self._current())]
        return [(1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t)) * (lr - lo) + lo
                for lr in self._current()]


class LambdaLR(LRScheduler):
    """Each lr is its base times lr_lambda(epoch); lr_lambda is a function (one, or one per group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1):
        groups = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != groups:
                raise ProgramValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * groups
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise ProgramTypeError(f"lr_lambda must be a function, not {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        return [base * _factor(call_program("lr_lambda", None, fn, self.last_epoch))
                for fn, base in zip(self.lr_lambdas, self.base_lrs)]


def _factor(value) -> float:
    from .._tensor import Tensor

    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ProgramTypeError(f"lr_lambda must return a number, not {type(value).__name__}") from None
    return float(value)
