"""The `nn` functions (F.<name>): softmax, log_softmax, the losses, linear.

softmax, log_softmax, mse_loss, binary_cross_entropy and nll_loss are ops with
PyTorch's node names. cross_entropy and linear are composed as PyTorch composes
them: cross_entropy is log_softmax then NllLossBackward0 for class-index
targets (a float tensor of integral values, since every tensor is float64) and
a weighted sum of log_softmax for probability targets (a target of the input's
shape); linear is mm/addmm with `weight.t()`, through matmul for other ranks.
relu, sigmoid, tanh and softplus, defined in elementwise.py, are published as
F. functions here, beside the activations PyTorch has only in F: gelu, silu,
leaky_relu, elu, hardtanh and logsigmoid are ops with PyTorch's node names;
softsign is composed as PyTorch composes it, input / (input.abs() + 1); so is
normalize. one_hot and dropout make no node of their own.
"""
from __future__ import annotations

import numpy as np

import math

from ..dtypes import as_floating, get_default_dtype
from ..errors import ProgramError, ProgramTypeError, ProgramValueError, ShapeError
from .._tensor import Tensor, _dim, as_int, check_elements, no_grad
from .shapes import broadcast_shapes
from .domains import cases, unary, vectorize
from .elementwise import _erf, _sigmoid
from . import costs, torch_math, torch_order
from .apply import apply
from .registry import FUNCTIONS, NN_FUNCTIONS, TENSORS, defop, export, LINEAR, POINTWISE, SYMMETRIC
from . import factories

REDUCTIONS = ("none", "mean", "sum")
# PyTorch's binary_cross_entropy floors each log at -100, and its backward
# divides by max(x (1 - x), EPSILON), EPSILON being a C++ float 1e-12.
_LOG_FLOOR = -100.0
_BCE_EPSILON = float(np.float32(1e-12))


def _shape(x) -> tuple:
    return tuple(np.shape(x._data if isinstance(x, Tensor) else x))


def _numpy(x):
    """A parameter's numpy value (a Tensor's array, or a list or number as an array)."""
    if x is None:
        return None
    return x._data if isinstance(x, Tensor) else np.asarray(x, dtype=np.float64)


def _check_reduction(reduction):
    if reduction not in REDUCTIONS:
        raise ProgramValueError(f"{reduction} is not a valid value for reduction")


def _reduce(loss, reduction):
    """A loss array reduced as `reduction` says."""
    if reduction == "none":
        return loss
    return torch_order.sum(loss) if reduction == "sum" else torch_order.mean(loss)   # PyTorch's order


def _numel(x) -> int:
    return x._data.size if isinstance(x, Tensor) else np.size(x)


def loss_op(name, node, forward, rules, formulas, sympy, domain):
    """A loss's op: inputs (self, target), a rule and a formula for each; not exported under
    its name (its public function checks PyTorch's arguments, then applies it)."""
    return defop(name, node, forward, inputs=("self", "target"), public=False, rules=rules, formulas=formulas,
                 sympy=sympy, domain=domain)


# -- softmax, log_softmax -------------------------------------------------------


def _softmax_dim(dim, ndim):
    if dim is None:
        # PyTorch's deprecated implicit choice (_get_softmax_dim).
        dim = 0 if ndim in (0, 1, 3) else 1
    d = _dim(dim, ndim)
    return d if ndim else None


def _softmax(self, dim):
    x = as_floating(self)
    if dim is None:
        return np.ones_like(x)
    if not x.size:   # an empty dim: an empty result, as PyTorch's (numpy's max refuses it)
        return x.copy()
    if x.dtype == np.float32:
        return torch_math.softmax32(x, dim)
    e = np.exp(x - np.max(x, axis=dim, keepdims=True))
    return e / np.sum(e, axis=dim, keepdims=True)


def _log_softmax(self, dim):
    x = as_floating(self)
    if dim is None:
        return np.zeros_like(x)
    if not x.size:
        return x.copy()
    if x.dtype == np.float32:
        return torch_math.log_softmax32(x, dim)
    shifted = x - np.max(x, axis=dim, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))


def _sympy_softmax(sp, x, dim, log=False):
    if dim is None:
        return np.full(x.shape, sp.Integer(0) if log else sp.Integer(1), dtype=object)
    e = vectorize(sp.exp)(x)
    s = np.sum(e, axis=dim, keepdims=True)
    return x - vectorize(sp.log)(s) if log else e / s


def _softmax_cases(rng):
    return [((rng.uniform(-2, 2, (2, 3)),), {"dim": 1}),
            ((rng.uniform(-2, 2, (2, 3)),), {"dim": 0}),
            ((rng.uniform(-2, 2, (3,)),), {"dim": 0}),
            ((rng.uniform(-2, 2, ()),), {"dim": None})]


