"""`torch.optim.lr_scheduler`: StepLR, MultiStepLR, ConstantLR, LinearLR, ExponentialLR,
CosineAnnealingLR, LambdaLR and SequentialLR; CosineAnnealingWarmRestarts, OneCycleLR and
ReduceLROnPlateau, which keep cycle or plateau state of their own.

Each is PyTorch's chainable (recursive) form: `step()` counts an epoch and sets
every group's `lr` from its current value, as PyTorch 2 does, so a program
that also writes `param_groups[i]['lr']` sees PyTorch's numbers. Made, a
scheduler takes its first step (epoch 0), as PyTorch's does. `state_dict()` holds
what PyTorch's holds, in its order (its attributes but the optimizer);
`load_state_dict` takes back only those keys, each of the kind it was.
"""
from __future__ import annotations

import math
from bisect import bisect_right

from ..graph.callback import call_program
from ..errors import ProgramError, ProgramTypeError, ProgramValueError, type_name
from ..limits import check_walk
from ..warn import warn
from . import checks
from .optimizers import Optimizer

__all__ = ["LRScheduler", "StepLR", "ExponentialLR", "CosineAnnealingLR", "LambdaLR", "MultiStepLR",
           "ConstantLR", "LinearLR", "SequentialLR", "OneCycleLR", "ReduceLROnPlateau",
           "CosineAnnealingWarmRestarts"]


EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch "
    "is different from None, the closed form is used instead of the new chainable form, where "
    "available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose.")


def _epoch(epoch):
    """An epoch given to step(epoch): a number (the closed forms compute with it)."""
    if isinstance(epoch, bool) or not isinstance(epoch, (int, float)):
        raise ProgramTypeError(f"epoch must be a number, not {type_name(epoch)}")
    return epoch


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
        self._initial_step()

    def _initial_step(self) -> None:
        """The first step, made with the scheduler (and again by SequentialLR at its milestones)."""
        self._step_count = 0
        self._is_initial = True
        self._get_lr_called_within_step = False
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list:
        raise NotImplementedError

    def get_last_lr(self) -> list:
        return list(self._last_lr)

    def step(self, epoch=None) -> None:
        """One epoch on; `step(epoch)` (deprecated) warns as PyTorch does and goes to `epoch` by
        the closed form where the scheduler has one (the chainable form from there otherwise)."""
        self._step_count += 1
        if epoch is not None:
            warn(EPOCH_DEPRECATION_WARNING)
            self._update_lr(_epoch(epoch))
        else:
            self._update_lr()

    def _update_lr(self, epoch=None) -> None:
        """Count an epoch (or go to `epoch`, by the closed form where there is one) and set each lr."""
        for base in self.base_lrs:  # a program may have written anything into base_lrs
            checks.lr_of(base, "base_lrs")
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                lrs = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                lrs = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for (group, _), lr in zip(checks.groups(self.optimizer), lrs):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group, _ in checks.groups(self.optimizer)]

    def state_dict(self) -> dict:
        """PyTorch's: every attribute but the optimizer, in the order they were set."""
        return {key: value for key, value in vars(self).items() if key != "optimizer"}

    def load_state_dict(self, state_dict) -> None:
        """Take back the keys state_dict() gives, each of the kind it has now (a program's
        dict never sets another attribute nor a value of another kind)."""
        own = self.state_dict()
        if not isinstance(state_dict, dict):
            raise ProgramTypeError(f"state_dict must be a dict, not {type(state_dict).__name__}")
        check_walk(state_dict)
        for key, value in state_dict.items():
            if key not in own:
                raise ProgramValueError(f"{type(self).__name__}.load_state_dict: unexpected key {key!r}")
            _same_kind(own[key], value, key)
        for key, value in state_dict.items():
            setattr(self, key, _copied(value, own[key]))

    def _bases(self) -> list:
        return [checks.lr_of(base, "base_lrs") for base in self.base_lrs]

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

    def _get_closed_form_lr(self) -> list:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self._bases()]


