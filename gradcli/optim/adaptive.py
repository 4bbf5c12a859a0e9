"""`torch.optim`'s Adadelta, Adamax, NAdam and RAdam: PyTorch's single-tensor algorithms
(what PyTorch runs on CPU), operation for operation, on `_Stepper` (`optimizers.py`).

Each update reads the group's options (`option_keys`) and the parameter's state Tensors
(`state_keys`) through `checks`, so a program's own writes into `param_groups` or
`state` are refused where the update reads them. The options keep the values the
program gave (PyTorch prints `weight_decay: 0`, not `0.0`). `x.add_(y, alpha=a)` is a
fused multiply-add (`fma`), as in `optimizers.py`; `addcdiv_`'s `value * t1 / t2` is not.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..dtypes import float64, get_default_dtype
from ..errors import ProgramValueError
from . import checks
from .optimizers import _Stepper, _assign, _lerp, _number, _state_tensor, _step_counter, fma

__all__ = ["Adadelta", "Adamax", "NAdam", "RAdam"]


def _valid(ok: bool, message: str) -> None:
    if not ok:
        raise ProgramValueError(message)


def _checked(lr, eps, weight_decay, betas=None) -> None:
    """PyTorch's checks of the options these optimizers share, in its order and words."""
    lr, eps, weight_decay = _number(lr, "lr"), _number(eps, "eps"), _number(weight_decay, "weight_decay")
    _valid(lr >= 0.0, f"Invalid learning rate: {lr}")
    _valid(eps >= 0.0, f"Invalid epsilon value: {eps}")
    if betas is not None:
        b0, b1 = (_number(b, "betas") for b in betas)
        _valid(0.0 <= b0 < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _valid(0.0 <= b1 < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
    _valid(weight_decay >= 0.0, f"Invalid weight_decay value: {weight_decay}")


class _Adaptive(_Stepper):
    """The four below: flags include `decoupled_weight_decay`; state zeros of the parameter's shape."""

    flags = frozenset({"maximize", "decoupled_weight_decay"})

    def options(self, group: dict) -> dict:
        return {key: (checks.pair(group, key) if key == "betas" else
                      checks.flag(group, key) if key in self.flags else checks.number(group, key))
                for key in self.option_keys}

    def init_state(self, p, state, group):
        state["step"] = _step_counter()
        for key in self.state_keys(group):
            state[key] = _state_tensor(np.zeros_like(p._data))

    def decay(self, p, grad, group):
        """Weight decay: coupled (added to the gradient) or decoupled (the parameter shrunk)."""
        wd = group["weight_decay"]
        if wd == 0:
            return grad
        if group.get("decoupled_weight_decay"):
            _assign(p, p._data * (1 - group["lr"] * wd))
            return grad
        return fma(wd, p._data, grad)


class Adadelta(_Adaptive):
    """Adadelta (Zeiler): a step from the ratio of running RMS of updates and of gradients."""

    option_keys = ("lr", "rho", "eps", "weight_decay", "maximize")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        lr_, rho_ = _number(lr, "lr"), _number(rho, "rho")
        _valid(lr_ >= 0.0, f"Invalid learning rate: {lr}")
        _valid(0.0 <= rho_ <= 1.0, f"Invalid rho value: {rho}")
        _valid(_number(eps, "eps") >= 0.0, f"Invalid epsilon value: {eps}")
        _valid(_number(weight_decay, "weight_decay") >= 0.0, f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                                  "maximize": bool(maximize), "capturable": False, "foreach": foreach,
                                  "differentiable": False})

    def state_keys(self, options):
        return ("square_avg", "acc_delta")

    def update(self, p, grad, state, group, step):
        lr, rho, eps = group["lr"], group["rho"], group["eps"]
        grad = self.decay(p, grad, group)
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg[...] = fma((1 - rho) * grad, grad, square_avg * rho)
        std = np.sqrt(square_avg + eps)
        delta = np.sqrt(acc_delta + eps) / std * grad
        acc_delta[...] = fma((1 - rho) * delta, delta, acc_delta * rho)
        _assign(p, fma(-lr, delta, p._data))


class Adamax(_Adaptive):
    """Adamax (Kingma and Ba): Adam with the infinity norm in place of the second moment."""

    option_keys = ("lr", "betas", "eps", "weight_decay", "maximize")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _checked(lr, eps, weight_decay, betas)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": bool(maximize), "differentiable": False,
                                  "capturable": False})

    def state_keys(self, options):
        return ("exp_avg", "exp_inf")

    def update(self, p, grad, state, group, step):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        grad = self.decay(p, grad, group)
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg[...] = _lerp(exp_avg, grad, 1 - beta1)
        np.maximum(exp_inf * beta2, np.abs(grad) + eps, out=exp_inf)
        clr = lr / (1 - beta1 ** step)
        _assign(p, p._data + -clr * exp_avg / exp_inf)


