"""Target 3, tensor work: a 3-layer MLP, batch 256, width 1024, float64,
forward plus backward, at most 1.15x the same network's forward and backward
written by hand in numpy [HIPS autograd 1.3-1.45x, JAX eager 1.3-1.8x].

    z1 = x @ W1 + b1; h1 = relu(z1); z2 = h1 @ W2 + b2; h2 = relu(z2)
    z3 = h2 @ W3 + b3; loss = ((z3 - t) * (z3 - t)).mean()

Gradients of the six parameters (not of x). Each side clears its .grad before
a run, so each run allocates its gradients as a training step's first
backward does. numpy's BLAS and PyTorch use the same two cores.
"""
from __future__ import annotations

import sys

import numpy as np

from _common import compare, dense_data, fmt_s, fmt_x, import_torch, median, repeats, report, summary

BATCH, WIDTH = 256, 1024
REPEAT = repeats(9)
TARGET = 1.15


def numpy_step(x, t, params):
    """The floor: forward and backward by hand."""
    def run():
        W1, b1, W2, b2, W3, b3 = params
        z1 = x @ W1 + b1
        h1 = np.maximum(z1, 0.0)
        z2 = h1 @ W2 + b2
        h2 = np.maximum(z2, 0.0)
        z3 = h2 @ W3 + b3
        diff = z3 - t
        loss = (diff * diff).mean()
        g3 = diff * (2.0 / diff.size)
        gW3 = h2.T @ g3
        gb3 = g3.sum(0)
        gz2 = (g3 @ W3.T) * (z2 > 0)
        gW2 = h1.T @ gz2
        gb2 = gz2.sum(0)
        gz1 = (gz2 @ W2.T) * (z1 > 0)
        gW1 = x.T @ gz1
        gb1 = gz1.sum(0)
        return float(loss), [gW1, gb1, gW2, gb2, gW3, gb3]
    return run


def tensor_step(relu, xs, ts, ps):
    """A run of the network on gradcli's or PyTorch's tensors: the two write it alike."""
    def run():
        for p in ps:
            p.grad = None
        W1, b1, W2, b2, W3, b3 = ps
        h1 = relu(xs @ W1 + b1)
        h2 = relu(h1 @ W2 + b2)
        diff = h2 @ W3 + b3 - ts
        loss = (diff * diff).mean()
        loss.backward()
        return loss.item(), [p.grad.numpy() for p in ps]
    return run


def gradcli_step(x, t, params):
    import gradcli

    return tensor_step(gradcli.relu, gradcli.tensor(x), gradcli.tensor(t),
                       [gradcli.tensor(p.copy(), requires_grad=True) for p in params])


def torch_step(torch, x, t, params):
    return tensor_step(torch.relu, torch.from_numpy(x), torch.from_numpy(t),
                       [torch.tensor(p, requires_grad=True) for p in params])


def main() -> None:
    torch = import_torch()
    x, t, params = dense_data(BATCH, WIDTH, 3)
    sides = {"numpy by hand (floor)": numpy_step(x, t, params),
             "gradcli": gradcli_step(x, t, params)}
    if torch is not None:
        sides["pytorch"] = torch_step(torch, x, t, params)
    ref_loss, ref_grads = sides["numpy by hand (floor)"]()
    for name, fn in sides.items():
        loss, grads = fn()
        assert np.isclose(loss, ref_loss, rtol=1e-12), f"{name}: wrong loss"
        for g, r in zip(grads, ref_grads):
            assert np.allclose(g, r, rtol=1e-9, atol=1e-12), f"{name}: wrong gradient"
    float32 = hasattr(__import__("gradcli"), "dtype")   # a tree with real dtypes (issue 12)
    if float32:
        x32, t32, params32 = x.astype(np.float32), t.astype(np.float32), [p.astype(np.float32) for p in params]
        sides["numpy float32 by hand"] = numpy_step(x32, t32, params32)
        sides["gradcli float32"] = gradcli_step(x32, t32, params32)
        loss32, grads32 = sides["gradcli float32"]()
        assert np.isclose(loss32, ref_loss, rtol=1e-4) and grads32[0].dtype == np.float32, "float32 loss"
    times = compare(sides, REPEAT)
    med = {k: median(v) for k, v in times.items()}
    best = {k: v[0] for k, v in times.items()}
    floor = med["numpy by hand (floor)"]
    rows = [[k, fmt_s(med[k]), fmt_s(best[k]), fmt_x(med[k] / floor),
             fmt_x(best[k] / best["numpy by hand (floor)"])] for k in sides]
    ratio = best["gradcli"] / best["numpy by hand (floor)"]
    pt = best.get("pytorch")
    summaries = [summary("MLP 3x1024, batch 256, fwd+bwd", f"<= {TARGET}x numpy by hand",
                         f"{fmt_s(best['gradcli'])} = {fmt_x(ratio)}", fmt_s(best["numpy by hand (floor)"]),
                         f"{fmt_s(pt)} = {fmt_x(pt / best['numpy by hand (floor)'])}" if pt else None,
                         ratio <= TARGET)]
    if float32:
        ratio32 = best["gradcli float32"] / best["numpy float32 by hand"]
        summaries.append(summary("MLP float32, fwd+bwd", f"<= {TARGET}x numpy float32 by hand",
                                 f"{fmt_s(best['gradcli float32'])} = {fmt_x(ratio32)}",
                                 fmt_s(best["numpy float32 by hand"]), None, ratio32 <= TARGET))
    report("mlp", ["side", "median", "best", "median vs floor", "best vs floor"], rows, summaries,
           details={"median_s": med, "best_s": best, "ratio": ratio, "repeat": REPEAT},
           notes=[f"median and best of {REPEAT} interleaved runs (the summary uses best); "
                  "the gradients of all sides agree"])


if __name__ == "__main__":
    sys.exit(main())
