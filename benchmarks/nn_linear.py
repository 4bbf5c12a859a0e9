"""Issue 14: nn.Linear(1024, 1024) at batch 256, float64, forward plus backward, at most
1.15x the same layer's forward and backward written by hand in numpy.

    y = x @ W.T + b; loss = ((y - t) * (y - t)).mean()

Gradients of weight and bias through `gradcli.nn.Linear` (a Module call: hooks checked,
the nodes recorded for the graph's clusters), beside PyTorch's nn.Linear.
"""
from __future__ import annotations

import sys

import numpy as np

from _common import compare, dense_data, fmt_s, fmt_x, import_torch, median, repeats, report, summary

BATCH, WIDTH = 256, 1024
REPEAT = repeats(9)
TARGET = 1.15


def numpy_step(x, t, w, b):
    """The floor: forward and backward by hand."""
    def run():
        diff = x @ w.T + b - t
        loss = (diff * diff).mean()
        g = diff * (2.0 / diff.size)
        return float(loss), [g.T @ x, g.sum(0)]
    return run


def layer_step(layer, xs, ts):
    """A run of gradcli's or PyTorch's nn.Linear: the two write it alike."""
    def run():
        layer.zero_grad()
        diff = layer(xs) - ts
        loss = (diff * diff).mean()
        loss.backward()
        return loss.item(), [layer.weight.grad.numpy(), layer.bias.grad.numpy()]
    return run


def gradcli_step(x, t, w, b):
    import gradcli
    from gradcli import nn

    layer = nn.Linear(WIDTH, WIDTH).double()
    layer.weight._data = w.copy()
    layer.bias._data = b.copy()
    return layer_step(layer, gradcli.tensor(x), gradcli.tensor(t))


def torch_step(torch, x, t, w, b):
    layer = torch.nn.Linear(WIDTH, WIDTH).double()
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(w))
        layer.bias.copy_(torch.from_numpy(b))
    return layer_step(layer, torch.from_numpy(x), torch.from_numpy(t))


def main() -> None:
    torch = import_torch()
    x, t, (w, b) = dense_data(BATCH, WIDTH, 1)
    floor_name = "numpy by hand (floor)"
    sides = {floor_name: numpy_step(x, t, w, b), "gradcli": gradcli_step(x, t, w, b)}
    if torch is not None:
        sides["pytorch"] = torch_step(torch, x, t, w, b)
    ref_loss, ref_grads = sides[floor_name]()
    for name, fn in sides.items():
        loss, grads = fn()
        assert np.isclose(loss, ref_loss, rtol=1e-12), f"{name}: wrong loss"
        for g, r in zip(grads, ref_grads):
            assert np.allclose(g, r, rtol=1e-9, atol=1e-12), f"{name}: wrong gradient"
    times = compare(sides, REPEAT)
    med = {k: median(v) for k, v in times.items()}
    best = {k: v[0] for k, v in times.items()}
    rows = [[k, fmt_s(med[k]), fmt_s(best[k]), fmt_x(med[k] / med[floor_name]),
             fmt_x(best[k] / best[floor_name])] for k in sides]
    ratio = best["gradcli"] / best[floor_name]
    pt = best.get("pytorch")
    summaries = [summary("nn.Linear 1024, batch 256, fwd+bwd", f"<= {TARGET}x numpy by hand",
                         f"{fmt_s(best['gradcli'])} = {fmt_x(ratio)}", fmt_s(best[floor_name]),
                         f"{fmt_s(pt)} = {fmt_x(pt / best[floor_name])}" if pt else None,
                         ratio <= TARGET)]
    report("nn_linear", ["side", "median", "best", "median vs floor", "best vs floor"], rows,
           summaries, details={"median_s": med, "best_s": best, "ratio": ratio, "repeat": REPEAT},
           notes=[f"median and best of {REPEAT} interleaved runs (the summary uses best); "
                  "the gradients of all sides agree"])


if __name__ == "__main__":
    sys.exit(main())
