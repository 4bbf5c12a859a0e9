"""Each op's `formulas=` text is checked against its backward rule, so the table cannot lie.

A formula that is an expression of the language (`grad * other`, `grad / (self + 1)`)
is run as a gradcli program with `grad`, the inputs, `result` and the parameters
bound to the values of a point of the op's domain, and must give the vector-Jacobian
product the engine computes there. A formula that is prose (`grad at indices along
dim, 0 elsewhere`) is listed in PROSE, and the test checks that it really is not an
expression of the language, so that the list cannot go stale.
"""
import numpy as np
import pytest

import gradcli
from gradcli.errors import GradcliError
from gradcli.lang import compile_program
from gradcli.ops import OPS
from gradcli.ops.apply import apply
from gradcli._tensor import Tensor


def _literal(value) -> str:
    if isinstance(value, np.ndarray):
        if value.dtype == bool:
            return f"torch.tensor({value.tolist()!r})"
        if value.dtype.kind in "iu":
            return f"torch.tensor({value.tolist()!r}, dtype=torch.int64)"
        return f"torch.tensor({np.asarray(value, dtype=np.float64).tolist()!r}, dtype=torch.float64)"
    if isinstance(value, (bool, int, float, str, type(None))):
        return repr(value)
    if isinstance(value, (tuple, list)) and all(isinstance(v, (bool, int, float, type(None))) for v in value):
        return repr(tuple(value))
    raise TypeError(type(value))


def _evaluate(formula: str, bindings: dict):
    """The formula's value as a gradcli program computes it, or None if it is no expression."""
    lines = ["import torch"]
    for name, value in bindings.items():
        lines.append(f"{name} = {_literal(value)}")
    lines.append(f"formula_value = {formula}")
    source = "\n".join(lines) + "\n"
    try:
        program = compile_program(source)
    except GradcliError:
        return None
    try:
        run = program.run(script=True)
    except GradcliError:
        return None
    return run.values.get("formula_value")


def _points():
    for op in OPS.values():
        if op.domain is None or not op.differentiable or op.n_outputs != 1:
            continue
        rng = np.random.default_rng(sum(map(ord, op.name)))
        for inputs, params in list(op.domain(rng))[:2]:
            for i, formula in enumerate(op.formulas):
                if op.rules[i] is not None and isinstance(inputs[i], np.ndarray):
                    yield op, i, formula, inputs, params


def _vjp(op, i, inputs, params, g):
    tensors = [Tensor(np.array(a, dtype=np.float64), requires_grad=(k == i))
               if isinstance(a, np.ndarray) and a.dtype.kind == "f" else
               (Tensor(np.array(a)) if isinstance(a, np.ndarray) else a)
               for k, a in enumerate(inputs)]
    out = apply(op, tuple(tensors), params)
    grad, = gradcli.autograd.grad(out, tensors[i], Tensor(g), allow_unused=True)
    return out._data, grad if grad is not None else gradcli.zeros_like(tensors[i])


def _check(op, i, formula, inputs, params):
    """'ok', 'prose' (not an expression of the language) or a mismatch's description."""
    rng = np.random.default_rng(0)
    probe = [Tensor(np.array(a, dtype=np.float64)) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
             else (Tensor(np.array(a)) if isinstance(a, np.ndarray) else a) for a in inputs]
    shape = apply(op, tuple(probe), params).shape
    g = rng.uniform(0.5, 1.5, shape)
    result, expected = _vjp(op, i, inputs, params, g)
    bindings = {"grad": g, "result": result}
    for name, value in zip(op.inputs, inputs):
        bindings[name] = np.asarray(value) if isinstance(value, np.ndarray) else value
    for name in op.params:
        value = params.get(name, op.defaults.get(name)) if params else op.defaults.get(name)
        try:
            _literal(value)
        except TypeError:
            return "prose"
        bindings[name] = value
    value = _evaluate(formula, bindings)
    if value is None:
        return "prose"
    got = np.asarray(value._data if isinstance(value, Tensor) else value, dtype=np.float64)
    want = expected._data
    if got.shape != want.shape and op.broadcasts and got.ndim >= want.ndim:
        got = gradcli.tensor(got).sum_to_size(want.shape)._data   # the engine undoes broadcasting
    if got.shape != want.shape and got.size == 1:
        got = np.broadcast_to(got, want.shape)   # a number where the gradient is constant
    if got.shape != want.shape:
        return f"{formula!r} has shape {got.shape}, the rule's gradient {want.shape}"
    if not np.allclose(got, want, rtol=1e-6, atol=1e-9):
        return f"{formula!r} gives {got.ravel()[:3]}, the rule {np.ravel(want)[:3]}"
    return "ok"


