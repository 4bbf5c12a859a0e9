"""torch.nn functions, losses and torch.optim against PyTorch, in float64.

    PYTHONPATH=. <python with torch 2.13> benchmarks/compare_nn.py [--seed S] [--rounds N]

Two parts. Ops and losses: each F function runs forward and backward on random
shapes in both, and the output and every input's gradient must agree within
1e-10 (relative to the largest magnitude). Optimizers: each optimizer (and a
scheduler) trains the same small model from the same weights for 50 steps in
both, and every parameter must agree within 1e-10 relative. Needs PyTorch
(never a dependency of gradcli): a script, not a test.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gradcli  # noqa: E402
from gradcli import optim as gopt  # noqa: E402
from gradcli.dtypes import default_dtype  # noqa: E402
from gradcli.ops import NN_FUNCTIONS as GF  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as TF  # noqa: E402

torch.set_default_dtype(torch.float64)
TOL = 1e-10


def close(a, b) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False
    same_nan = np.isnan(a) & np.isnan(b)   # both nan (a mean over no kept target) agree
    finite = b[~np.isnan(b)]
    scale = max(1.0, float(np.max(np.abs(finite))) if finite.size else 1.0)
    return bool(np.all(same_nan | (np.abs(a - b) <= TOL * scale)))


def cases(rng):
    """(name, [arrays that get gradients], {constant keyword arguments}, call(F, *tensors, **kw))."""
    u = lambda *s: rng.uniform(-1, 1, s)  # noqa: E731
    n, c = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    h, w = int(rng.integers(5, 9)), int(rng.integers(5, 9))
    groups = int(rng.choice([1, c])) if c > 1 else 1
    out_c = groups * int(rng.integers(1, 3))
    k = int(rng.integers(1, 4))
    stride, pad, dil = int(rng.integers(1, 3)), int(rng.integers(0, 2)), int(rng.integers(1, 3))
    classes = int(rng.integers(2, 5))
    batch = int(rng.integers(1, 5))
    target = rng.integers(0, classes, batch)
    probs = rng.dirichlet(np.ones(classes), batch)
    conv_kw = dict(stride=stride, padding=pad, dilation=dil, groups=groups)
    yield ("conv2d", [u(n, c, h, w), u(out_c, c // groups, k, k), u(out_c)], {},
           lambda F, x, wt, b: F.conv2d(x, wt, b, **conv_kw))
    yield ("conv1d", [u(n, c, h), u(out_c, c // groups, k), u(out_c)], {},
           lambda F, x, wt, b: F.conv1d(x, wt, b, **conv_kw))
    yield ("max_pool2d", [rng.permutation(n * c * h * w).reshape(n, c, h, w) * 0.01], {},
           lambda F, x: F.max_pool2d(x, 2, stride=stride, padding=min(pad, 1)))
    yield ("avg_pool2d", [u(n, c, h, w)], {},
           lambda F, x: F.avg_pool2d(x, 3, stride=stride, padding=pad, count_include_pad=bool(k % 2)))
    yield ("adaptive_avg_pool2d", [u(n, c, h, w)], {},
           lambda F, x: F.adaptive_avg_pool2d(x, (int(rng.integers(1, h)), 3)))
    yield ("embedding", [u(6, 3)], {}, lambda F, wt: F.embedding(_ix(F, [[0, 2, 5], [2, 2, 1]]), wt,
                                                                 padding_idx=2))
    yield ("layer_norm", [u(n, c, 4), u(c, 4), u(c, 4)], {}, lambda F, x, wt, b: F.layer_norm(x, (c, 4), wt, b))
    for training in (True, False):
        rm, rv = u(c), rng.uniform(0.5, 2, c)
        yield (f"batch_norm(training={training})", [u(n + 1, c, 3), u(c), u(c)], {},
               lambda F, x, wt, b, training=training, rm=rm, rv=rv:
               _bn(F, x, wt, b, rm, rv, training))
    logits = u(batch, classes)
    for red in ("mean", "sum", "none"):
        yield (f"mse_loss[{red}]", [u(batch, 3), u(batch, 3)], {}, lambda F, a, b, r=red: F.mse_loss(a, b, reduction=r))
        yield (f"l1_loss[{red}]", [u(batch, 3), u(batch, 3)], {}, lambda F, a, b, r=red: F.l1_loss(a, b, reduction=r))
        yield (f"smooth_l1_loss[{red}]", [u(batch, 3) * 2, u(batch, 3)], {},
               lambda F, a, b, r=red: F.smooth_l1_loss(a, b, reduction=r, beta=0.7))
        yield (f"huber_loss[{red}]", [u(batch, 3) * 2, u(batch, 3)], {},
               lambda F, a, b, r=red: F.huber_loss(a, b, reduction=r, delta=0.6))
        yield (f"cross_entropy[{red}]", [logits], {},
               lambda F, x, r=red: F.cross_entropy(x, _ix(F, target), weight=_t(F, np.arange(1.0, classes + 1)),
                                                   ignore_index=int(target[0]) if batch > 1 else -100,
                                                   label_smoothing=0.1, reduction=r))
        yield (f"cross_entropy probabilities[{red}]", [logits, probs], {},
               lambda F, x, p, r=red: F.cross_entropy(x, p, label_smoothing=0.2, reduction=r))
        yield (f"nll_loss[{red}]", [logits], {},
               lambda F, x, r=red: F.nll_loss(x, _ix(F, target), weight=_t(F, np.arange(1.0, classes + 1)),
                                              reduction=r))
        yield (f"binary_cross_entropy[{red}]", [rng.uniform(0.05, 0.95, (batch, 2)), rng.uniform(0, 1, (batch, 2))],
               {}, lambda F, a, b, r=red: F.binary_cross_entropy(a, b, reduction=r))
        yield (f"binary_cross_entropy_with_logits[{red}]", [u(batch, 2) * 3, rng.uniform(0, 1, (batch, 2))], {},
               lambda F, a, b, r=red: F.binary_cross_entropy_with_logits(
                   a, b, reduction=r, weight=_t(F, np.array([0.5, 2.0])), pos_weight=_t(F, np.array([3.0, 0.4]))))
        yield (f"kl_div[{red}]", [u(batch, 3), u(batch, 3)], {},
               lambda F, a, b, r=red: F.kl_div(a, b, reduction=r, log_target=True))
    yield ("kl_div[batchmean]", [u(batch, 3), rng.uniform(0.1, 1, (batch, 3))], {},
           lambda F, a, b: F.kl_div(a, b, reduction="batchmean"))
    yield from _tail_cases(rng, u, n, c, h, w)


def _tail_cases(rng, u, n, c, h, w):
    """Issue 27's functions: transposed convolution, resampling, pads, attention, 1-d pools, losses."""
    k = int(rng.integers(1, 4))
    stride = int(rng.integers(1, 3))
    yield ("conv_transpose2d", [u(n, c, h, w), u(c, 2, k, k + 1), u(2)], {},
           lambda F, x, wt, b: F.conv_transpose2d(x, wt, b, stride=stride, padding=min(k - 1, 1),
                                                  output_padding=stride - 1))
    yield ("conv_transpose1d", [u(n, 2 * c, h), u(2 * c, 1, k), u(2)], {},
           lambda F, x, wt, b: F.conv_transpose1d(x, wt, b, stride=stride, groups=2, dilation=2))
    yield ("interpolate nearest", [u(n, c, h, w)], {}, lambda F, x: F.interpolate(x, scale_factor=1.7))
    yield ("interpolate bilinear", [u(n, c, h, w)], {},
           lambda F, x: F.interpolate(x, size=(h + 3, w - 2), mode="bilinear"))
    yield ("interpolate bilinear corners", [u(n, c, h, w)], {},
           lambda F, x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True))
    yield ("interpolate linear", [u(n, c, h)], {}, lambda F, x: F.interpolate(x, scale_factor=2.5, mode="linear"))
    yield ("pad reflect", [u(n, c, h, w)], {}, lambda F, x: F.pad(x, (1, 2, 3, 0), mode="reflect"))
    yield ("pad replicate", [u(n, c, h)], {}, lambda F, x: F.pad(x, (2, 1), mode="replicate"))
    yield ("pad constant", [u(n, c, h, w)], {}, lambda F, x: F.pad(x, (1, 0, 2, 2), value=0.5))
    yield ("pixel_shuffle", [u(n, 4 * c, h, w)], {}, lambda F, x: F.pixel_shuffle(x, 2))
    yield ("prelu", [u(n, c, h, w), rng.uniform(0, 0.5, c)], {}, lambda F, x, a: F.prelu(x, a))
    yield ("scaled_dot_product_attention", [u(n, 2, h, 4), u(n, 2, w, 4), u(n, 2, w, 4)], {},
           lambda F, q, kk, v: F.scaled_dot_product_attention(q, kk, v))
    yield ("scaled_dot_product_attention causal, math path", [u(n, h, 3), u(n, h, 3), u(n, h, 2)], {},
           lambda F, q, kk, v: F.scaled_dot_product_attention(q, kk, v, is_causal=True, scale=0.4))
    yield ("max_pool1d", [rng.permutation(n * c * h).reshape(n, c, h) * 0.01], {},
           lambda F, x: F.max_pool1d(x, 2, stride=stride))
    yield ("avg_pool1d", [u(n, c, h)], {}, lambda F, x: F.avg_pool1d(x, 3, stride=stride, padding=1))
    yield ("adaptive_avg_pool1d", [u(n, c, h)], {}, lambda F, x: F.adaptive_avg_pool1d(x, 3))
    yield ("instance_norm", [u(n, c, h, w), u(c), u(c)], {}, lambda F, x, wt, b: F.instance_norm(x, weight=wt, bias=b))
    away = lambda *s: np.where(np.abs(u(*s)) < 0.05, 0.5, u(*s) * 4)  # noqa: E731  (off the kinks)
    for fn in ("selu", "celu", "mish", "hardswish", "hardsigmoid", "relu6", "tanhshrink", "softsign"):
        yield (fn, [away(n, c, 3)], {}, lambda F, x, fn=fn: getattr(F, fn)(x))
    yield ("glu", [u(n, 4, 3)], {}, lambda F, x: F.glu(x, 1))
    yield ("threshold", [away(n, 3)], {}, lambda F, x: F.threshold(x, 0.2, -3.0))
    yield ("softmin", [u(n, 3)], {}, lambda F, x: F.softmin(x, 1))
    yield ("cosine_similarity", [u(n, 3), u(n, 3)], {}, lambda F, a, b: F.cosine_similarity(a, b))
    sign = np.where(rng.uniform(-1, 1, (n, 3)) > 0, 1.0, -1.0)
    for red in ("mean", "sum", "none"):
        yield (f"margin_ranking_loss[{red}]", [u(n, 3), u(n, 3)], {},
               lambda F, a, b, r=red: F.margin_ranking_loss(a, b, _t(F, sign), margin=0.1, reduction=r))
        yield (f"hinge_embedding_loss[{red}]", [u(n, 3)], {},
               lambda F, a, r=red: F.hinge_embedding_loss(a, _t(F, sign), margin=0.7, reduction=r))
        yield (f"soft_margin_loss[{red}]", [u(n, 3)], {},
               lambda F, a, r=red: F.soft_margin_loss(a, _t(F, sign), reduction=r))
        yield (f"cosine_embedding_loss[{red}]", [u(n, 3), u(n, 3)], {},
               lambda F, a, b, r=red: F.cosine_embedding_loss(a, b, _t(F, sign[:, 0]), margin=-0.2, reduction=r))
        yield (f"triplet_margin_loss[{red}]", [u(n, 3), u(n, 3), u(n, 3)], {},
               lambda F, a, b, cc, r=red: F.triplet_margin_loss(a, b, cc, margin=2.0, swap=True, reduction=r))
        yield (f"poisson_nll_loss[{red}]", [u(n, 3), rng.uniform(0, 3, (n, 3))], {},
               lambda F, a, b, r=red: F.poisson_nll_loss(a, b, reduction=r))
        yield (f"gaussian_nll_loss[{red}]", [u(n, 3), u(n, 3), rng.uniform(0.1, 2, (n, 3))], {},
               lambda F, a, b, v, r=red: F.gaussian_nll_loss(a, b, v, full=True, reduction=r))
        yield (f"multi_margin_loss[{red}]", [u(n, 3)], {},
               lambda F, a, r=red: F.multi_margin_loss(a, _ix(F, np.arange(n) % 3), p=2, margin=0.6,
                                                       weight=_t(F, np.array([1.0, 2.0, 0.5])), reduction=r))
        yield (f"multilabel_soft_margin_loss[{red}]", [u(n, 3), rng.uniform(0, 1, (n, 3))], {},
               lambda F, a, b, r=red: F.multilabel_soft_margin_loss(a, b, reduction=r))


