"""gradcheck and gradgradcheck: analytical derivatives against central differences.

`compare` is the one implementation: it returns every (output, input) pair with
its worst element, so that the library's `gradcheck` (first mismatch, raised or
False) and the CLI's report (a table of all pairs) read the same numbers.
`gradgradcheck` is `gradcheck` applied to `grad(..., create_graph=True)`, not
a second implementation. The pass rule is PyTorch's:
|analytical - numerical| <= atol + rtol * |numerical|.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import CheckFailed, ProgramTypeError
from .._tensor import Tensor, no_grad
from .callback import call_program
from .engine import grad as autograd_grad


class GradcheckError(CheckFailed, RuntimeError):
    """A gradient check found a mismatch."""


@dataclass
class PairResult:
    """How the derivative of one output with respect to one input compared."""

    output: int
    input: int
    ok: bool
    max_abs_error: float
    worst_index: tuple
    analytical: float
    numerical: float
    analytical_jacobian: np.ndarray | None = None
    numerical_jacobian: np.ndarray | None = None


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func, inputs):
    outputs = _as_tuple(call_program("gradcheck", None, func, *inputs))
    for o in outputs:
        if not isinstance(o, Tensor) and o is not None:
            raise ProgramTypeError(f"gradcheck: the function returned a {type(o).__name__}, "
                                   "expected a Tensor or a tuple of Tensors")
    return [o for o in outputs if isinstance(o, Tensor)]


def numerical_jacobian(func, inputs, eps=1e-6):
    """[output][input] arrays of shape (out.numel(), in.numel()) by central differences."""
    # Not under no_grad: the function may itself differentiate (gradgradcheck's does).
    # The inputs' arrays are perturbed in place, which no version counter sees.
    diff = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    outs = _outputs(func, inputs)
    jac = [[np.zeros((o._data.size, inputs[i]._data.size)) for i in diff] for o in outs]
    for k, i in enumerate(diff):
        x = inputs[i]._data
        flat = x.reshape(-1)
        if not np.shares_memory(flat, x):
            raise ValueError("gradcheck needs inputs with contiguous storage")
        for j in range(flat.size):
            orig = flat[j]
            flat[j] = orig + eps
            plus = [o._data.reshape(-1).copy() for o in _outputs(func, inputs)]
            flat[j] = orig - eps
            minus = [o._data.reshape(-1).copy() for o in _outputs(func, inputs)]
            flat[j] = orig
            for m in range(len(outs)):
                jac[m][k][:, j] = (plus[m] - minus[m]) / (2 * eps)
    return jac


def analytical_jacobian(func, inputs):
    """[output][input] arrays of shape (out.numel(), in.numel()), one backward per output element."""
    diff = [inputs[i] for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    outs = _outputs(func, inputs)
    jac = [[np.zeros((o._data.size, t._data.size)) for t in diff] for o in outs]
    for m, out in enumerate(outs):
        if not out.requires_grad:
            continue
        for r in range(out._data.size):
            seed = np.zeros(out._data.size)
            seed[r] = 1.0
            grads = autograd_grad(out, diff, Tensor._make(seed.reshape(out._data.shape)),
                                  retain_graph=True, allow_unused=True)
            for k, g in enumerate(grads):
                if g is not None:
                    jac[m][k][r, :] = g._data.reshape(-1)
    return jac


def _pair(m, k, a, n, atol, rtol, keep) -> PairResult:
    err = np.abs(a - n)
    bad = err > atol + rtol * np.abs(n)
    bad |= np.isnan(a) != np.isnan(n)
    ok = not bad.any()
    if err.size:
        score = np.where(np.isnan(err), np.inf, err)
        flat = int(np.argmax(np.where(bad, np.inf, score))) if not ok else int(np.argmax(score))
        worst = np.unravel_index(flat, a.shape)
        return PairResult(m, k, ok, float(err.reshape(-1)[flat]), tuple(int(i) for i in worst),
                          float(a.reshape(-1)[flat]), float(n.reshape(-1)[flat]),
                          a if keep else None, n if keep else None)
    return PairResult(m, k, True, 0.0, (), 0.0, 0.0)


def compare(func, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, fast_mode=False, keep=False, seed=0):
    """Every (output, input) pair's comparison of analytical and numerical derivatives."""
    inputs = _as_tuple(inputs)
    if fast_mode:
        return _compare_fast(func, inputs, eps, atol, rtol, seed)
    num = numerical_jacobian(func, inputs, eps)
    ana = analytical_jacobian(func, inputs)
    return [_pair(m, k, ana[m][k], num[m][k], atol, rtol, keep)
            for m in range(len(num)) for k in range(len(num[m]))]