def _log_softmax_tangent(F, t, result, dim):
    """t_self - (exp(result) * t_self).sum(dim, keepdim=True)"""
    return t - F.sum(F.exp(result) * t, dim, keepdim=True)


softmax_op = defop(
    "softmax", "SoftmaxBackward0", _softmax, public=False, cost=costs.softmax_lastdim,
    rules=(lambda F, g, result, dim: result * (g - F.sum(g * result, dim, keepdim=True)),),
    formulas=("result * (grad - (grad * result).sum(dim, keepdim=True))",),
    sympy=lambda sp, x, dim: _sympy_softmax(sp, x, dim),
    domain=_softmax_cases, tangent=SYMMETRIC,
)

log_softmax_op = defop(
    "log_softmax", "LogSoftmaxBackward0", _log_softmax, public=False, cost=costs.softmax,
    rules=(lambda F, g, result, dim: g - F.exp(result) * F.sum(g, dim, keepdim=True),),
    formulas=("grad - exp(result) * grad.sum(dim, keepdim=True)",),
    sympy=lambda sp, x, dim: _sympy_softmax(sp, x, dim, log=True),
    domain=_softmax_cases, tangent=(_log_softmax_tangent,),
)


def _softmax_input(name, input, dim, dtype):
    """softmax's input and dim: converted to `dtype` first, as PyTorch does; an integer or bool
    input refused as its kernel refuses it (named by whether dim is the last)."""
    if dtype is not None:
        input = input.to(dtype)
    ndim = len(_shape(input))
    d = _softmax_dim(dim, ndim)
    if isinstance(input, Tensor) and input._data.dtype.kind != "f":
        kernel = f"{name}_lastdim_kernel_impl" if d is None or d == ndim - 1 else f"{name}_kernel_impl"
        raise ProgramError(f'"{kernel}" not implemented for \'{input.dtype.legacy}\'')
    return input, d


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(input) / exp(input).sum(dim, keepdim=True), computed stably (SoftmaxBackward0); with
    `dtype`, the input is converted first (ToCopyBackward0), as PyTorch does."""
    input, d = _softmax_input("softmax", input, dim, dtype)
    return apply(softmax_op, (input,), {"dim": d})


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """input - logsumexp(input, dim, keepdim=True) (LogSoftmaxBackward0); `dtype` converts first."""
    input, d = _softmax_input("log_softmax", input, dim, dtype)
    return apply(log_softmax_op, (input,), {"dim": d})


export("softmax", softmax, nn=True,
       array=lambda input, dim=None: _softmax(input, _softmax_dim(dim, np.ndim(input))))
export("log_softmax", log_softmax, nn=True,
       array=lambda input, dim=None: _log_softmax(input, _softmax_dim(dim, np.ndim(input))))


# -- mse_loss --------------------------------------------------------------------


def _mse_loss(self, target, reduction="mean"):
    _check_reduction(reduction)
    d = np.subtract(self, target)
    return _reduce(d * d, reduction)


def _mse_grad(F, g, self, target, reduction):
    d = self - target
    scale = 2.0 / max(_numel(d), 1) if reduction == "mean" else 2.0
    return g * d * scale


def _mse_target_grad(F, g, self, target, reduction):
    return -_mse_grad(F, g, self, target, reduction)


mse_loss_op = loss_op(
    "mse_loss", "MseLossBackward0", _mse_loss, (_mse_grad, _mse_target_grad),
    ("grad * 2 * (self - target) (/ numel for mean)", "-grad * 2 * (self - target) (/ numel for mean)"),
    sympy=lambda sp, x, t, reduction="mean": _reduce_object((x - t) ** 2, reduction),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (2, 3))), {}),
                 lambda rng: ((rng.uniform(-2, 2, (3,)), rng.uniform(-2, 2, (3,))), {"reduction": "sum"}),
                 lambda rng: ((rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (2, 3))), {"reduction": "none"}),
                 lambda rng: ((rng.uniform(-2, 2, ()), 0.5), {}),
                 lambda rng: ((rng.uniform(-2, 2, (3,)), 0.25), {"reduction": "mean"})),
)


def _reduce_object(loss, reduction):
    """`_reduce` on an object array of SymPy expressions (0-d results as object arrays)."""
    loss = np.asarray(loss, dtype=object)
    if reduction == "none":
        return loss
    out = np.empty((), dtype=object)
    total = sum(loss.reshape(-1).tolist(), 0)
    out[()] = total if reduction == "sum" else total / loss.size
    return out


def _broadcast_tensors(a, b):
    """PyTorch's broadcast_tensors for two inputs: expand (ExpandBackward0) only the one that changes."""
    sa, sb = _shape(a), _shape(b)
    if sa == sb:
        return a, b
    shape = broadcast_shapes(sa, sb)
    expand = TENSORS.expand
    return (a if sa == shape else expand(a, shape)), (b if sb == shape else expand(b, shape))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean (or sum, or elementwise) squared error (MseLossBackward0).

    Inputs of different shapes are broadcast first, as PyTorch's broadcast_tensors
    does; with `weight`, the loss is composed: sum(weight * (input - target) ** 2) / sum(weight).
    """
    _check_reduction(reduction)
    if not isinstance(target, Tensor):
        target = Tensor(target)
    input, target = _broadcast_tensors(input, target)
    if weight is None:
        return apply(mse_loss_op, (input, target), {"reduction": reduction})
    if _shape(weight) != _shape(input):
        raise ProgramValueError("Weights and input must have the same size.")
    errors = TENSORS.pow(input - target, 2) * weight
    if reduction == "none":
        return errors
    total = TENSORS.sum(errors)
    return total if reduction == "sum" else total / TENSORS.sum(weight)


export("mse_loss", mse_loss, method=False, nn=True,
       array=lambda input, target, reduction="mean": _mse_loss(input, target, reduction))


# -- binary_cross_entropy ---------------------------------------------------------


def _binary_cross_entropy(self, target, weight=None, reduction="mean"):
    _check_reduction(reduction)
    x = np.asarray(self, dtype=np.float64)
    t = np.asarray(target, dtype=np.float64)
    if np.any((x < 0) | (x > 1)) or np.any(np.isnan(x)):
        raise ProgramValueError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore"):
        log_x = np.maximum(np.log(x), _LOG_FLOOR)
        log_1mx = np.maximum(np.log1p(-x), _LOG_FLOOR)
    loss = -(t * log_x + (1.0 - t) * log_1mx)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _bce_input_grad(F, g, self, target, weight, reduction):
    denom = (1.0 - self) * self
    out = g * (self - target) / F.where(denom > _BCE_EPSILON, denom, _BCE_EPSILON)
    return _bce_scale(out, weight, reduction, self)


def _bce_target_grad(F, g, self, weight, reduction):
    # PyTorch's binary_cross_entropy_target_backward: grad * -logit(self).
    out = g * (F.log(1.0 - self) - F.log(self))
    return _bce_scale(out, weight, reduction, self)


def _bce_scale(out, weight, reduction, self):
    """A gradient times the weight, then divided by numel for 'mean' (the binary cross
    entropies', with and without logits)."""
    if weight is not None:
        out = out * weight
    if reduction == "mean":
        out = out / float(max(_numel(self), 1))
    return out


def _sympy_bce(sp, x, t, weight=None, reduction="mean"):
    log = vectorize(sp.log)
    loss = -(t * log(x) + (1 - t) * log(1 - x))
    if weight is not None:
        loss = loss * np.broadcast_to(np.asarray(weight, dtype=object), loss.shape)
    return _reduce_object(loss, reduction)


def _bce_cases(rng):
    p = lambda shape: rng.uniform(0.1, 0.9, shape)  # noqa: E731
    return [((p((2, 3)), p((2, 3))), {}),
            ((p((3,)), p((3,))), {"reduction": "sum"}),
            ((p((2, 3)), p((2, 3))), {"reduction": "none"}),
            ((p(()), p(())), {}),
            ((p((2, 3)), p((2, 3))), {"weight": rng.uniform(0.5, 2, (3,))})]


binary_cross_entropy_op = loss_op(
    "binary_cross_entropy", "BinaryCrossEntropyBackward0", _binary_cross_entropy, (_bce_input_grad, _bce_target_grad),
    ("grad * (self - target) / max(self * (1 - self), 1e-12) * weight (/ numel for mean)",
     "grad * (log(1 - self) - log(self)) * weight (/ numel for mean)"), _sympy_bce, _bce_cases)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-weight * (target log(input) + (1 - target) log(1 - input)), each log floored at -100."""
    _check_reduction(reduction)
    si, st = _shape(input), _shape(target)
    if si != st:
        raise ProgramValueError(
            f"Using a target size ({_size_str(st)}) that is different to the input size "
            f"({_size_str(si)}) is deprecated. Please ensure they have the same size."
        )
    w = _numpy(weight)
    if w is not None:
        try:
            w = np.broadcast_to(w, si)
        except ValueError:
            raise ShapeError(
                f"Attempting to broadcast a dimension of length {w.shape[-1] if w.ndim else 1} at -1! "
                f"Mismatching argument at index 1 had {_size_str(w.shape)}; but expected shape should "
                f"be broadcastable to [{', '.join(map(str, si))}]"
            ) from None
    return apply(binary_cross_entropy_op, (input, target), {"weight": w, "reduction": reduction})


def _size_str(shape) -> str:
    return f"torch.Size([{', '.join(str(d) for d in shape)}])"


export("binary_cross_entropy", binary_cross_entropy, method=False, nn=True,
       array=lambda input, target, weight=None, reduction="mean":
       _binary_cross_entropy(input, target, weight, reduction))


# -- nll_loss, cross_entropy -------------------------------------------------------


def _class_indices(target, input_shape, ignore_index) -> np.ndarray:
    """A target of class indices as an integer array, checked against the input's shape."""
    t = _numpy(target)
    if t.dtype != np.int64:
        if not np.all(np.isfinite(t)) or np.any(t != np.round(t)):
            raise ProgramTypeError("nll_loss: the target must hold class indices (integers), "
                                   "or have the input's shape for class probabilities")
        t = t.astype(np.int64)
    nd = len(input_shape)
    if nd == 0:
        raise ProgramValueError("Expected 1 or more dimensions (got 0)")
    if nd == 1:
        if t.size != 1:
            raise ProgramValueError(f"Expected input batch_size (1) to match target batch_size ({t.size}).")
        t = t.reshape(())
    elif t.ndim == 0 or t.shape[0] != input_shape[0]:
        raise ProgramValueError(
            f"Expected input batch_size ({input_shape[0]}) to match target batch_size "
            f"({t.shape[0] if t.ndim else 1})."
        )
    elif t.shape != input_shape[:1] + input_shape[2:]:
        expected = list(input_shape[:1] + input_shape[2:])
        raise ShapeError(f"Expected target size {expected}, got {list(t.shape)}")
    classes = input_shape[0] if nd == 1 else input_shape[1]
    bad = (t != ignore_index) & ((t < 0) | (t >= classes))
    if np.any(bad):
        raise ProgramValueError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
    return t


def _nll_weights(shape, target, weight, ignore_index, reduction):
    """The constant d loss / d input: -weight[t] at each target position (over the total weight for mean)."""
    axis = 0 if len(shape) == 1 else 1
    classes = shape[axis]
    w = np.ones(classes) if weight is None else np.asarray(weight, dtype=np.float64)
    keep = target != ignore_index
    safe = np.where(keep, target, 0)
    picked = np.where(keep, w[safe], 0.0)
    class_index = np.arange(classes).reshape((classes,) + (1,) * (len(shape) - axis - 1))
    onehot = np.expand_dims(safe, axis) == class_index
    coef = -np.expand_dims(picked, axis) * onehot
    if reduction == "mean":
        total = np.sum(picked)
        with np.errstate(divide="ignore", invalid="ignore"):
            # only the kept targets get a gradient, as PyTorch's kernel writes only those
            # (all ignored: the loss is nan, its gradient 0)
            coef = np.where(np.expand_dims(keep, axis) & onehot, coef / total, 0.0)
    return coef


def _nll_loss(self, target, weight=None, ignore_index=-100, reduction="mean"):
    # The target entries are picked, not multiplied by a one-hot mask, so that a -inf
    # elsewhere in the row (log of a zero probability) does not turn the loss into nan.
    raw = np.asarray(self)
    if raw.ndim == 2 and raw.shape[0] and weight is None and reduction != "none" and \
            raw.dtype in (np.float32, np.float64) and (target != ignore_index).all():
        # PyTorch's own cascade over the batch, in the input's dtype
        total = torch_order.nll_sum(-np.take_along_axis(raw, np.expand_dims(target, 1), 1)[:, 0])
        return total if reduction == "sum" else total / raw.dtype.type(raw.shape[0])
    x = np.asarray(self, dtype=np.float64)
    axis = 0 if x.ndim == 1 else 1
    w = np.ones(x.shape[axis]) if weight is None else np.asarray(weight, dtype=np.float64)
    keep = target != ignore_index
    safe = np.where(keep, target, 0)
    picked = np.where(keep, w[safe], 0.0)
    values = x[safe] if x.ndim == 1 else np.take_along_axis(x, np.expand_dims(safe, 1), 1).squeeze(1)
    losses = np.where(keep, -picked * values, 0.0)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return np.sum(losses)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sum(losses) / np.sum(picked)


def _nll_grad(F, g, self_shape, target, weight, ignore_index, reduction):
    coef = _nll_weights(self_shape, target, weight, ignore_index, reduction)
    if reduction == "none" and len(self_shape) > 1:
        g = F.unsqueeze(g, 1)
    # the coefficients in the gradient's dtype: a float64 array would promote a float32 gradient
    # under create_graph (torch.func.grad of a float32 loss)
    return g * coef.astype((g._data if hasattr(g, "_data") else np.asarray(g)).dtype, copy=False)


def _sympy_nll(sp, x, target, weight=None, ignore_index=-100, reduction="mean"):
    coef = _nll_weights(x.shape, target, weight, ignore_index, reduction)
    prod = np.vectorize(lambda c, e: sp.nsimplify(c) * e, otypes=[object])(coef, x)
    if reduction == "none":
        return np.sum(prod, axis=0 if x.ndim == 1 else 1)
    return _reduce_object(prod, "sum")


def _nll_cases(rng):
    x = lambda shape: rng.uniform(-2, 0, shape)  # noqa: E731
    return [((x((3, 4)),), {"target": np.array([0, 3, 1])}),
            ((x((3, 4)),), {"target": np.array([2, 3, 2]), "reduction": "sum"}),
            ((x((3, 4)),), {"target": np.array([0, -100, 1]), "reduction": "none"}),
            ((x((4,)),), {"target": np.array(2)}),
            ((x((2, 3, 2)),), {"target": np.array([[0, 2], [1, 1]]), "weight": np.array([0.5, 1.0, 2.0])}),
            ((x((3, 4)),), {"target": np.array([1, 1, 0]), "weight": np.array([1.0, 2.0, 0.5, 3.0]),
                            "reduction": "none"})]


nll_loss_op = defop(
    "nll_loss", "NllLossBackward0", _nll_loss, public=False,
    rules=(_nll_grad,),
    formulas=("-grad * weight[target] at each target (/ total weight for mean; 0 at ignore_index)",),
    sympy=_sympy_nll, domain=_nll_cases,
    tangent=LINEAR,   # linear in input: its tangent is nll_loss of the tangent (PyTorch's NllLossBackward0)
)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """The negative log likelihood of class-index targets (NllLossBackward0)."""
    _check_reduction(reduction)
    shape = _shape(input)
    ignore_index = int(ignore_index)
    t = _class_indices(target, shape, ignore_index)
    return apply(nll_loss_op, (input,), {"target": t, "weight": _numpy(weight),
                                         "ignore_index": ignore_index, "reduction": reduction})


export("nll_loss", nll_loss, method=False, nn=True,
       array=lambda input, target, weight=None, ignore_index=-100, reduction="mean":
       _nll_loss(input, target, weight, ignore_index, reduction))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """log_softmax over the class dim, then the NLL of class indices or the expectation over class probabilities."""
    _check_reduction(reduction)
    label_smoothing = float(label_smoothing)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ProgramValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    shape = _shape(input)
    if not shape:
        raise ProgramValueError("Expected 1 or more dimensions (got 0)")
    class_dim = 0 if len(shape) == 1 else 1
    classes = shape[class_dim]
    logp = log_softmax(input, class_dim)
    w = _numpy(weight)
    # Class weights broadcast along the class dim: (C,) -> (C, 1, ..., 1).
    w_b = None if w is None else w.reshape((classes,) + (1,) * (len(shape) - class_dim - 1))
    if _shape(target) == shape:
        return _cross_entropy_probabilities(logp, target, w_b, reduction, label_smoothing, class_dim, classes)
    ignore_index = int(ignore_index)
    t = _class_indices(target, shape, ignore_index)
    nll = apply(nll_loss_op, (logp,), {"target": t, "weight": w, "ignore_index": ignore_index,
                                       "reduction": reduction})
    if label_smoothing == 0.0:
        return nll
    # PyTorch's cross_entropy_loss_label_smoothing, step by step.
    weighted = logp * w_b if w_b is not None else logp
    ignored = t == ignore_index
    keep = (~ignored).astype(np.float64)
    smooth = TENSORS.masked_fill(-TENSORS.sum(weighted, class_dim), Tensor._make(ignored), 0.0)
    if reduction == "mean":
        denom = float(np.sum(w[np.where(t != ignore_index, t, 0)] * keep)) if w is not None else float(np.sum(keep))
        smooth = TENSORS.sum(smooth) / denom
    elif reduction == "sum":
        smooth = TENSORS.sum(smooth)
    return nll * (1.0 - label_smoothing) + smooth * (label_smoothing / classes)


def _cross_entropy_probabilities(logp, target, w_b, reduction, label_smoothing, class_dim, classes):
    if label_smoothing > 0.0:
        target = target * (1.0 - label_smoothing) + label_smoothing / classes
    terms = logp * w_b if w_b is not None else logp
    terms = terms * target
    if reduction == "none":
        return -TENSORS.sum(terms, class_dim)
    total = -TENSORS.sum(terms)
    if reduction == "sum":
        return total
    size = math.prod(_shape(logp))
    # ATen divides by the count as a number: div.Scalar, DivBackward1
    return TENSORS.div_scalar(total, float(size // classes)) if size else total * float("nan")


export("cross_entropy", cross_entropy, method=False, nn=True)


# -- linear --------------------------------------------------------------------------


def linear(input, weight, bias=None):
    """input @ weight.T + bias: mm or addmm with weight.t(), as PyTorch records it."""
    shape = _shape(input)
    wt = TENSORS.t(weight)
    if len(shape) == 2:
        return TENSORS.addmm(bias, input, wt) if bias is not None else TENSORS.mm(input, wt)
    if bias is None or not shape:
        out = TENSORS.matmul(input, wt)
        return out if bias is None else out + bias
    flat = TENSORS.reshape(input, (-1, shape[-1]))
    out = TENSORS.addmm(bias, flat, wt)
    return TENSORS.reshape(out, shape[:-1] + _shape(out)[-1:])


export("linear", linear, method=False, nn=True)


# The elementwise activations, also reachable as F.<name>.
for _name in ("relu", "sigmoid", "tanh", "softplus"):
    if _name in FUNCTIONS:
        NN_FUNCTIONS[_name] = FUNCTIONS[_name]


# -- activations -------------------------------------------------------------------
#
# PyTorch has these only as F.<name>: no torch.<name>, no Tensor method. Their
# `inplace=True` forms record other nodes (LeakyReluBackward1, EluBackward1...):
# gradcli refuses them rather than draw a graph PyTorch would not.

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_K = math.sqrt(2.0 / math.pi)   # PyTorch's kBeta in the tanh approximation
_GELU_C = 0.044715                   # and its kKappa
_APPROXIMATIONS = ("none", "tanh")


def _no_inplace(name, inplace):
    if inplace:
        raise ProgramValueError(f"{name}(): inplace=True is not supported; use the out-of-place form")


def _gelu(self, approximate="none"):
    if approximate == "none" and self.__class__ is np.ndarray and self.dtype == np.float32 and \
            self.flags.c_contiguous:
        if self.size > 1:
            return torch_math.gelu32(self)   # oneDNN's, which PyTorch calls here
        # one element: PyTorch's own scalar loop, x * 0.5 * (1 + erf(x / sqrt 2)) in float32
        with np.errstate(over="ignore", invalid="ignore"):
            erf = _erf((self * np.float32(_SQRT_HALF)).astype(np.float64)).astype(np.float32)
            return self * np.float32(0.5) * (np.float32(1) + erf)
    x = np.asarray(self, dtype=np.float64)
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(_GELU_K * (x + _GELU_C * x * x * x)))
    return 0.5 * x * (1.0 + _erf(x * _SQRT_HALF))


def _gelu_grad(F, g, self, approximate):
    if approximate == "tanh":
        t = F.tanh(_GELU_K * (self + _GELU_C * self * self * self))
        inner = _GELU_K * (1.0 + 3.0 * _GELU_C * self * self)
        return g * (0.5 * (1.0 + t) + 0.5 * self * (1.0 - t * t) * inner)
    cdf = 0.5 * (1.0 + F.erf(self * _SQRT_HALF))
    pdf = _INV_SQRT_2PI * F.exp(-0.5 * self * self)
    return g * (cdf + self * pdf)


def _gelu_sympy(sp, x, approximate="none"):
    if approximate == "tanh":
        k = sp.sqrt(2 / sp.pi)
        return vectorize(lambda e: e / 2 * (1 + sp.tanh(k * (e + sp.Float(_GELU_C) * e ** 3))))(x)
    return vectorize(lambda e: e / 2 * (1 + sp.erf(e / sp.sqrt(2))))(x)


def _with_params(domain, **params):
    """A unary domain whose cases all carry `params`."""
    return lambda rng: [(inputs, dict(params)) for inputs, _ in domain(rng)]


gelu_op = defop(
    "gelu", "GeluBackward0", _gelu, public=False,
    rules=(_gelu_grad,),
    formulas=("grad * (Phi(self) + self * phi(self)); tanh form: its derivative",),
    sympy=_gelu_sympy,
    domain=lambda rng: unary(-3, 3)(rng) + _with_params(unary(-3, 3), approximate="tanh")(rng), tangent=POINTWISE,
)


def gelu(input, *, approximate="none"):
    """input * Phi(input), Phi the normal CDF, or PyTorch's tanh form of it (GeluBackward0)."""
    if approximate not in _APPROXIMATIONS:
        raise ProgramValueError("approximate argument must be either none or tanh.")
    return apply(gelu_op, (input,), {"approximate": approximate})


def _silu(self):
    if self.__class__ is np.ndarray and self.dtype == np.float32:
        return torch_math.silu32(self)   # PyTorch's float32 formula
    x = np.asarray(self, dtype=np.float64)
    return x * _sigmoid(x)


def _silu_grad(F, g, self):
    s = F.sigmoid(self)
    return g * s * (1.0 + self * (1.0 - s))


silu_op = defop(
    "silu", "SiluBackward0", _silu, public=False, cost=costs.kernel_exp,
    rules=(_silu_grad,),
    formulas=("grad * sigmoid(self) * (1 + self * (1 - sigmoid(self)))",),
    sympy=lambda sp, x: vectorize(lambda e: e / (1 + sp.exp(-e)))(x),
    domain=unary(-3, 3), tangent=POINTWISE,
)


def silu(input, inplace=False):
    """input * sigmoid(input) (SiluBackward0)."""
    _no_inplace("silu", inplace)
    return apply(silu_op, (input,))


def _leaky_relu(self, negative_slope=0.01):
    x = np.asarray(self)   # x * slope in the input's float, as PyTorch (half: in float)
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    return np.where(x > 0, x, x * x.dtype.type(negative_slope))


# At 0 the gradient is negative_slope: PyTorch passes it unscaled only where self > 0.
leaky_relu_op = defop(
    "leaky_relu", "LeakyReluBackward0", _leaky_relu, public=False,
    rules=(lambda F, g, self, negative_slope: F.where(self > 0, g, g * negative_slope),),
    formulas=("where(self > 0, grad, grad * negative_slope)",),
    sympy=lambda sp, x, negative_slope=0.01: vectorize(
        lambda e: sp.Piecewise((e, e > 0), (e * sp.Float(negative_slope), True)))(x),
    domain=lambda rng: unary(avoid=0.0)(rng) + _with_params(unary(avoid=0.0), negative_slope=0.2)(rng), tangent=POINTWISE,
)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """input where positive, else input * negative_slope (LeakyReluBackward0)."""
    _no_inplace("leaky_relu", inplace)
    return apply(leaky_relu_op, (input,), {"negative_slope": float(negative_slope)})


def _elu(self, alpha=1.0):
    x = np.asarray(self, dtype=np.float64)
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0)))


