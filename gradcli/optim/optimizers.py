"""`torch.optim`'s optimizers: SGD (with PyTorch's momentum semantics), Adam, AdamW,
RMSprop and Adagrad, on the `Optimizer` base.

`step()` updates each parameter's storage in place, outside the graph (as
under `no_grad`), and bumps its version counter; `zero_grad()` sets `.grad` to
None, as PyTorch 2 does. The arithmetic is PyTorch's, operation for operation:
PyTorch's `p.add_(d_p, alpha=-lr)` is a fused multiply-add (one rounding), so
every `x + alpha * y` here goes through `fma`, and a run agrees with PyTorch's
to the last bit in float64. A float32 (or float16) parameter is updated in its
own dtype, the options rounded to it as PyTorch's kernels round them.
"""
from __future__ import annotations

import numpy as np

from ..errors import ProgramError, ProgramTypeError, ProgramValueError
from .._tensor import Tensor, bump_version
from . import checks

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Optimizer"]


def _closure_loss(closure):
    """The loss a program's closure returns to step(), through the engine's call boundary:
    a Tensor or a number (not an object of the program's to hand back)."""
    from ..graph.callback import call_program

    loss = call_program("step(closure)", None, closure)
    if loss is not None and not isinstance(loss, (Tensor, int, float)):
        raise ProgramTypeError(f"step(): the closure returned a {type(loss).__name__}, "
                               "expected the loss (a Tensor)")
    return loss


class Optimizer:
    """Base of the optimizers: parameter groups (each a dict of options) and per-parameter state."""

    defaults: dict = {}

    def __init__(self, params, defaults: dict):
        self.defaults = defaults
        self.state: dict = {}
        self.param_groups: list = []
        if isinstance(params, Tensor):
            raise ProgramTypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                f"but got torch.{params.dtype.legacy}Tensor")
        groups = _groups_given(params)
        if not groups:
            raise ProgramValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def step(self, closure=None):
        """PyTorch's base class has no update rule: its step() raises NotImplementedError."""
        raise ProgramError("Optimizer.step() is not implemented by the base class",
                           hint="use an optimizer with an update rule: optim.SGD, optim.Adam, ...")

    def add_param_group(self, group: dict) -> None:
        if not isinstance(group, dict):
            raise ProgramTypeError(f"param_group must be a dict, but got {type(group).__name__}")
        if "params" not in group:
            raise ProgramTypeError("a parameter group must have a 'params' key")
        params = checks.params_of(group["params"], "the group's 'params'")
        seen = {id(p) for _, ps in checks.groups(self) for p in ps}
        for p in params:
            if not isinstance(p, Tensor):
                raise ProgramTypeError(f"optimizer can only optimize Tensors, but one of the params is "
                                       f"{type(p).__name__}")
            if not p.is_leaf:
                raise ProgramValueError("can't optimize a non-leaf Tensor")
            if id(p) in seen:
                raise ProgramValueError("some parameters appear in more than one parameter group")
            seen.add(id(p))
        group = {**self.defaults, **group, "params": params}
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's gradient: to None (the default), or to zeros in place."""
        for _, params in checks.groups(self):
            for p in params:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad._data = np.zeros_like(p.grad._data)
                    bump_version(p.grad)

    def __repr__(self) -> str:
        checks.repr_checked(self)
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _call_closure(closure):
    """closure() under enable_grad, as PyTorch's step(closure) does; None without one."""
    if closure is None:
        return None
    from .._tensor import enable_grad

    with enable_grad():
        return _closure_loss(closure)


def _number(value, what: str) -> float:
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise ProgramTypeError(f"{what} must be a number, not {type(value).__name__}")
    return float(value)


_INVALID = {"lr": "learning rate", "eps": "epsilon value"}   # the rest: "<name> value"


