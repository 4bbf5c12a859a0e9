"""Target 5, higher order: no slower than PyTorch's `create_graph` and
`autograd.functional.hessian` [PyTorch 35 ms and 28 ms].

Second derivative: a 1,000-op scalar chain (scalar_chain's steps), then
`g = grad(y, x, create_graph=True)` and `grad(g, x)`. The floor carries value,
first and second derivative forward by hand on numpy 0-d arrays.

Hessian: the 100-variable Rosenbrock function
`sum(100 * (x[1:] - x[:-1]**2)**2 + (1 - x[:-1])**2)` through
`gradcli.autograd.functional.hessian` (one create_graph gradient, then one
backward per row, as PyTorch's default `vectorize=False`). The floor is the
closed-form tridiagonal Hessian in numpy.
"""
from __future__ import annotations

import sys

import numpy as np

from _common import best, compare, fmt_s, fmt_x, import_torch, repeats, report, summary

N_OPS = 1000
N_VARS = 100
C, D = 1.0001, 0.0001
REPEAT = repeats(21)


def kinds():
    return [i % 2 for i in range(N_OPS // 2)]


def chain(lib, x):
    y = x
    sin = lib.sin
    for k in kinds():
        y = y * C + D if k == 0 else sin(y * C)
    return y


def second_gradcli():
    import gradcli

    x = gradcli.tensor(0.5, requires_grad=True)
    (g,) = gradcli.autograd.grad(chain(gradcli, x), x, create_graph=True)
    (gg,) = gradcli.autograd.grad(g, x)
    return gg.item()


def second_torch(torch):
    def run():
        x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
        (g,) = torch.autograd.grad(chain(torch, x), x, create_graph=True)
        (gg,) = torch.autograd.grad(g, x)
        return gg.item()
    return run


def second_numpy():
    """Value, first and second derivative carried forward by hand."""
    c, d = np.asarray(C), np.asarray(D)
    v, d1, d2 = np.asarray(0.5), np.asarray(1.0), np.asarray(0.0)
    for k in kinds():
        if k == 0:
            v, d1, d2 = v * c + d, d1 * c, d2 * c
        else:
            u, u1, u2 = v * c, d1 * c, d2 * c
            s, co = np.sin(u), np.cos(u)
            v, d1, d2 = s, co * u1, co * u2 - s * u1 * u1
    return float(d2)


def rosenbrock(x):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def point():
    return np.random.default_rng(0).uniform(0.5, 1.5, N_VARS)


def hessian_gradcli():
    import gradcli
    from gradcli.autograd.functional import hessian

    return hessian(rosenbrock, gradcli.tensor(point())).numpy()


def hessian_torch(torch):
    def run():
        return torch.autograd.functional.hessian(rosenbrock, torch.tensor(point())).numpy()
    return run


def hessian_numpy():
    x = point()
    diag = np.zeros(N_VARS)
    diag[:-1] += 1200 * x[:-1] ** 2 - 400 * x[1:] + 2
    diag[1:] += 200
    off = -400 * x[:-1]
    return np.diag(diag) + np.diag(off, 1) + np.diag(off, -1)


def main() -> None:
    torch = import_torch()
    assert np.isclose(second_gradcli(), second_numpy(), rtol=1e-9), "gradcli: wrong second derivative"
    assert np.allclose(hessian_gradcli(), hessian_numpy(), rtol=1e-9), "gradcli: wrong Hessian"
    results = {}
    for label, sides in (
        ("d2/dx2 through 1,000 ops", {"floor": second_numpy,
                                      "gradcli, library GC": (second_gradcli, "library"),
                                      "gradcli, cli GC": (second_gradcli, "cli"),
                                      **({"pytorch": second_torch(torch)} if torch else {})}),
        ("hessian, 100 variables", {"floor": hessian_numpy,
                                    "gradcli, library GC": (hessian_gradcli, "library"),
                                    "gradcli, cli GC": (hessian_gradcli, "cli"),
                                    **({"pytorch": hessian_torch(torch)} if torch else {})}),
    ):
        if torch:
            ref = sides["pytorch"]()
            assert np.allclose(sides["gradcli, cli GC"][0](), ref, rtol=1e-9), f"{label}: gradcli differs from PyTorch"
        results[label] = {k: best(v) for k, v in compare(sides, REPEAT).items()}
    rows = []
    for label, res in results.items():
        for side, t in res.items():
            rows.append([label, {"floor": "numpy by hand (floor)"}.get(side, side), fmt_s(t),
                         fmt_x(t / res["floor"]), fmt_x(t / res["pytorch"]) if "pytorch" in res else None])
    summaries = []
    for label, res in results.items():
        pt = res.get("pytorch")
        for gc_label in ("library GC", "cli GC"):
            t = res[f"gradcli, {gc_label}"]
            summaries.append(summary(f"{label} ({gc_label})", "<= 1x PyTorch",
                                     f"{fmt_s(t)}" + (f" = {fmt_x(t / pt)} PyTorch" if pt else ""),
                                     fmt_s(res["floor"]), fmt_s(pt) if pt else None,
                                     (t <= pt) if pt else None))
    report("higher_order", ["task", "side", "best", "vs floor", "vs pytorch"], rows, summaries,
           details={"best_s": results, "repeat": REPEAT},
           notes=[f"best of {REPEAT} interleaved runs; all sides agree on the derivatives"])


if __name__ == "__main__":
    sys.exit(main())