# At 0 the gradient is alpha (the negative side's), as in PyTorch.
elu_op = defop(
    "elu", "EluBackward0", _elu, public=False,
    rules=(lambda F, g, self, alpha: F.where(self > 0, g, g * alpha * F.exp(self)),),
    formulas=("where(self > 0, grad, grad * alpha * exp(self))",),
    sympy=lambda sp, x, alpha=1.0: vectorize(
        lambda e: sp.Piecewise((e, e > 0), (sp.Float(alpha) * (sp.exp(e) - 1), True)))(x),
    domain=lambda rng: unary(avoid=0.0)(rng) + _with_params(unary(avoid=0.0), alpha=2.0)(rng), tangent=POINTWISE,
)


def elu(input, alpha=1.0, inplace=False):
    """input where positive, else alpha * (exp(input) - 1) (EluBackward0)."""
    _no_inplace("elu", inplace)
    return apply(elu_op, (input,), {"alpha": float(alpha)})


def _hardtanh(self, min_val=-1.0, max_val=1.0):
    return np.minimum(np.maximum(np.asarray(self, dtype=np.float64), min_val), max_val)


def _hardtanh_cases(rng):
    out = []
    for params in ({}, {"min_val": -0.5, "max_val": 1.5}):
        lo, hi = params.get("min_val", -1.0), params.get("max_val", 1.0)
        for inputs, _ in unary()(rng):
            x = inputs[0]
            for b in (lo, hi):
                x = np.where(np.abs(x - b) < 0.1, b + 0.3, x)
            out.append(((np.asarray(x),), dict(params)))
    return out