class ExponentialLR(LRScheduler):
    """Multiply each lr by gamma every epoch."""

    def __init__(self, optimizer, gamma: float, last_epoch: int = -1):
        self.gamma = float(gamma)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        if self._is_initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self) -> list:
        return [base * self.gamma ** self.last_epoch for base in self._bases()]


class CosineAnnealingLR(LRScheduler):
    """Anneal each lr from its base to eta_min along half a cosine of T_max epochs (SGDR without restarts)."""

    def __init__(self, optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1):
        self.T_max = int(T_max)
        self.eta_min = float(eta_min)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        e, t, lo = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and e > 0:
            return [lo + (base - lo) * (1 + math.cos(e * math.pi / t)) / 2 for base in self.base_lrs]
        if (e - 1 - t) % (2 * t) == 0:
            return [lr + (base - lo) * (1 - math.cos(math.pi / t)) / 2
                    for base, lr in zip(self.base_lrs, self._current())]
        return [(1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t)) * (lr - lo) + lo
                for lr in self._current()]

    def _get_closed_form_lr(self) -> list:
        lo = self.eta_min
        return [lo + (base - lo) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self._bases()]


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

    def state_dict(self) -> dict:
        """PyTorch's: the functions are not state (None in their place)."""
        state = {key: value for key, value in vars(self).items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None] * len(self.lr_lambdas)
        return state

    def load_state_dict(self, state_dict) -> None:
        if isinstance(state_dict, dict):
            state_dict = {key: value for key, value in state_dict.items() if key != "lr_lambdas"}
        super().load_state_dict(state_dict)


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


# -- what load_state_dict accepts ---------------------------------------------------------

_NUMBERS = (int, float)


def _same_kind(old, new, key: str) -> None:
    """`new` may replace `old`: numbers for numbers, str for str, a list or dict of the same
    kinds (a program's state dict never puts an object of its own into a scheduler)."""
    if isinstance(old, bool) or old is None:
        ok = new is None or isinstance(new, bool) or (old is None and isinstance(new, _NUMBERS))
    elif isinstance(old, _NUMBERS):
        ok = isinstance(new, _NUMBERS) and not isinstance(new, bool)
    elif isinstance(old, str):
        ok = isinstance(new, str)
    elif isinstance(old, (list, tuple)):
        ok = isinstance(new, (list, tuple))
        if ok and old:
            for item in new:
                _same_kind(old[0], item, key)
    elif isinstance(old, dict):
        ok = isinstance(new, dict)
        for k, v in (new.items() if ok else ()):
            if isinstance(k, bool) or not isinstance(k, (str, int)):
                raise ProgramTypeError(f"load_state_dict: '{key}' has a key of type {type_name(k)}")
            like = old[k] if k in old else next(iter(old.values()), 0)
            _same_kind(like, v, key)
    else:
        ok = False
    if not ok:
        raise ProgramTypeError(f"load_state_dict: '{key}' must be {type_name(old)}, not {type_name(new)}")


def _copied(value, old):
    """The loaded value, copied (the program keeps its own list), in the kind of the old."""
    if isinstance(old, _Counter):
        return _Counter(value)
    if isinstance(value, dict):
        return {k: _copied(v, None) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copied(v, None) for v in value]
    return value


class _Counter(dict):
    """MultiStepLR's milestones: collections.Counter's counts, printed as Counter prints them."""

    def __missing__(self, key):
        return 0

    def __repr__(self) -> str:
        if not self:
            return "Counter()"
        ranked = sorted(self.items(), key=lambda kv: kv[1], reverse=True)
        return "Counter({" + ", ".join(f"{k!r}: {v!r}" for k, v in ranked) + "})"


def _real(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, _NUMBERS):
        raise ProgramTypeError(f"{what} must be a number, not {type_name(value)}")
    return value


def _int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProgramTypeError(f"{what} must be an int, not {type_name(value)}")
    return value