def _nonnegative(**given) -> tuple:
    """The options as floats (`_number`), each checked >= 0 in the order given (PyTorch's
    order, so the first bad one is the one it names), with PyTorch's wording."""
    values = tuple(_number(value, name) for name, value in given.items())
    for name, value in zip(given, values):
        if not value >= 0.0:
            raise ProgramValueError(f"Invalid {_INVALID.get(name, name + ' value')}: {value}")
    return values


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum, Nesterov momentum and weight decay."""

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False, fused=None):
        lr = _number(lr, "lr")
        momentum = _number(momentum, "momentum")
        dampening = _number(dampening, "dampening")
        weight_decay = _number(weight_decay, "weight_decay")
        # PyTorch's SGD asks `lr < 0.0`, not `_nonnegative`'s `not lr >= 0.0`: a NaN passes
        if lr < 0.0:
            raise ProgramValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ProgramValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ProgramValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ProgramValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": bool(nesterov),
                                  "maximize": bool(maximize)})

    def step(self, closure=None):
        """Update every parameter that has a gradient; returns closure() if one is given."""
        loss = _call_closure(closure)
        for group, params in checks.groups(self):
            lr = checks.number(group, "lr")
            momentum = checks.number(group, "momentum")
            dampening = checks.number(group, "dampening")
            weight_decay = checks.number(group, "weight_decay")
            maximize, nesterov = checks.flag(group, "maximize"), checks.flag(group, "nesterov")
            for p in params:
                grad = _grad_of(p)
                if grad is None:
                    continue
                checks.charge_update(p)
                dtype = p._data.dtype
                d_p = np.asarray(grad, dtype=dtype)
                if maximize:
                    d_p = -d_p
                if weight_decay != 0:
                    d_p = fma(weight_decay, p._data, d_p, dtype)
                if momentum != 0:
                    state = checks.state_of(self, p)
                    if state.get("momentum_buffer") is None:
                        buf = np.array(d_p, dtype=dtype, copy=True)
                        state["momentum_buffer"] = _state_tensor(buf)
                    else:  # PyTorch's buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
                        stored = checks.state_tensor(state, "momentum_buffer", p)
                        buf = fma(1.0 - dampening, d_p, stored * dtype.type(momentum), dtype)
                        stored[...] = buf
                    d_p = fma(momentum, buf, d_p, dtype) if nesterov else buf
                _assign(p, fma(-lr, d_p, p._data, dtype))
        return loss


def _check(value: float, ok: bool, message: str) -> float:
    if not ok:
        raise ProgramValueError(message)
    return value


def _lerp(start, end, weight: float):
    """torch.lerp's formula: start + weight (end - start), or from `end` when weight >= 0.5."""
    if weight < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (1.0 - weight)


def _state_tensor(array) -> Tensor:
    return Tensor._make(np.array(array, copy=True))


class _Stepper(Optimizer):
    """Base of the optimizers below: `step()` visits each parameter with a gradient, in
    PyTorch's order, and calls `update(p, grad, arrays, options, step)`, grad already
    negated for `maximize`, `arrays` the storage of the state Tensors (`state_keys`), which
    the update writes in place (as PyTorch's are), `options` the group's (`option_keys`),
    all checked first (`checks`): a program may have written anything into either."""

    option_keys: tuple = ()

    def step(self, closure=None):
        loss = _call_closure(closure)
        for group, params in checks.groups(self):
            options = self.options(group)
            for p in params:
                grad = _grad_of(p)
                if grad is None:
                    continue
                checks.charge_update(p)
                if options.get("maximize"):
                    grad = -grad
                state = checks.state_of(self, p)
                if not state:
                    self.init_state(p, state, options)
                step = checks.step_count(state)
                step[...] += 1
                arrays = {key: checks.state_tensor(state, key, p) for key in self.state_keys(options)}
                self.update(p, grad, arrays, options, float(step.reshape(())))
        return loss

    def options(self, group: dict) -> dict:
        """The group's options the update reads, checked: numbers, flags and betas."""
        return {key: (checks.pair(group, key) if key == "betas" else
                      checks.flag(group, key) if key in _FLAGS else checks.number(group, key))
                for key in self.option_keys}

    def state_keys(self, options: dict) -> tuple:
        """The state Tensors (besides `step`) the update reads and writes, for these options."""
        raise NotImplementedError

    def init_state(self, p, state, group):
        raise NotImplementedError

    def update(self, p, grad, state, group, step):
        raise NotImplementedError


_FLAGS = frozenset({"maximize", "amsgrad", "centered"})


