"""`torch.optim.LBFGS`: limited-memory BFGS over all parameters flattened into one vector,
PyTorch's algorithm step for step (`torch/optim/lbfgs.py`, after minFunc), with its
fixed step (`line_search_fn=None`) or its strong-Wolfe line search.

`step(closure)` calls the program's closure (which recomputes the loss and its
gradients) up to `max_eval` times. The search directions and curvature pairs live in
the optimizer (`_memory`); `state[first parameter]` shows them as copies, with the
counters `func_evals` and `n_iter`, which are read back (checked) as PyTorch reads them:
a program that sets `n_iter` to 0 restarts the history, as in PyTorch.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, enable_grad
from ..errors import ProgramError, ProgramTypeError, ProgramValueError, type_name
from ..limits import budget
from . import checks
from .optimizers import Optimizer, _assign, _closure_loss, _number, fma

__all__ = ["LBFGS"]


def _dot(a, b) -> float:
    """torch.dot: products rounded, then summed (numpy's `dot` fuses them, and two-element
    dots then differ from PyTorch's in the last bit, which L-BFGS on Rosenbrock amplifies)."""
    return float(np.sum(a * b))


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through two points with their slopes, kept in `bounds`."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square ** 0.5
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """PyTorch's `_strong_wolfe`: bracket a step meeting the strong Wolfe conditions, then zoom."""
    d_norm = float(np.max(np.abs(d)))
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = _dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = _dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = _dot(g_new, d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


def _loss_value(loss) -> float:
    """`float(closure())`: a number or a one-element Tensor."""
    if isinstance(loss, Tensor):
        if loss._data.size != 1:
            raise ProgramError("a Tensor with " f"{loss._data.size} elements cannot be converted to Scalar")
        return float(loss._data.reshape(()).item())
    if loss is None:
        raise ProgramTypeError("float() argument must be a string or a real number, not 'NoneType'")
    return float(loss)


def _counter(state: dict, key: str) -> int:
    value = state.setdefault(key, 0)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ProgramTypeError(f"the optimizer's state '{key}' must be an int, not {type_name(value)}")
    return int(value)


class LBFGS(Optimizer):
    """L-BFGS with one parameter group; `step(closure)` runs up to `max_iter` iterations."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if not _number(lr, "lr") >= 0.0:
            raise ProgramValueError(f"Invalid learning rate: {lr}")
        for name, value in (("max_iter", max_iter), ("history_size", history_size)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ProgramTypeError(f"{name} must be an int, not {type_name(value)}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                                  "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                                  "history_size": history_size, "line_search_fn": line_search_fn})
        if len(self.param_groups) != 1:
            raise ProgramValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._memory: dict = {}

    def _params(self) -> list:
        (group, params), = checks.groups(self)
        if not params:
            raise ProgramValueError("LBFGS has no parameters to optimize")
        return params

    def _flat_grad(self, params) -> np.ndarray:
        views = [np.zeros(p._data.size, p._data.dtype) if p.grad is None else
                 np.asarray(p.grad._data, p._data.dtype).reshape(-1) for p in params]
        return np.concatenate(views)

    def _add_grad(self, params, step_size, update) -> None:
        offset = 0
        for p in params:
            n = p._data.size
            _assign(p, fma(step_size, update[offset:offset + n].reshape(p._data.shape), p._data,
                           p._data.dtype))
            offset += n

    def _evaluate(self, closure) -> float:
        with enable_grad():
            return _loss_value(_closure_loss(closure))

    def step(self, closure):
        """Run up to max_iter iterations of L-BFGS; returns the loss of the first closure call."""
        if len(self.param_groups) != 1:
            raise ProgramValueError(f"Expected exactly one param_group, but got {len(self.param_groups)}")
        group = self.param_groups[0]
        lr = checks.number(group, "lr")
        max_iter, max_eval = int(checks.number(group, "max_iter")), int(checks.number(group, "max_eval"))
        tolerance_grad = checks.number(group, "tolerance_grad")
        tolerance_change = checks.number(group, "tolerance_change")
        history_size = int(checks.number(group, "history_size"))
        if history_size < 1:
            raise ProgramValueError(f"history_size must be at least 1, got {history_size}")
        line_search_fn = checks.option(group, "line_search_fn")
        params = self._params()
        state = checks.state_of(self, params[0])
        func_evals, n_total = _counter(state, "func_evals"), _counter(state, "n_iter")

        with enable_grad():
            orig_loss = _closure_loss(closure)
        loss = _loss_value(orig_loss)
        current_evals = 1
        func_evals += 1
        state["func_evals"] = func_evals
        flat_grad = self._flat_grad(params)
        if np.max(np.abs(flat_grad)) <= tolerance_grad:
            return orig_loss
        mem = self._memory
        d, t = mem.get("d"), mem.get("t")
        old_dirs, old_stps, ro = mem.get("old_dirs"), mem.get("old_stps"), mem.get("ro")
        H_diag, prev_flat_grad, prev_loss = mem.get("H_diag"), mem.get("prev_flat_grad"), mem.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            n_total += 1
            state["n_iter"] = n_total
            budget.charge_elements(flat_grad.size * (4 * len(old_dirs or ()) + 16))
            if n_total == 1 or d is None:
                d = -flat_grad
                old_dirs, old_stps, ro, H_diag = [], [], [], 1.0
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = _dot(y, s)
                if ys > 1e-10:
                    if len(old_dirs) >= history_size:
                        del old_dirs[:len(old_dirs) - history_size + 1]
                        del old_stps[:len(old_stps) - history_size + 1]
                        del ro[:len(ro) - history_size + 1]
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / _dot(y, y)
                num_old = len(old_dirs)
                al = [0.0] * num_old
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = _dot(old_stps[i], q) * ro[i]
                    q = fma(-al[i], old_dirs[i], q, q.dtype)
                d = r = q * H_diag
                for i in range(num_old):
                    be_i = _dot(old_dirs[i], r) * ro[i]
                    r = fma(al[i] - be_i, old_stps[i], r, r.dtype)
                d = r
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if n_total == 1:
                t = min(1.0, 1.0 / float(np.sum(np.abs(flat_grad)))) * lr
            else:
                t = lr
            gtd = _dot(flat_grad, d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise ProgramError("only 'strong_wolfe' is supported")
                x_init = [p._data.copy() for p in params]

                def obj_func(x, step, direction):
                    self._add_grad(params, step, direction)
                    value = self._evaluate(closure)
                    grad = self._flat_grad(params)
                    for p, data in zip(params, x):
                        _assign(p, data)
                    return value, grad

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_grad(params, t, d)
                opt_cond = np.max(np.abs(flat_grad)) <= tolerance_grad
            else:
                self._add_grad(params, t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = self._evaluate(closure)
                    flat_grad = self._flat_grad(params)
                    opt_cond = np.max(np.abs(flat_grad)) <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            func_evals += ls_func_evals
            state["func_evals"] = func_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.max(np.abs(d * t)) <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break
        mem.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                   prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        self._show(state)
        return orig_loss

    def _show(self, state: dict) -> None:
        """The memory, copied into `state` as PyTorch keeps it there (a program reads, never writes it back)."""
        mem = self._memory
        budget.charge_elements(mem["d"].size * (2 * len(mem["old_dirs"]) + 2))
        state["d"] = Tensor._make(mem["d"].copy())
        state["t"] = mem["t"]
        state["old_dirs"] = [Tensor._make(v.copy()) for v in mem["old_dirs"]]
        state["old_stps"] = [Tensor._make(v.copy()) for v in mem["old_stps"]]
        state["ro"] = list(mem["ro"])
        state["H_diag"] = mem["H_diag"]
        state["prev_flat_grad"] = Tensor._make(mem["prev_flat_grad"].copy())
        state["prev_loss"] = mem["prev_loss"]
