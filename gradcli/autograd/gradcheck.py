"""gradcheck and gradgradcheck: analytical derivatives against central differences.

The one place for a gradient check's numbers: `derivatives` gives, for every
(output, input) pair, the engine's Jacobian block (functional's one-hot loop)
beside the central differences, or in fast mode (PyTorch's) the projections
v^T J u for random u, v; `mismatch` is the pass rule and `worst` the element to
report. The library's `gradcheck` (first mismatch, raised or False) reads them
through `compare`; the CLI's report (`check.core`) reads the same blocks and
adds what it knows beyond them: kinks, SymPy. `gradgradcheck` is `gradcheck`
applied to `first_derivatives` (`grad(..., create_graph=True)`), not a second
implementation. The pass rule is PyTorch's:
|analytical - numerical| <= atol + rtol * |numerical|.
"""
from __future__ import annotations

import numpy as np

from ..errors import CheckFailed, ProgramTypeError
from .._tensor import Tensor, no_grad
from ..graph.callback import call_program
from .engine import grad as autograd_grad
from .functional import jacobian_blocks


class GradcheckError(CheckFailed, RuntimeError):
    """A gradient check found a mismatch."""


class _Record:
    """A plain record of named fields (`_FIELDS`, the defaults after the required ones): init,
    repr and == as a dataclass's (not one: `dataclass` costs 2M instructions per class at
    import, and this module loads with every `import gradcli`)."""

    _FIELDS: tuple = ()
    _DEFAULTS: dict = {}
    __hash__ = None   # (mutable, compared by value, as a dataclass with eq)

    def __init__(self, *args, **kwargs):
        names = self._FIELDS
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes {len(names)} arguments, got {len(args)}")
        values = dict(zip(names, args))
        for name, value in kwargs.items():
            if name not in names or name in values:
                raise TypeError(f"{type(self).__name__}() got an unexpected or repeated argument "
                                f"'{name}'")
            values[name] = value
        for name in names:
            if name not in values:
                if name not in self._DEFAULTS:
                    raise TypeError(f"{type(self).__name__}() missing argument '{name}'")
                values[name] = self._DEFAULTS[name]
        self.__dict__.update(values)

    def __repr__(self) -> str:
        inside = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"{type(self).__qualname__}({inside})"

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return tuple(getattr(self, n) for n in self._FIELDS) == tuple(getattr(other, n) for n in self._FIELDS)


class PairResult(_Record):
    """How the derivative of one output with respect to one input compared: output, input,
    ok, max_abs_error, worst_index, analytical, numerical (the worst element's), and the two
    Jacobians when kept."""

    _FIELDS = ("output", "input", "ok", "max_abs_error", "worst_index", "analytical", "numerical",
               "analytical_jacobian", "numerical_jacobian")
    _DEFAULTS = {"analytical_jacobian": None, "numerical_jacobian": None}


