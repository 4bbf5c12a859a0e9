"""Issue 14's conv target: Conv2d at batch 32, 3 -> 16 channels, 32x32, kernel 3,
forward plus backward (input, weight and bias gradients), at most 3x PyTorch
on one thread.

    out = conv2d(x, w, b, padding=1); out.sum().backward()

Both sides run on one thread (BLAS and PyTorch's intra-op pool), in float32
(the scripts' default dtype) and in float64. Without PyTorch the gradcli
figures are printed alone and the target is not judged.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402

import numpy as np  # noqa: E402

from _common import compare, fmt_s, fmt_x, import_torch, median, repeats, report, summary  # noqa: E402

BATCH, C_IN, C_OUT, SIZE, KERNEL = 32, 3, 16, 32, 3
REPEAT = repeats(15)
TARGET = 3.0


def data(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, C_IN, SIZE, SIZE)).astype(dtype)
    w = (rng.standard_normal((C_OUT, C_IN, KERNEL, KERNEL)) * 0.2).astype(dtype)
    b = rng.standard_normal(C_OUT).astype(dtype)
    return x, w, b


def conv_step(conv2d, ts):
    """A run of gradcli's or PyTorch's conv2d: the two write it alike."""
    def run():
        for t in ts:
            t.grad = None
        conv2d(*ts, padding=1).sum().backward()
        return [t.grad.numpy() for t in ts]
    return run


def gradcli_step(x, w, b):
    import gradcli
    from gradcli.ops import NN_FUNCTIONS

    conv2d = NN_FUNCTIONS["conv2d"]
    return conv_step(conv2d, [gradcli.tensor(a.copy(), requires_grad=True) for a in (x, w, b)])


def torch_step(torch, x, w, b):
    return conv_step(torch.nn.functional.conv2d, [torch.tensor(a, requires_grad=True) for a in (x, w, b)])


def main() -> None:
    torch = import_torch()
    if torch is not None:
        torch.set_num_threads(1)
    rows, summaries, details = [], [], {}
    for dtype in (np.float32, np.float64):
        name = np.dtype(dtype).name
        x, w, b = data(dtype)
        sides = {"gradcli": gradcli_step(x, w, b)}
        if torch is not None:
            sides["pytorch"] = torch_step(torch, x, w, b)
            mine, theirs = sides["gradcli"](), sides["pytorch"]()
            for g, r in zip(mine, theirs):
                assert np.allclose(g, r, rtol=1e-3 if dtype == np.float32 else 1e-9, atol=1e-4), \
                    "gradcli's gradients differ from PyTorch's"
        times = compare(sides, REPEAT)
        best = {k: v[0] for k, v in times.items()}
        med = {k: median(v) for k, v in times.items()}
        pt = best.get("pytorch")
        ratio = best["gradcli"] / pt if pt else None
        for side in sides:
            rows.append([f"{side} ({name})", fmt_s(med[side]), fmt_s(best[side]),
                         fmt_x(best[side] / pt) if pt else "-"])
        summaries.append(summary(f"Conv2d 3->16, 32x32, k3, batch 32, fwd+bwd, 1 thread, {name}",
                                 f"<= {TARGET}x PyTorch", fmt_s(best["gradcli"]) + (f" = {fmt_x(ratio)}" if pt else ""),
                                 None, fmt_s(pt) if pt else None, (ratio <= TARGET) if pt else None))
        details[name] = {"median_s": med, "best_s": best, "ratio": ratio}
    report("conv", ["side", "median", "best", "best vs PyTorch"], rows, summaries,
           details={**details, "repeat": REPEAT},
           notes=[f"median and best of {REPEAT} interleaved runs; the gradients of both sides agree"])


if __name__ == "__main__":
    sys.exit(main())