def _grad_of(p: Tensor):
    """The parameter's gradient as an array, or None (the `.grad` setter checked its shape)."""
    grad = p.grad
    return None if grad is None else np.asarray(grad._data)


def _groups_given(params) -> list:
    """The optimizer's first argument as a list of Tensors or of group dicts, taken item by
    item: a program's `range(10**9)` is refused at its first item, not built first."""
    if isinstance(params, (set, frozenset, dict)) or not hasattr(params, "__iter__"):
        return checks.params_of(params, "params")
    taken = []
    for item in params:
        if not isinstance(item, (Tensor, dict)) or (taken and isinstance(item, dict)
                                                    != isinstance(taken[0], dict)):
            raise ProgramTypeError("params argument given to the optimizer should be an iterable "
                                   f"of Tensors or dicts, but got {type(item).__name__}")
        taken.append(item)
    return taken


def _step_counter() -> Tensor:
    return Tensor._make(np.array(0.0))


class Adam(_Stepper):
    """Adam (Kingma and Ba), PyTorch's single-tensor algorithm step for step; AdamW decouples the decay."""

    decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        lr, eps = _nonnegative(lr=lr, eps=eps)
        betas = tuple(_number(b, "betas") for b in betas)
        _check(betas[0], 0.0 <= betas[0] < 1.0, f"Invalid beta parameter at index 0: {betas[0]}")
        _check(betas[1], 0.0 <= betas[1] < 1.0, f"Invalid beta parameter at index 1: {betas[1]}")
        weight_decay, = _nonnegative(weight_decay=weight_decay)
        self.decoupled = self.decoupled or bool(decoupled_weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": bool(amsgrad), "maximize": bool(maximize), "foreach": foreach,
                                  "capturable": False, "differentiable": False, "fused": fused,
                                  "decoupled_weight_decay": self.decoupled})

    option_keys = ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize")

    def state_keys(self, options):
        return ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if options["amsgrad"] else \
            ("exp_avg", "exp_avg_sq")

    def init_state(self, p, state, group):
        state["step"] = _step_counter()
        for key in self.state_keys(group):
            state[key] = _state_tensor(np.zeros_like(p._data))

    def update(self, p, grad, state, group, step):
        lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        param = p._data
        if wd != 0:
            if self.decoupled:
                _assign(p, param * (1 - lr * wd))
                param = p._data
            else:
                grad = fma(wd, param, grad)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg[...] = _lerp(exp_avg, grad, 1 - beta1)
        exp_avg_sq[...] = fma(1 - beta2, grad * grad, exp_avg_sq * beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if group["amsgrad"]:
            top = state["max_exp_avg_sq"]
            np.maximum(top, exp_avg_sq, out=top)
            denom = np.sqrt(top) / bias_correction2_sqrt + eps
        else:
            denom = np.sqrt(exp_avg_sq) / bias_correction2_sqrt + eps
        _assign(p, fma(-step_size, exp_avg / denom, param))


class AdamW(Adam):
    """Adam with decoupled weight decay: the parameter shrinks by lr * weight_decay before the step."""

    decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         fused=fused)