class NAdam(_Adaptive):
    """NAdam (Dozat): Adam with Nesterov momentum, its momentum schedule's product kept in `mu_product`."""

    option_keys = ("lr", "betas", "eps", "weight_decay", "momentum_decay", "decoupled_weight_decay",
                   "maximize")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _checked(lr, eps, weight_decay, betas)
        _valid(_number(momentum_decay, "momentum_decay") >= 0.0,
               f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                                  "momentum_decay": momentum_decay,
                                  "decoupled_weight_decay": bool(decoupled_weight_decay),
                                  "maximize": bool(maximize), "foreach": foreach, "capturable": False,
                                  "differentiable": False})

    def state_keys(self, options):
        return ("exp_avg", "exp_avg_sq")

    def init_state(self, p, state, group):
        state["step"] = _step_counter()
        # PyTorch keeps mu_product in its scalar dtype: float32 unless the default is float64
        dtype = np.float64 if get_default_dtype() is float64 else np.float32
        state["mu_product"] = Tensor._make(np.array(1.0, dtype=dtype))
        for key in self.state_keys(group):
            state[key] = _state_tensor(np.zeros_like(p._data))

    def update(self, p, grad, state, group, step):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        mu_product = checks.scalar_state(checks.state_of(self, p), "mu_product")
        bias_correction2 = 1 - beta2 ** step
        grad = self.decay(p, grad, group)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * group["momentum_decay"])))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * group["momentum_decay"])))
        mu_product[...] = mu_product * mu
        product = float(mu_product.reshape(()))
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg[...] = _lerp(exp_avg, grad, 1 - beta1)
        exp_avg_sq[...] = fma((1 - beta2) * grad, grad, exp_avg_sq * beta2)
        denom = np.sqrt(exp_avg_sq / bias_correction2) + eps
        param = p._data + (-lr * (1.0 - mu) / (1.0 - product)) * grad / denom
        _assign(p, param + (-lr * mu_next) / (1.0 - product * mu_next) * exp_avg / denom)


class RAdam(_Adaptive):
    """RAdam (Liu et al.): Adam whose adaptive step is rectified, plain momentum while the variance is unknown."""

    option_keys = ("lr", "betas", "eps", "weight_decay", "decoupled_weight_decay", "maximize")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _checked(lr, eps, weight_decay, betas)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                                  "maximize": bool(maximize), "foreach": foreach, "capturable": False,
                                  "decoupled_weight_decay": bool(decoupled_weight_decay),
                                  "differentiable": False})

    def state_keys(self, options):
        return ("exp_avg", "exp_avg_sq")

    def update(self, p, grad, state, group, step):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        grad = self.decay(p, grad, group)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg[...] = _lerp(exp_avg, grad, 1 - beta1)
        exp_avg_sq[...] = fma((1 - beta2) * grad, grad, exp_avg_sq * beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bias_correction2 ** 0.5) / (np.sqrt(exp_avg_sq) + eps)
            _assign(p, p._data - corrected * lr * adaptive * rect)
        else:
            _assign(p, p._data - corrected * lr)