def _t(F, a):
    return torch.tensor(a) if F is TF else gradcli.tensor(a)


def _ix(F, a):
    return torch.tensor(a) if F is TF else gradcli.tensor(np.asarray(a, dtype=np.int64))


def _bn(F, x, wt, b, rm, rv, training):
    mean, var = _t(F, rm.copy()), _t(F, rv.copy())
    out = F.batch_norm(x, mean, var, wt, b, training=training, momentum=0.3)
    return out, mean, var


class GFun:
    """gradcli's F. functions under the names PyTorch uses."""

    def __getattr__(self, name):
        return GF[name]


def run_case(F, arrays, call, seed):
    tensor = torch.tensor if F is TF else gradcli.tensor
    xs = [tensor(np.array(a), requires_grad=True) for a in arrays]
    out = call(F, *xs)
    extra = []
    if isinstance(out, tuple):
        out, *extra = out
    weights = np.random.default_rng(seed).uniform(-1, 1, tuple(out.shape))
    (out * tensor(weights)).sum().backward()
    return ([out.detach().numpy()] + [e.detach().numpy() for e in extra],
            [x.grad.numpy() if x.grad is not None else None for x in xs])


def compare_ops(seed: int, rounds: int) -> tuple[int, list]:
    total, failures = 0, []
    for r in range(rounds):
        rng_g, rng_t = np.random.default_rng(seed + r), np.random.default_rng(seed + r)
        for (name, arrays, _, gcall), (_, _, _, tcall) in zip(cases(rng_g), cases(rng_t)):
            total += 1
            try:
                g_out, g_grads = run_case(GFun(), arrays, gcall, seed + r)
            except Exception as exc:  # noqa: BLE001
                failures.append(f"{name}: gradcli raised {type(exc).__name__}: {exc}")
                continue
            t_out, t_grads = run_case(TF, arrays, tcall, seed + r)
            bad = [i for i, (a, b) in enumerate(zip(g_out, t_out)) if not close(a, b)]
            bad += [f"grad {i}" for i, (a, b) in enumerate(zip(g_grads, t_grads))
                    if (a is None) != (b is None) or (a is not None and not close(a, b))]
            if bad:
                failures.append(f"{name} (round {r}): {bad}")
    return total, failures