class RMSprop(_Stepper):
    """RMSprop (Hinton), optionally centered and with momentum, PyTorch's single-tensor algorithm."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        lr, eps, momentum, weight_decay, alpha = _nonnegative(
            lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        super().__init__(params, {"lr": lr, "alpha": alpha, "eps": eps, "weight_decay": weight_decay,
                                  "momentum": momentum, "centered": bool(centered), "capturable": False,
                                  "foreach": foreach, "maximize": bool(maximize), "differentiable": False})

    option_keys = ("lr", "alpha", "eps", "weight_decay", "momentum", "centered", "maximize")

    def state_keys(self, options):
        return ("square_avg",) + (("momentum_buffer",) if options["momentum"] > 0 else ()) \
            + (("grad_avg",) if options["centered"] else ())

    def init_state(self, p, state, group):
        state["step"] = _step_counter()
        for key in self.state_keys(group):
            state[key] = _state_tensor(np.zeros_like(p._data))

    def update(self, p, grad, state, group, step):
        lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
        if group["weight_decay"] != 0:
            grad = fma(group["weight_decay"], p._data, grad)
        square_avg = state["square_avg"]
        square_avg[...] = fma(1 - alpha, grad * grad, square_avg * alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg[...] = _lerp(grad_avg, grad, 1 - alpha)
            avg = np.sqrt(fma(-1.0, grad_avg * grad_avg, square_avg))
        else:
            avg = np.sqrt(square_avg)
        avg = avg + eps
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf[...] = buf * momentum + grad / avg
            _assign(p, fma(-lr, buf, p._data))
        else:
            _assign(p, fma(-lr, grad / avg, p._data))


class Adagrad(_Stepper):
    """Adagrad (Duchi et al.), with PyTorch's lr_decay and initial accumulator."""

    def __init__(self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        lr, lr_decay, weight_decay, initial, eps = _nonnegative(
            lr=lr, lr_decay=lr_decay, weight_decay=weight_decay, initial_accumulator_value=initial_accumulator_value,
            eps=eps)
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial, "foreach": foreach,
                                  "maximize": bool(maximize), "differentiable": False, "fused": fused})
        # PyTorch fills the state when the optimizer is made, not at the first step
        for group in self.param_groups:
            for p in group["params"]:
                self.init_state(p, self.state.setdefault(p, {}), group)

    option_keys = ("lr", "lr_decay", "eps", "weight_decay", "initial_accumulator_value", "maximize")

    def state_keys(self, options):
        return ("sum",)

    def init_state(self, p, state, group):
        state["step"] = _step_counter()
        state["sum"] = _state_tensor(np.full_like(p._data, group["initial_accumulator_value"]))

    def update(self, p, grad, state, group, step):
        if group["weight_decay"] != 0:
            grad = fma(group["weight_decay"], p._data, grad)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        total = state["sum"]
        total[...] = total + grad * grad
        std = np.sqrt(total) + group["eps"]
        _assign(p, fma(-clr, grad / std, p._data))


def _assign(p: Tensor, value) -> None:
    """Write `value` into p's own storage (shared with `.data` and `detach()`), bumping its version."""
    data = p._data
    if data.__class__ is not np.ndarray or not data.flags.writeable:
        p._data = data = np.array(data)
    data[...] = value
    bump_version(p)


# -- a correctly rounded fused multiply-add on arrays -----------------------------------
#
# numpy has no fma, nor Python before 3.13. Boldo and Melquiond ("Emulation of
# FMA and correctly rounded sums: proved algorithms using rounding to odd",
# IEEE Trans. Computers 2008) give one from exact products and sums: with
# a*b = uh + ul and c + uh = th + tl exactly, RN(th + RO(tl + ul)) is
# RN(a*b + c), where RO rounds to odd. Overflow or non-finite inputs fall back
# to the plain expression.

_SPLITTER = 134217729.0  # 2**27 + 1: Veltkamp's split of a double into two 26-bit halves


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a, b):
    p = a * b
    ca = _SPLITTER * a
    ah = ca - (ca - a)
    al = a - ah
    cb = _SPLITTER * b
    bh = cb - (cb - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd_sum(a, b):
    s, err = _two_sum(a, b)
    even = (s.view(np.int64) & 1) == 0
    toward = np.where(err > 0, np.inf, -np.inf)
    return np.where((err != 0) & even, np.nextafter(s, toward), s)


def fma(a, b, c, dtype=np.float64) -> np.ndarray:
    """a * b + c with a single rounding, elementwise (what PyTorch's add(alpha=) computes), in
    `dtype`: a narrower float's is the float64 result rounded once more (its exact product
    fits a double)."""
    if dtype != np.float64:
        a, b, c = (np.asarray(x, dtype=dtype).astype(np.float64) for x in (a, b, c))
        return np.asarray(a * b + c).astype(dtype)
    a, b, c = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (a, b, c)))
    with np.errstate(over="ignore", invalid="ignore"):
        uh, ul = _two_prod(a, b)
        th, tl = _two_sum(c, uh)
        z = th + _round_to_odd_sum(tl, ul)
        plain = a * b + c
    return np.where(np.isfinite(z), z, plain)

