"""torch.nn functions, losses and torch.optim against PyTorch, in float64.

    PYTHONPATH=. /work/torchvenv/bin/python benchmarks/compare_nn.py [--seed S] [--rounds N]

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
]
SCHEDULERS = [None, ("StepLR", dict(step_size=7, gamma=0.5)), ("ExponentialLR", dict(gamma=0.97)),
              ("CosineAnnealingLR", dict(T_max=20, eta_min=0.001)), ("LambdaLR", dict(lr_lambda=lambda e: 0.9 ** e))]


def train(lib, name, options, scheduler, w1, b1, w2, b2, x, y, steps=50):
    tensor = torch.tensor if lib is torch else gradcli.tensor
    ps = [tensor(a.copy(), requires_grad=True) for a in (w1, b1, w2, b2)]
    optim = torch.optim if lib is torch else gopt
    groups = [{"params": ps[:2]}, {"params": ps[2:], "lr": options["lr"] * 0.5}]
    opt = getattr(optim, name)(groups, **options)
    sched = None
    if scheduler is not None:
        sched = getattr(optim.lr_scheduler, scheduler[0])(opt, **scheduler[1])
    xs, ys = tensor(x), tensor(y)
    for _ in range(steps):
        opt.zero_grad()
        h = (xs @ ps[0].t() + ps[1]).tanh()
        loss = ((h @ ps[2].t() + ps[3] - ys) ** 2).mean()
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
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
            mine = train(gradcli, name, options, sched, *data)
        except Exception as exc:  # noqa: BLE001
            failures.append(f"{label}: gradcli raised {type(exc).__name__}: {exc}")
            continue
        theirs = train(torch, name, options, sched, *data)
        worst = max(float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))) for a, b in zip(mine, theirs))
        if worst > TOL:
            failures.append(f"{label}: worst relative difference {worst:.3g}")
    return total, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--part", choices=("ops", "optim", "all"), default="all")
    args = parser.parse_args()
    failed = 0
    if args.part in ("ops", "all"):
        total, failures = compare_ops(args.seed, args.rounds)
        print(f"ops and losses: {total - len(failures)}/{total} cases agree (forward and backward, 1e-10)")
        for f in failures:
            print("  FAIL", f)
        failed += len(failures)
    if args.part in ("optim", "all"):
        total, failures = compare_optimizers(args.seed)
        print(f"optimizers: {total - len(failures)}/{total} runs of 50 steps agree (every parameter, 1e-10 relative)")
        for f in failures:
            print("  FAIL", f)
        failed += len(failures)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