# -- optimizers ---------------------------------------------------------------------------------

OPTIMIZERS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True, maximize=True)),  # at 0.05 the ascent diverges (chaotic)
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.95), weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.01, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.02, weight_decay=0.3, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.05, initial_accumulator_value=0.2)),
    ("Adadelta", dict(lr=1.0)),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.02, betas=(0.8, 0.9), weight_decay=0.1)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, momentum_decay=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, betas=(0.5, 0.6), weight_decay=0.1)),
]
SCHEDULERS = [None, ("StepLR", dict(step_size=7, gamma=0.5)), ("ExponentialLR", dict(gamma=0.97)),
              ("CosineAnnealingLR", dict(T_max=20, eta_min=0.001)), ("LambdaLR", dict(lr_lambda=lambda e: 0.9 ** e)),
              ("MultiStepLR", dict(milestones=[5, 20, 20], gamma=0.5)), ("ConstantLR", dict(factor=0.5, total_iters=8)),
              ("LinearLR", dict(start_factor=0.2, end_factor=0.9, total_iters=30)),
              ("CosineAnnealingWarmRestarts", dict(T_0=5, T_mult=2, eta_min=0.01)),
              ("OneCycleLR", dict(max_lr=0.3, total_steps=50)), ("OneCycleLR", dict(max_lr=0.3, total_steps=60,
                                                                                   three_phase=True)),
              ("ReduceLROnPlateau", dict(patience=1, factor=0.5, threshold=0.05)),
              ("SequentialLR", lambda L, opt: dict(schedulers=[L.LinearLR(opt, start_factor=0.1, total_iters=5),
                                                               L.ExponentialLR(opt, gamma=0.95)], milestones=[5]))]