def _compare_fast(func, inputs, eps, atol, rtol, seed):
    """PyTorch's fast mode: compare v^T J u for random u, v instead of whole Jacobians."""
    rng = np.random.default_rng(seed)
    diff = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    outs = _outputs(func, inputs)
    results = []
    for m, out in enumerate(outs):
        v = rng.uniform(0.0, 1.0, out._data.shape)
        grads = autograd_grad(out, [inputs[i] for i in diff], Tensor._make(v),
                              retain_graph=True, allow_unused=True)
        for k, i in enumerate(diff):
            x = inputs[i]._data
            u = rng.uniform(0.0, 1.0, x.shape)
            analytical = float(np.sum(grads[k]._data * u)) if grads[k] is not None else 0.0
            orig = x.copy()
            x += eps * u
            plus = _outputs(func, inputs)[m]._data.copy()
            x[...] = orig - eps * u
            minus = _outputs(func, inputs)[m]._data.copy()
            x[...] = orig
            numerical = float(np.sum(v * (plus - minus) / (2 * eps)))
            results.append(_pair(m, k, np.asarray([analytical]), np.asarray([numerical]),
                                 atol, rtol, False))
    return results


def _message(r: PairResult, fast: bool) -> str:
    where = f"output {r.output} with respect to input {r.input}"
    if fast:
        return (f"Jacobian mismatch for {where}, in fast mode: the projections v^T J u differ: "
                f"numerical {r.numerical!r}, analytical {r.analytical!r}")
    return (f"Jacobian mismatch for {where}, at element {list(r.worst_index)} "
            f"(row: output element, column: input element):\n"
            f"numerical:{r.numerical!r}\nanalytical:{r.analytical!r}\n")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None) -> bool:
    """True when `func`'s analytical derivatives match central differences at `inputs`."""
    inputs = _as_tuple(inputs)
    if not any(isinstance(t, Tensor) and t.requires_grad for t in inputs):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for r in compare(func, inputs, eps, atol, rtol, fast_mode):
        if not r.ok:
            if raise_exception:
                raise GradcheckError(_message(r, fast_mode))
            return False
    return True


def _grad_function(func, n_inputs, diff):
    """The function gradgradcheck checks: inputs and grad_outputs to the first derivatives."""
    def first_derivatives(*args):
        inputs, grad_outputs = args[:n_inputs], args[n_inputs:]
        outs = _outputs(func, inputs)
        grads = autograd_grad(outs, [inputs[i] for i in diff], list(grad_outputs),
                              create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)
    return first_derivatives


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False, seed=0) -> bool:
    """gradcheck of the first derivatives (with create_graph=True): second order."""
    inputs = _as_tuple(inputs)
    diff = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if grad_outputs is None:
        rng = np.random.default_rng(seed)
        with no_grad():
            outs = _outputs(func, inputs)
        grad_outputs = tuple(Tensor(rng.uniform(-1, 1, o._data.shape), requires_grad=True) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    return gradcheck(_grad_function(func, len(inputs), diff), inputs + grad_outputs, eps=eps,
                     atol=atol, rtol=rtol, raise_exception=raise_exception, fast_mode=fast_mode)