# Unlike clamp, the gradient is 0 at the bounds themselves (PyTorch's hardtanh_backward).
hardtanh_op = defop(
    "hardtanh", "HardtanhBackward0", _hardtanh, public=False,
    rules=(lambda F, g, self, min_val, max_val: F.where((self > min_val) & (self < max_val), g, 0.0),),
    formulas=("where(min_val < self < max_val, grad, 0)",),
    sympy=lambda sp, x, min_val=-1.0, max_val=1.0: vectorize(
        lambda e: sp.Min(sp.Max(e, sp.Float(min_val)), sp.Float(max_val)))(x),
    domain=_hardtanh_cases, tangent=POINTWISE,
)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """input clamped to [min_val, max_val]; the gradient passes strictly inside (HardtanhBackward0)."""
    if min_val > max_val:
        raise ProgramValueError("min_val cannot be greater than max_val")
    _no_inplace("hardtanh", inplace)
    return apply(hardtanh_op, (input,), {"min_val": float(min_val), "max_val": float(max_val)})


def _logsigmoid(self):
    x = np.asarray(self, dtype=np.float64)
    # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): no overflow, no log(0)
    return np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x)))


logsigmoid_op = defop(
    "logsigmoid", "LogSigmoidBackward0", _logsigmoid, public=False,
    rules=(lambda F, g, self: g * F.sigmoid(-self),),
    formulas=("grad * sigmoid(-self)",),
    sympy=lambda sp, x: vectorize(lambda e: -sp.log(1 + sp.exp(-e)))(x),
    domain=unary(-4, 4), tangent=POINTWISE,
)