def train(lib, name, options, scheduler, w1, b1, w2, b2, x, y, steps=50):
    tensor = torch.tensor if lib is torch else gradcli.tensor
    ps = [tensor(a.copy(), requires_grad=True) for a in (w1, b1, w2, b2)]
    optim = torch.optim if lib is torch else gopt
    groups = [{"params": ps[:2]}, {"params": ps[2:], "lr": options["lr"] * 0.5}]
    opt = getattr(optim, name)(groups, **options)
    sched = None
    if scheduler is not None:
        options = scheduler[1] if isinstance(scheduler[1], dict) else scheduler[1](optim.lr_scheduler, opt)
        sched = getattr(optim.lr_scheduler, scheduler[0])(opt, **options)
    xs, ys = tensor(x), tensor(y)
    for _ in range(steps):
        opt.zero_grad()
        h = (xs @ ps[0].t() + ps[1]).tanh()
        loss = ((h @ ps[2].t() + ps[3] - ys) ** 2).mean()
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step(loss.item()) if scheduler[0] == "ReduceLROnPlateau" else sched.step()
    return [p.detach().numpy() for p in ps]


def train_lbfgs(lib, line_search_fn, w1, b1, w2, b2, x, y, steps=1):
    """LBFGS on the same model: one step(closure) of up to 20 iterations (more steps amplify
    the last-bit differences of dot products summed in another order: 1e-12 after one step,
    1e-7 after three)."""
    tensor = torch.tensor if lib is torch else gradcli.tensor
    ps = [tensor(a.copy(), requires_grad=True) for a in (w1, b1, w2, b2)]
    optim = torch.optim if lib is torch else gopt
    opt = optim.LBFGS(ps, history_size=5, line_search_fn=line_search_fn)
    xs, ys = tensor(x), tensor(y)

    def closure():
        opt.zero_grad()
        h = (xs @ ps[0].t() + ps[1]).tanh()
        loss = ((h @ ps[2].t() + ps[3] - ys) ** 2).mean()
        loss.backward()
        return loss

    for _ in range(steps):
        opt.step(closure)
    return [p.detach().numpy() for p in ps]