# -- more chainable schedulers -------------------------------------------------------------


class MultiStepLR(LRScheduler):
    """Multiply each lr by gamma at each milestone epoch (by gamma^k for a milestone given k times)."""

    def __init__(self, optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1):
        counts = _Counter()
        for m in _materialized(milestones, "milestones"):
            counts[_int(m, "a milestone")] += 1
        self.milestones = counts
        self.gamma = _real(gamma, "gamma")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        if self.last_epoch not in self.milestones:
            return self._current()
        factor = float(self.gamma) ** self.milestones[self.last_epoch]
        return [lr * factor for lr in self._current()]

    def _get_closed_form_lr(self) -> list:
        passed = sum(count for m, count in self.milestones.items() if m <= self.last_epoch)
        return [base * float(self.gamma) ** passed for base in self._bases()]


class ConstantLR(LRScheduler):
    """Each lr times `factor` until epoch `total_iters`, then the base lr again."""

    def __init__(self, optimizer, factor: float = 1.0 / 3, total_iters: int = 5, last_epoch: int = -1):
        if _real(factor, "factor") > 1.0 or factor < 0:
            raise ProgramValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = _int(total_iters, "total_iters")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current()]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [lr * (1.0 / self.factor) for lr in self._current()]

    def _get_closed_form_lr(self) -> list:
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self._bases()]