class Derivatives(_Record):
    """d output m / d input k by the engine and by differences.

    A whole Jacobian block (rows: output elements, columns: input elements), or in
    fast mode the 1 x 1 block v^T J u for the random `v` (shaped as the output) and
    `u` (shaped as the input). The one-sided differences are there when asked for.
    Fields: analytical, central (arrays); forward, backward, v, u (arrays or None).
    """

    _FIELDS = ("analytical", "central", "forward", "backward", "v", "u")
    _DEFAULTS = {"forward": None, "backward": None, "v": None, "u": None}


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def differentiable(inputs) -> list:
    """The indices of the inputs that require grad: the ones checked."""
    return [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _outputs(func, inputs) -> list:
    outputs = _as_tuple(call_program("gradcheck", None, func, *inputs))
    for o in outputs:
        if not isinstance(o, Tensor) and o is not None:
            raise ProgramTypeError(f"gradcheck: the function returned a {type(o).__name__}, "
                                   "expected a Tensor or a tuple of Tensors")
    return [o for o in outputs if isinstance(o, Tensor)]


def evaluate(func, inputs, differentiates: bool = True) -> list:
    """`func`'s outputs at `inputs` as flat float64 copies; under no_grad unless the
    function itself differentiates (gradgradcheck's does)."""
    if differentiates:
        outs = _outputs(func, inputs)
    else:
        with no_grad():
            outs = _outputs(func, inputs)
    return [np.array(o._data, dtype=np.float64).reshape(-1) for o in outs]


def perturbed(func, inputs, x: Tensor, where, step: float, differentiates: bool = True) -> tuple:
    """`func`'s outputs (as `evaluate`) with the input `x` moved by +step and -step: in its
    element `where` (an int), or along the direction `where` (an array shaped as x).

    The input's array is changed in place, which no version counter sees, and restored.
    """
    data = x._data
    if isinstance(where, np.ndarray):
        orig = data.copy()
        try:
            data[...] = orig + step * where
            plus = evaluate(func, inputs, differentiates)
            data[...] = orig - step * where
            minus = evaluate(func, inputs, differentiates)
        finally:
            data[...] = orig
        return plus, minus
    flat = data.reshape(-1)
    if not np.shares_memory(flat, data):
        raise ValueError("gradcheck needs inputs with contiguous storage")
    orig = flat[where]
    try:
        flat[where] = orig + step
        plus = evaluate(func, inputs, differentiates)
        flat[where] = orig - step
        minus = evaluate(func, inputs, differentiates)
    finally:
        flat[where] = orig
    return plus, minus


def central_difference(plus, minus, step: float, v=None):
    """(f(x + step) - f(x - step)) / 2 step, or its projection v^T (...) on the output."""
    if v is None:
        return (plus - minus) / (2 * step)
    return v @ (plus - minus) / (2 * step)


def _one_sided(plus, base, minus, step, v=None) -> tuple:
    """The forward and backward differences (f(x + step) - f(x)) / step, (f(x) - f(x - step)) / step."""
    if v is None:
        return (plus - base) / step, (base - minus) / step
    return v @ (plus - base) / step, v @ (base - minus) / step


def numerical_jacobian(func, inputs, eps=1e-6, differentiates=True, one_sided=False):
    """[output][input] arrays of shape (out.numel(), in.numel()) by central differences.

    With `one_sided`, also the forward and backward differences: (central, forward, backward).
    """
    wrt = differentiable(inputs)
    base = evaluate(func, inputs, differentiates)
    central = [[np.zeros((b.size, inputs[i]._data.size)) for i in wrt] for b in base]
    forward = [[np.zeros_like(c) for c in row] for row in central] if one_sided else None
    backward = [[np.zeros_like(c) for c in row] for row in central] if one_sided else None
    for k, i in enumerate(wrt):
        for j in range(inputs[i]._data.size):
            plus, minus = perturbed(func, inputs, inputs[i], j, eps, differentiates)
            for m, b in enumerate(base):
                central[m][k][:, j] = central_difference(plus[m], minus[m], eps)
                if one_sided:
                    forward[m][k][:, j], backward[m][k][:, j] = _one_sided(plus[m], b, minus[m], eps)
    return (central, forward, backward) if one_sided else central


def analytical_jacobian(func, inputs):
    """[output][input] arrays of shape (out.numel(), in.numel()), one backward per output element."""
    xs = [inputs[i] for i in differentiable(inputs)]
    return [[block._data.reshape(out._data.size, x._data.size)
             for block, x in zip(jacobian_blocks(out, xs), xs)]
            for out in _outputs(func, inputs)]


def derivatives(func, inputs, eps=1e-6, *, fast=False, rng=None, differentiates=True,
                one_sided=False, original=None) -> list:
    """[output][input] Derivatives of `func` at `inputs` (those that require grad).

    `original` = (outputs, inputs): take the analytical side from that graph (a
    program's own, with its hooks) rather than from `func`, its replay.
    """
    inputs = _as_tuple(inputs)
    if fast:
        return _projections(func, inputs, eps, rng or np.random.default_rng(0), differentiates,
                            one_sided, original)
    if original is not None:
        ana = analytical_jacobian(lambda *_: original[0], list(original[1]))
    else:
        ana = analytical_jacobian(func, inputs)
    num = numerical_jacobian(func, inputs, eps, differentiates, one_sided)
    central, forward, backward = num if one_sided else (num, None, None)
    return [[Derivatives(ana[m][k], central[m][k], *((forward[m][k], backward[m][k]) if one_sided else ()))
             for k in range(len(central[m]))] for m in range(len(central))]


def _projections(func, inputs, eps, rng, differentiates, one_sided, original) -> list:
    """PyTorch's fast mode: v^T J u for random u, v instead of whole Jacobians, as 1 x 1 blocks."""
    wrt = differentiable(inputs)
    outs = _outputs(func, inputs) if original is None else list(_as_tuple(original[0]))
    xs = [inputs[i] for i in wrt] if original is None else list(original[1])
    base = evaluate(func, inputs, differentiates) if one_sided else None
    vs = [rng.uniform(0.0, 1.0, o._data.shape) for o in outs]
    us = [rng.uniform(0.0, 1.0, inputs[i]._data.shape) for i in wrt]
    ana = [[0.0] * len(wrt) for _ in outs]
    for m, out in enumerate(outs):
        if out.requires_grad:
            grads = autograd_grad(out, xs, Tensor._make(vs[m]), retain_graph=True, allow_unused=True)
            ana[m] = [float(np.sum(g._data * u)) if g is not None else 0.0 for g, u in zip(grads, us)]

    def one(value):
        return np.array([[value]], dtype=np.float64)

    blocks = [[None] * len(wrt) for _ in outs]
    for k, i in enumerate(wrt):
        plus, minus = perturbed(func, inputs, inputs[i], us[k], eps, differentiates)
        for m, v in enumerate(vs):
            d = Derivatives(one(ana[m][k]), one(central_difference(plus[m], minus[m], eps, v.reshape(-1))),
                            v=v, u=us[k])
            if one_sided:
                f, b = _one_sided(plus[m], base[m], minus[m], eps, v.reshape(-1))
                d.forward, d.backward = one(f), one(b)
            blocks[m][k] = d
    return blocks


def mismatch(analytical, reference, atol, rtol) -> np.ndarray:
    """Where PyTorch's pass rule fails: |a - r| > atol + rtol * |r|, or NaN on one side only."""
    with np.errstate(invalid="ignore"):
        return ((np.abs(analytical - reference) > atol + rtol * np.abs(reference))
                | (np.isnan(analytical) != np.isnan(reference)))


def worst(err: np.ndarray, bad: np.ndarray, score: np.ndarray | None = None) -> int:
    """The flat index to report: the first failing element, else the largest `score`
    (by default the error, NaN counted largest)."""
    if score is None:
        score = np.where(np.isnan(err), np.inf, err)
    return int(np.argmax(np.where(bad, np.inf, score) if bad.any() else score))


def _pair(m, k, a, n, atol, rtol, keep) -> PairResult:
    if not a.size:
        return PairResult(m, k, True, 0.0, (), 0.0, 0.0)
    err = np.abs(a - n)
    bad = mismatch(a, n, atol, rtol)
    flat = worst(err, bad)
    index = np.unravel_index(flat, a.shape)
    return PairResult(m, k, not bad.any(), float(err.reshape(-1)[flat]), tuple(int(i) for i in index),
                      float(a.reshape(-1)[flat]), float(n.reshape(-1)[flat]),
                      a if keep else None, n if keep else None)


def compare(func, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, fast_mode=False, keep=False, seed=0):
    """Every (output, input) pair's comparison of analytical and numerical derivatives."""
    blocks = derivatives(func, inputs, eps, fast=fast_mode, rng=np.random.default_rng(seed))
    shape = (lambda a: a.reshape(-1)) if fast_mode else (lambda a: a)
    return [_pair(m, k, shape(d.analytical), shape(d.central), atol, rtol, keep and not fast_mode)
            for m, row in enumerate(blocks) for k, d in enumerate(row)]


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
    if not differentiable(inputs):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    _warn_if_not_double(inputs)
    for r in compare(func, inputs, eps, atol, rtol, fast_mode):
        if not r.ok:
            if raise_exception:
                raise GradcheckError(_message(r, fast_mode))
            return False
    return True


def _warn_if_not_double(inputs) -> None:
    """PyTorch's warning for an input that requires grad and is not float64."""
    import warnings

    for idx, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x._data.dtype != np.float64:
            warnings.warn(f"Input #{idx} requires gradient and is not a double precision floating point or "
                          "complex. This check will likely fail if all the inputs are not of double "
                          "precision floating point or complex. ", UserWarning, stacklevel=3)


def first_derivatives(func, n_inputs: int, wrt, keep_unused: bool = False):
    """The function gradgradcheck checks: (inputs..., grad_outputs...) to the first derivatives
    grad(func(inputs), inputs[wrt], grad_outputs, create_graph=True).

    A derivative the outputs do not reach is left out, as PyTorch does; with
    `keep_unused` it is zeros instead, so that the result has one tensor per input.
    """
    def derivatives_of(*args):
        inputs, grad_outputs = args[:n_inputs], args[n_inputs:]
        outs = _outputs(func, inputs)
        xs = [inputs[i] for i in wrt]
        if keep_unused and not any(o.requires_grad for o in outs):
            grads = (None,) * len(xs)
        else:
            grads = autograd_grad(outs, xs, list(grad_outputs), create_graph=True, allow_unused=True)
        if keep_unused:
            return tuple(g if g is not None else Tensor._make(np.zeros_like(x._data))
                         for g, x in zip(grads, xs))
        return tuple(g for g in grads if g is not None)
    return derivatives_of


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False, seed=0) -> bool:
    """gradcheck of the first derivatives (with create_graph=True): second order."""
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(seed)
        with no_grad():
            outs = _outputs(func, inputs)
        grad_outputs = tuple(Tensor(rng.uniform(-1, 1, o._data.shape), requires_grad=True) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    return gradcheck(first_derivatives(func, len(inputs), differentiable(inputs)), inputs + grad_outputs,
                     eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception, fast_mode=fast_mode)