def logsigmoid(input):
    """log(sigmoid(input)), computed stably (LogSigmoidBackward0)."""
    return apply(logsigmoid_op, (input,))


def softsign(input):
    """input / (input.abs() + 1), composed as PyTorch composes it (DivBackward0 over AddBackward0)."""
    return input / (TENSORS.abs(input) + 1)


for _name, _function, _array in (("gelu", gelu, _gelu), ("silu", silu, _silu),
                                 ("leaky_relu", leaky_relu, _leaky_relu), ("elu", elu, _elu),
                                 ("hardtanh", hardtanh, _hardtanh), ("logsigmoid", logsigmoid, _logsigmoid),
                                 ("softsign", softsign, None)):
    export(_name, _function, method=False, nn=True, array=_array)


# -- normalize, one_hot, dropout -------------------------------------------------------------


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(norm(input, p, dim), eps), composed as PyTorch composes it
    (DivBackward0 over ExpandBackward0, ClampMinBackward0, LinalgVectorNormBackward0)."""
    norm = TENSORS.norm(input, float(p), dim, True)
    return input / TENSORS.expand(TENSORS.clamp_min(norm, eps), _shape(input))


def one_hot(tensor, num_classes=-1):
    """An int64 tensor with a 1 at each index of `tensor` along a new last dim (no grad)."""
    if not isinstance(tensor, Tensor):
        raise ProgramTypeError(f"one_hot(): argument 'input' (position 1) must be Tensor, "
                               f"not {type(tensor).__name__}")
    index = tensor._data
    # every gradcli tensor is float64: integral values stand for the LongTensor PyTorch wants
    if index.dtype == np.bool_ or (index.dtype.kind == "f" and (
            not np.all(np.isfinite(index)) or np.any(index != np.round(index)))):
        raise ProgramTypeError("one_hot is only applicable to index tensor of type LongTensor.")
    index = index.astype(np.int64)
    num_classes = as_int(num_classes, "num_classes")
    if num_classes == -1:
        if not index.size:
            raise ProgramValueError("Can not infer total number of classes from empty tensor.")
        num_classes = int(index.max()) + 1
    if index.size and index.min() < 0:
        raise ProgramValueError("Class values must be non-negative.")
    if index.size and index.max() >= num_classes:
        raise ProgramValueError("Class values must be smaller than num_classes.")
    check_elements(index.size * num_classes)
    return Tensor._make(np.eye(num_classes, dtype=np.int64)[index])


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1 / (1 - p) (MulBackward0).

    With training=False or p=0 it returns `input` itself, as PyTorch does. The
    numbers come from gradcli's generator (manual_seed), not PyTorch's.
    """
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ProgramValueError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    _no_inplace("dropout", inplace)
    if not training or p == 0.0:
        return input
    shape = _shape(input)
    keep = factories._rng(None).random(shape) >= p if p < 1.0 else np.zeros(shape, dtype=bool)
    return TENSORS.mul(input, dropout_noise(input, keep, p))


def dropout_noise(input, keep, p: float) -> Tensor:
    """PyTorch's dropout noise: the kept elements' mask in the input's dtype, divided by 1 - p
    as its div_ divides (in float32: 1 / float32(1 - p); in half: computed in float), or zeros."""
    data = input._data if isinstance(input, Tensor) else np.asarray(input)
    dtype = data.dtype if data.dtype.kind == "f" else get_default_dtype().np
    mask = Tensor._make(keep.astype(dtype))
    if p >= 1.0:
        return mask
    with no_grad():
        return TENSORS.div(mask, 1.0 - p)


for _name, _function in (("normalize", normalize), ("one_hot", one_hot), ("dropout", dropout)):
    export(_name, _function, method=False, nn=True)