class LinearLR(LRScheduler):
    """Each lr from base * start_factor to base * end_factor in a line over `total_iters` epochs."""

    def __init__(self, optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0, total_iters: int = 5,
                 last_epoch: int = -1):
        _int(total_iters, "total_iters")
        if _real(start_factor, "start_factor") > 1.0 or start_factor <= 0:
            raise ProgramValueError("Starting multiplicative factor expected to be greater than 0 and less or "
                                    "equal to 1.")
        if _real(end_factor, "end_factor") > 1.0 or end_factor < 0:
            raise ProgramValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        span = self.end_factor - self.start_factor
        return [lr * (1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span))
                for lr in self._current()]

    def _get_closed_form_lr(self) -> list:
        return [base * (self.start_factor + (self.end_factor - self.start_factor)
                        * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base in self._bases()]


def _materialized(values, what: str) -> list:
    if not hasattr(values, "__iter__") or isinstance(values, (str, dict)):
        raise ProgramTypeError(f"{what} must be a list, not {type_name(values)}")
    check_walk(values)
    return list(values)


class SequentialLR(LRScheduler):
    """The given schedulers one after another, switching at each milestone epoch."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch: int = -1):
        schedulers = _materialized(schedulers, "schedulers")
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ProgramValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        for i, scheduler in enumerate(schedulers):
            if not isinstance(scheduler, LRScheduler):
                raise ProgramTypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
            if isinstance(scheduler, ReduceLROnPlateau):
                raise ProgramValueError(
                    f"{name} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs "
                    f"to be specified when calling `step`, but got one at index {i} in the given schedulers "
                    "sequence.")
            if optimizer is not scheduler.optimizer:
                raise ProgramValueError(
                    f"{name} expects all schedulers to belong to the same optimizer, but got scheduler "
                    f"{type(scheduler).__name__} at index {i} has {scheduler.optimizer}, which is different "
                    f"from {type(optimizer).__name__}.")
        milestones = [_int(m, "a milestone") for m in _materialized(milestones, "milestones")]
        if len(milestones) != len(schedulers) - 1:
            raise ProgramValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than the number "
                f"of milestone points, but got number of schedulers {len(schedulers)} and the number of "
                f"milestones to be equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group, _ in checks.groups(optimizer):
            group["lr"] = checks.option(group, "initial_lr")
        for scheduler in schedulers:  # undo the step each took when it was made
            _undo(scheduler)
        first = self._schedulers[bisect_right(milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self, epoch=None) -> None:
        if epoch is not None:
            raise ProgramTypeError("SequentialLR.step() takes no epoch")
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict:
        state = {key: value for key, value in vars(self).items() if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict) -> None:
        if not isinstance(state_dict, dict):
            raise ProgramTypeError(f"state_dict must be a dict, not {type(state_dict).__name__}")
        inner = state_dict.get("_schedulers", [])
        if not isinstance(inner, list) or len(inner) != len(self._schedulers):
            raise ProgramValueError(f"load_state_dict: '_schedulers' must be a list of "
                                    f"{len(self._schedulers)} state dicts")
        LRScheduler.load_state_dict(self, {k: v for k, v in state_dict.items() if k != "_schedulers"})
        for scheduler, state in zip(self._schedulers, inner):
            scheduler.load_state_dict(state)


def _undo(scheduler) -> None:
    if isinstance(scheduler, SequentialLR):
        for inner in scheduler._schedulers:
            _undo(inner)
    else:
        scheduler.last_epoch -= 1


# -- schedulers with cycle or plateau state of their own ------------------------------------


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: a cosine from each base lr to eta_min over T_i epochs, restarting with T_i *= T_mult."""

    def __init__(self, optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0, last_epoch: int = -1):
        if isinstance(T_0, bool) or not isinstance(T_0, int) or T_0 <= 0:
            raise ProgramValueError(f"Expected positive integer T_0, but got {T_0}")
        if isinstance(T_mult, bool) or not isinstance(T_mult, int) or T_mult < 1:
            raise ProgramValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if isinstance(eta_min, bool) or not isinstance(eta_min, (float, int)):
            raise ProgramValueError(f"Expected float or int eta_min, but got {eta_min!r} of type "
                                    f"<class '{type_name(eta_min)}'>")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        lo = self.eta_min
        return [lo + (base - lo) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2 for base in self._bases()]

    def step(self, epoch=None) -> None:
        """One epoch on (a restart when T_cur reaches T_i), or go to `epoch` (a fraction allowed)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if isinstance(epoch, bool) or not isinstance(epoch, (int, float)):
                raise ProgramTypeError(f"epoch must be a number, not {type_name(epoch)}")
            if epoch < 0:
                raise ProgramValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            lrs = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for (group, _), lr in zip(checks.groups(self.optimizer), lrs):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group, _ in checks.groups(self.optimizer)]


class OneCycleLR(LRScheduler):
    """The 1cycle policy: lr up from max_lr/div_factor to max_lr, then down to far below; momentum
    (or Adam's beta1) the other way. Stepped after every batch, total_steps times."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start: float = 0.3, anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum=0.85, max_momentum=0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False, last_epoch: int = -1):
        if not isinstance(optimizer, Optimizer):
            raise ProgramTypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if isinstance(total_steps, bool) or not isinstance(total_steps, int) or total_steps <= 0:
                raise ProgramValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs <= 0:
                raise ProgramValueError(f"Expected positive integer epochs, but got {epochs}")
            if isinstance(steps_per_epoch, bool) or not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ProgramValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ProgramValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(pct_start, float) or pct_start < 0 or pct_start > 1:
            raise ProgramValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        up = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr", "base_momentum",
                       "max_momentum"),
                _phase(self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            self._schedule_phases = [
                _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        _real(div_factor, "div_factor"), _real(final_div_factor, "final_div_factor")
        if anneal_strategy not in ("cos", "linear"):
            raise ProgramValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                                    f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        groups = checks.groups(optimizer)
        max_lrs = _per_group("max_lr", groups, max_lr)
        if last_epoch == -1:
            for (group, _), top in zip(groups, max_lrs):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = bool(cycle_momentum)
        if self.cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ProgramValueError("optimizer must support momentum or beta1 with `cycle_momentum` option "
                                        "enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            tops = _per_group("max_momentum", groups, max_momentum)
            bottoms = _per_group("base_momentum", groups, base_momentum)
            if last_epoch == -1:
                for top, bottom, (group, _) in zip(tops, bottoms, groups):
                    if self.use_beta1:
                        group["betas"] = (top, checks.pair(group, "betas")[1])
                    else:
                        group["momentum"] = top
                    group["max_momentum"] = top
                    group["base_momentum"] = bottom
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list:
        step = self.last_epoch
        if step > self.total_steps:
            raise ProgramValueError(f"Tried to step {step} times. The specified number of total steps is "
                                    f"{self.total_steps}")
        lrs = []
        phases = self._schedule_phases
        for group, _ in checks.groups(self.optimizer):
            start = 0.0
            for i, phase in enumerate(phases):
                end = phase["end_step"]
                if step <= end or i == len(phases) - 1:
                    pct = (step - start) / (end - start)
                    lr = self._anneal(checks.number(group, phase["start_lr"]),
                                      checks.number(group, phase["end_lr"]), pct)
                    if self.cycle_momentum:
                        momentum = self._anneal(checks.number(group, phase["start_momentum"]),
                                                checks.number(group, phase["end_momentum"]), pct)
                    break
                start = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (momentum, checks.pair(group, "betas")[1])
                else:
                    group["momentum"] = momentum
        return lrs


def _phase(end_step, start_lr: str, end_lr: str, start_momentum: str, end_momentum: str) -> dict:
    return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr, "start_momentum": start_momentum,
            "end_momentum": end_momentum}


def _per_group(name: str, groups: list, value) -> list:
    """max_lr, max_momentum, ...: one number for every group, or a list of one per group."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(groups):
            raise ProgramValueError(f"{name} must have the same length as optimizer.param_groups. {name} has "
                                    f"{len(value)} values, param_groups has {len(groups)}.")
        values = list(value)
    else:
        values = [value] * len(groups)
    for v in values:
        checks.lr_of(v, name)
    return values


class ReduceLROnPlateau(LRScheduler):
    """Multiply each lr by `factor` when the metric given to step(metric) stopped improving for
    `patience` epochs (then wait `cooldown` epochs), never below min_lr."""

    def __init__(self, optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0, min_lr=0,
                 eps: float = 1e-8):
        if _real(factor, "factor") >= 1.0:
            raise ProgramValueError("Factor should be < 1.0.")
        _int(patience, "patience"), _int(cooldown, "cooldown"), _real(eps, "eps"), _real(threshold, "threshold")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise ProgramTypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        groups = checks.groups(optimizer)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(groups):
                raise ProgramValueError(f"expected {len(groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(groups)
        for value in self.min_lrs:
            checks.lr_of(value, "min_lr")
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = [checks.option(group, "lr") for group, _ in groups]
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def _init_is_better(self, mode, threshold, threshold_mode) -> None:
        if mode not in ("min", "max"):
            raise ProgramValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ProgramValueError(f"threshold mode {threshold_mode} is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def step(self, metrics=None, epoch=None) -> None:
        """Count an epoch with this value of the metric; reduce the lrs after `patience` bad ones."""
        if metrics is None:
            raise ProgramTypeError("ReduceLROnPlateau.step() missing 1 required positional argument: 'metrics'")
        current = checks.lr_of(metrics, "metrics") if not isinstance(metrics, (int, float)) else float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warn(EPOCH_DEPRECATION_WARNING)
            epoch = _epoch(epoch)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [checks.option(group, "lr") for group, _ in checks.groups(self.optimizer)]

    def _reduce_lr(self) -> None:
        groups = checks.groups(self.optimizer)
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise ProgramError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new param group "
                    "being added to the optimizer. Please modify the `min_lrs` field to match the length of the "
                    "`optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, (group, _) in enumerate(groups):
            old_lr = checks.number(group, "lr")
            new_lr = max(old_lr * self.factor, checks.lr_of(self.min_lrs[i], "min_lrs"))
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    def load_state_dict(self, state_dict) -> None:
        super().load_state_dict(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)
