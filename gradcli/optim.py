"""`torch.optim.SGD`: stochastic gradient descent with PyTorch's momentum semantics.

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

from .errors import ProgramTypeError, ProgramValueError
from ._tensor import Tensor

__all__ = ["SGD", "Optimizer"]


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
        groups = list(params)
        if not groups:
            raise ProgramValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, group: dict) -> None:
        if not isinstance(group, dict):
            raise ProgramTypeError(f"param_group must be a dict, but got {type(group).__name__}")
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
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
        for group in self.param_groups:
            for p in group["params"]:
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
                    p.grad._counter[0] += 1

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _number(value, what: str) -> float:
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise ProgramTypeError(f"{what} must be a number, not {type(value).__name__}")
    return float(value)


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum, Nesterov momentum and weight decay."""

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False, fused=None):
        lr = _number(lr, "lr")
        momentum = _number(momentum, "momentum")
        dampening = _number(dampening, "dampening")
        weight_decay = _number(weight_decay, "weight_decay")
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
        loss = None
        if closure is not None:
            from ._tensor import enable_grad

            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr = group["lr"]
            momentum = group["momentum"]
            dampening = group["dampening"]
            weight_decay = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                dtype = p._data.dtype
                d_p = np.asarray(p.grad._data, dtype=dtype)
                if group["maximize"]:
                    d_p = -d_p
                if weight_decay != 0:
                    d_p = fma(weight_decay, p._data, d_p, dtype)
                if momentum != 0:
                    state = self.state.setdefault(p, {})
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = np.array(d_p, dtype=dtype, copy=True)
                    else:
                        buf = fma(1.0 - dampening, d_p, buf * dtype.type(momentum), dtype)
                    state["momentum_buffer"] = buf
                    d_p = fma(momentum, buf, d_p, dtype) if group["nesterov"] else buf
                _assign(p, fma(-lr, d_p, p._data, dtype))
        return loss


def _assign(p: Tensor, value) -> None:
    """Write `value` into p's own storage (shared with `.data` and `detach()`), bumping its version."""
    data = p._data
    if data.__class__ is not np.ndarray or not data.flags.writeable:
        p._data = data = np.array(data)
    data[...] = value
    p._counter[0] += 1


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