def compare_optimizers(seed: int) -> tuple[int, list]:
    rng = np.random.default_rng(seed)
    data = [rng.normal(0, 0.5, s) for s in ((4, 3), (4,), (2, 4), (2,), (8, 3), (8, 2))]
    total, failures = 0, []
    runs = [(n, o, None) for n, o in OPTIMIZERS] + [("SGD", dict(lr=0.1, momentum=0.5), s) for s in SCHEDULERS[1:]]
    for name, options, sched in runs:
        total += 1
        label = f"{name}({options}){' + ' + sched[0] if sched else ''}"
        try:
            with default_dtype(gradcli.float64):  # as torch's here (NAdam's mu_product follows it)
                mine = train(gradcli, name, options, sched, *data)
        except Exception as exc:  # noqa: BLE001
            failures.append(f"{label}: gradcli raised {type(exc).__name__}: {exc}")
            continue
        theirs = train(torch, name, options, sched, *data)
        worst = max(float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))) for a, b in zip(mine, theirs))
        if worst > TOL:
            failures.append(f"{label}: worst relative difference {worst:.3g}")
    for search in (None, "strong_wolfe"):  # LBFGS: one group, a closure
        total += 1
        try:
            mine = train_lbfgs(gradcli, search, *data)
        except Exception as exc:  # noqa: BLE001
            failures.append(f"LBFGS({search}): gradcli raised {type(exc).__name__}: {exc}")
            continue
        theirs = train_lbfgs(torch, search, *data)
        worst = max(float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))) for a, b in zip(mine, theirs))
        if worst > 1e-9:
            failures.append(f"LBFGS({search}): worst relative difference {worst:.3g}")
    return total, failures


# -- layers with PyTorch's weights ------------------------------------------------------------