# Formulas written as prose, or as an expression the language cannot run at a domain point
# (a helper of the rules, a chained comparison on tensors, a parameter that is no literal).
# Shrink this list by writing a formula as an expression; the test below keeps it exact.
PROSE = {
    ('_to_copy', 'grad.to(self.dtype)'),
    ('adaptive_avg_pool2d', "A_h^T grad A_w (each window's share of grad)"),
    ('adaptive_avg_pool2d_backward', "adaptive_avg_pool2d(grad')"),
    ('amax', 'grad / count * (self == result) over dim (ties split evenly)'),
    ('amin', 'grad / count * (self == result) over dim (ties split evenly)'),
    ('atan2', 'grad * -self / (self ** 2 + other ** 2) (0 at the origin)'),
    ('atan2', 'grad * other / (self ** 2 + other ** 2) (0 at the origin)'),
    ('avg_pool2d', 'grad / divisor spread over each window'),
    ('avg_pool2d_backward', "avg_pool2d(grad')"),
    ('batch_norm', '(grad * xhat).sum(all dims but 1)'),
    ('batch_norm', 'grad.sum(all dims but 1)'),
    ('batch_norm', 'training: rstd * (gw - mean(gw) - xhat * mean(gw * xhat)); eval: grad * weight * rstd'),
    ('binary_cross_entropy', 'grad * (log(1 - self) - log(self)) * weight (/ numel for mean)'),
    ('binary_cross_entropy', 'grad * (self - target) / max(self * (1 - self), 1e-12) * weight (/ numel for mean)'),
    ('binary_cross_entropy_with_logits', 'grad * ((pos_weight - 1) softplus(-self) - self) * weight (/ numel)'),
    ('binary_cross_entropy_with_logits', 'grad * ((pos_weight target + 1 - target) sigmoid(self) - pos_weight target) * weight (/ numel)'),
    ('cat', 'grad.narrow(dim, offset, sizes[i])'),
    ('celu', 'where(self > 0, grad, grad * exp(self / alpha)) (at 0 the negative side)'),
    ('clamp', 'where(min <= self <= max, grad, 0)'),
    ('clamp_tensor', 'where(min <= self <= max, grad, 0)'),
    ('clamp_tensor', 'where(self < min and min < max, grad, 0)'),
    ('clamp_tensor', 'where(self > max or max < min, grad, 0)'),
    ('constant_pad_crop', "grad' padded with zeros"),
    ('constant_pad_nd', 'grad with the padding cut off'),
    ('conv_input_grad', "conv(grad', weight)"),
    ('conv_input_grad', "conv_weight_grad(grad', grad)"),
    ('conv_transpose', 'conv(grad, weight)'),
    ('conv_transpose', 'conv_weight_grad(grad, self) (the correlation of grad and self)'),
    ('conv_transpose', 'grad.sum(batch and spatial dims)'),
    ('conv_weight_grad', "conv(self, grad')"),
    ('conv_weight_grad', "conv_input_grad(grad, grad')"),
    ('convolution', 'conv(self^T, grad^T) (the correlation of self and grad)'),
    ('convolution', 'conv_transpose(grad, weight)'),
    ('convolution', 'grad.sum(batch and spatial dims)'),
    ('cumprod', 'reversed_cumsum(grad * result, dim) / self (with zeros: the products of the others)'),
    ('det', 'grad * result * self.inverse().mT (cofactors if singular)'),
    ('diagonal', 'diagonal_backward(grad, self.shape, offset, dim1, dim2)'),
    ('embedding', 'grad rows added into the rows of the indices (none into padding_idx)'),
    ('embedding_backward', "grad' rows gathered at the indices (0 at padding_idx)"),
    ('embedding_bag_backward', "bags @ grad'"),
    ('embedding_bag_rows', "bags^T @ grad (each bag's gradient to its rows)"),
    ('gelu', 'grad * (Phi(self) + self * phi(self)); tanh form: its derivative'),
    ('glu', 'cat(grad * sigmoid(b), grad * a * sigmoid(b) * (1 - sigmoid(b))), self = cat(a, b) along dim'),
    ('hardsigmoid', "where(-3 < self < 3, grad / 6, 0) (1/6 rounded to float32, as PyTorch's kernel has it)"),
    ('hardswish', 'where(self < -3, 0, where(self <= 3, grad * (2 self + 3) / 6, grad))'),
    ('hardtanh', 'where(min_val < self < max_val, grad, 0)'),
    ('huber_loss', '-(the same)'),
    ('huber_loss', 'grad * where(|self - target| < delta, self - target, delta * sign(self - target)) (/ numel for mean)'),
    ('index', 'index_put(zeros(self.shape), indices, grad, accumulate=True)'),
    ('index_put', 'grad.index_put(indices, 0) unless accumulate'),
    ('index_put', 'grad[indices] summed to values.shape'),
    ('index_put_impl', 'grad'),
    ('index_put_impl', 'grad[indices]'),
    ('kthvalue', 'zeros(self.shape).scatter_add(dim, indices, grad.unsqueeze(dim))'),
    ('layer_norm', '(grad * xhat).sum(batch dims)'),
    ('layer_norm', 'grad.sum(batch dims)'),
    ('layer_norm', 'rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = grad * weight'),
    ('linalg_solve', '-solve(self.mT, grad) @ result.mT'),
    ('linalg_solve', 'solve(self.mT, grad)'),
    ('max', 'grad / count * (self == result) (ties split evenly)'),
    ('max_dim', 'grad at indices along dim, 0 elsewhere'),
    ('max_pool2d', "grad scattered to each window's argmax"),
    ('max_pool2d_backward', "grad' gathered at the indices"),
    ('max_pool2d_gather', 'grad scattered to the indices'),
    ('mean_dim', 'grad.unsqueeze(dim).expand(self.shape) / self.size(dim)'),
    ('min', 'grad / count * (self == result) (ties split evenly)'),
    ('min_dim', 'grad at indices along dim, 0 elsewhere'),
    ('mish', 'grad * (tanh(softplus(self)) + self * sigmoid(self) * (1 - tanh(softplus(self))^2))'),
    ('mse_loss', '-grad * 2 * (self - target) (/ numel for mean)'),
    ('mse_loss', 'grad * 2 * (self - target) (/ numel for mean)'),
    ('multi_margin_loss', 'grad * (p z^(p-1) [z > 0] at each other class, minus their sum at the target) / C, z = margin - self[y] + self[i]'),
    ('nansum', 'where(isnan(self), 0, grad.unsqueeze(dim).expand(self.shape))'),
    ('nll_loss', '-grad * weight[target] at each target (/ total weight for mean; 0 at ignore_index)'),
    ('norm', 'grad * self / result (p=2; 0 where result == 0); grad * sign(self) * |self| ** (p - 1) / result ** (p - 1) in general'),
    ('norm_dim', 'grad * self / result (p=2; 0 where result == 0); grad * sign(self) * |self| ** (p - 1) / result ** (p - 1) in general'),
    ('pack_padded_sequence', 'grad put back at the packed steps, zeros elsewhere'),
    ('permute', 'grad.permute(argsort(dims))'),
    ('prelu', 'grad * where(self > 0, 1, weight)'),
    ('prelu', 'sum of grad * where(self > 0, 0, self) per channel'),
    ('prod', 'grad * result / self (with zeros: grad * product of the other elements)'),
    ('prod_dim', 'grad * result / self (with zeros: grad * product of the others along dim)'),
    ('reflection_pad1d', 'grad resampled by the transposed matrices'),
    ('reflection_pad2d', 'grad resampled by the transposed matrices'),
    ('repeat', 'grad summed over the repeated copies'),
    ('replication_pad1d', 'grad resampled by the transposed matrices'),
    ('replication_pad2d', 'grad resampled by the transposed matrices'),
    ('resample', 'grad resampled by the transposed matrices'),
    ('roll', 'grad.roll(-shifts, dims)'),
    ('scaled_dot_product_attention', 'P^T @ grad, P = softmax(query @ key^T * scale + mask)'),
    ('scaled_dot_product_attention', 'dS @ key * scale, dS = P * (grad @ value^T - rowsum(P * (grad @ value^T)))'),
    ('scaled_dot_product_attention', 'dS^T @ query * scale'),
    ('select', 'select_backward(grad, self.shape, dim, index)'),
    ('selu', 'where(self > 0, grad * scale, grad * scale * alpha * exp(self)) (at 0 the negative side)'),
    ('slice', 'slice_backward(grad, self.shape, dim, start, end, step)'),
    ('slice_backward', 'grad.slice(dim, start, end, step)'),
    ('smooth_l1_loss', '-(the same)'),
    ('smooth_l1_loss', 'grad * where(|self - target| < beta, (self - target) / beta, sign(self - target)) (/ numel for mean)'),
    ('soft_margin_loss', 'grad * -self * sigmoid(-target * self) (/ numel for mean)'),
    ('soft_margin_loss', 'grad * -target * sigmoid(-target * self) (/ numel for mean)'),
    ('softplus', 'grad * sigmoid(beta * self) (grad where beta * self > threshold)'),
    ('stack', 'grad.select(dim, i)'),
    ('std', 'grad / (2 * result) * 2 / (n - correction) * (self - self.mean(dim, keepdim=True)) (0 where result == 0)'),
    ('sum_dim', 'grad.unsqueeze(dim).expand(self.shape)'),
    ('unpack_rows', "grad' at the packed steps"),
    ('upsample_bilinear2d', 'grad resampled by the transposed matrices'),
    ('upsample_linear1d', 'grad resampled by the transposed matrices'),
    ('upsample_nearest1d', 'grad resampled by the transposed matrices'),
    ('upsample_nearest2d', 'grad resampled by the transposed matrices'),
    ('var', '2 / (n - correction) * grad * (self - self.mean(dim, keepdim=True))'),
    ('where', 'where(condition, 0, grad)'),
    ('where', 'where(condition, grad, 0)'),
}