def layer_cases():
    """(name, make(nn), input shapes, call(module, *inputs) -> a tensor): each layer of issue 27."""
    first = lambda m, *xs: m(*xs)[0]  # noqa: E731
    return [
        ("RNN", lambda nn: nn.RNN(3, 4, num_layers=2, nonlinearity="relu"), [(5, 2, 3)], first),
        ("LSTM", lambda nn: nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True), [(2, 5, 3)], first),
        ("LSTM h_n", lambda nn: nn.LSTM(3, 4), [(5, 2, 3)], lambda m, x: m(x)[1][1]),
        ("GRU", lambda nn: nn.GRU(3, 4, bidirectional=True), [(5, 2, 3)], first),
        ("RNNCell", lambda nn: nn.RNNCell(3, 4), [(2, 3), (2, 4)], lambda m, x, hx: m(x, hx)),
        ("LSTMCell", lambda nn: nn.LSTMCell(3, 4), [(2, 3)], lambda m, x: m(x)[1]),
        ("GRUCell", lambda nn: nn.GRUCell(3, 4), [(2, 3), (2, 4)], lambda m, x, hx: m(x, hx)),
        ("ConvTranspose2d", lambda nn: nn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=1), [(1, 2, 4, 4)],
         lambda m, x: m(x)),
        ("PReLU", lambda nn: nn.PReLU(2), [(3, 2, 4)], lambda m, x: m(x)),
        ("InstanceNorm2d", lambda nn: nn.InstanceNorm2d(2, affine=True), [(2, 2, 3, 3)], lambda m, x: m(x)),
        ("MultiheadAttention", lambda nn: nn.MultiheadAttention(4, 2), [(3, 2, 4), (5, 2, 4)],
         lambda m, q, kv: m(q, kv, kv)[0]),
        ("MultiheadAttention weights", lambda nn: nn.MultiheadAttention(4, 2, batch_first=True), [(2, 3, 4)],
         lambda m, x: m(x, x, x)[1]),
        ("TransformerEncoderLayer", lambda nn: nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0), [(3, 2, 4)],
         lambda m, x: m(x)),
        ("Transformer", lambda nn: nn.Transformer(4, 2, 1, 1, 6, dropout=0.0, norm_first=True),
         [(3, 2, 4), (2, 2, 4)], lambda m, s, t: m(s, t)),
    ]


def compare_layers(seed: int) -> tuple[int, list]:
    """Each layer built in both, gradcli's given PyTorch's parameters by name; the output, every
    input's and every parameter's gradient must agree."""
    import gradcli.nn as gnn
    total, failures = 0, []
    rng = np.random.default_rng(seed)
    for name, make, shapes, call in layer_cases():
        total += 1
        theirs, mine = make(torch.nn), make(gnn)
        names_t = [k for k, _ in theirs.named_parameters()]
        names_g = [k for k, _ in mine.named_parameters()]
        if names_t != names_g:
            failures.append(f"{name}: parameter names differ: {names_g} vs {names_t}")
            continue
        for (_, p), (_, q) in zip(theirs.named_parameters(), mine.named_parameters()):
            q._data = p.detach().numpy().copy()
        arrays = [rng.uniform(-1, 1, s) for s in shapes]
        weights = None
        outs = []
        for lib, module in ((torch, theirs), (gradcli, mine)):
            xs = [lib.tensor(a.copy(), requires_grad=True) for a in arrays]
            out = call(module, *xs)
            weights = np.random.default_rng(seed).uniform(-1, 1, tuple(out.shape)) if weights is None else weights
            (out * lib.tensor(weights)).sum().backward()
            outs.append([out.detach().numpy()] + [x.grad.numpy() for x in xs]
                        + [p.grad.numpy() if p.grad is not None else None for p in module.parameters()])
        bad = [i for i, (a, b) in enumerate(zip(outs[1], outs[0]))
               if (a is None) != (b is None) or (a is not None and not close(a, b))]
        if bad:
            failures.append(f"{name}: outputs/gradients {bad} differ")
    return total, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--part", choices=("ops", "layers", "optim", "all"), default="all")
    args = parser.parse_args()
    parts = (
        ("ops", lambda: compare_ops(args.seed, args.rounds),
         "ops and losses: {agree}/{total} cases agree (forward and backward, 1e-10)"),
        ("layers", lambda: compare_layers(args.seed),
         "layers: {agree}/{total} agree (output, input and parameter gradients, 1e-10)"),
        ("optim", lambda: compare_optimizers(args.seed),
         "optimizers: {agree}/{total} runs of 50 steps agree (every parameter, 1e-10 relative)"),
    )
    failed = 0
    for part, compare, summary in parts:
        if args.part in (part, "all"):
            total, failures = compare()
            print(summary.format(agree=total - len(failures), total=total))
            for f in failures:
                print("  FAIL", f)
            failed += len(failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