POINTS = list(_points())


@pytest.mark.parametrize("op, i, formula, inputs, params", POINTS,
                         ids=[f"{p[0].name}-{p[1]}-{k}" for k, p in enumerate(POINTS)])
def test_a_formula_that_is_an_expression_gives_the_rules_gradient(op, i, formula, inputs, params):
    answer = _check(op, i, formula, inputs, params)
    allowed = ("ok", "prose") if (op.name, formula) in PROSE else ("ok",)
    assert answer in allowed, f"{op.name}, input {op.inputs[i]}: {answer}"


def test_every_prose_formula_is_prose_somewhere():
    """A formula that runs at every point of its domain is taken out of PROSE (and checked)."""
    runs = {(op.name, formula) for op, i, formula, inputs, params in POINTS
            if _check(op, i, formula, inputs, params) == "prose"}
    assert PROSE <= runs, f"these run at every point now: {sorted(PROSE - runs)}"


def test_the_check_catches_a_formula_that_lies():
    op = OPS["mul"]
    inputs, params = next(iter(op.domain(np.random.default_rng(0))))
    assert _check(op, 0, "grad * other", inputs, params) == "ok"
    assert _check(op, 0, "grad * other * 2", inputs, params) != "ok"
    assert _check(op, 0, "grad at the other's values", inputs, params) == "prose"
