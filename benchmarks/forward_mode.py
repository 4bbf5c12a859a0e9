"""Issue 30, forward mode and vmap, beside PyTorch in one run.

    PYTHONPATH=. <python with torch 2.13> benchmarks/forward_mode.py [--quick]

1. jacfwd of f: R^10 -> R^1000, f(x) = tanh(W x) * sum(x): gradcli's jacfwd (10
   forward-mode passes) against its jacrev (1000 backward passes) and PyTorch's jacfwd.
2. Per-sample gradients: vmap(grad(loss)) over 64 samples of a 4-16-3 MLP
   (functional_call, cross entropy) against a Python loop of grad in gradcli, and
   PyTorch's vmap(grad(loss)).
3. The Hessian of the 100-variable Rosenbrock function: gradcli's torch.func.hessian
   (jacfwd over jacrev: one forward-mode pass, vmapped over the 100 basis tangents, through
   one backward) against its
   reverse-over-reverse functional.hessian, and PyTorch's torch.func.hessian.

Each row is the least time of N (the machine is shared: load only ever adds time),
the sides interleaved. Without PyTorch, the PyTorch columns are empty.
"""
from __future__ import annotations

import sys

import numpy as np

from _common import best, compare, fmt_s, fmt_x, import_torch, repeats, report, summary

REPEAT = repeats(7)
RNG = np.random.default_rng(0)
W_JAC = RNG.standard_normal((1000, 10))
X_JAC = RNG.standard_normal(10)
N_SAMPLES = 64
MLP = {"fc1.weight": RNG.standard_normal((16, 4)) * 0.5, "fc1.bias": RNG.standard_normal(16) * 0.1,
       "fc2.weight": RNG.standard_normal((3, 16)) * 0.5, "fc2.bias": RNG.standard_normal(3) * 0.1}
DATA = RNG.standard_normal((N_SAMPLES, 4))
TARGETS = RNG.integers(0, 3, N_SAMPLES)
X_HESS = RNG.uniform(-1, 1, 100)


def rosenbrock(x):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def jacobian_sides(gradcli, torch):
    from gradcli.autograd import func, func_forward

    W = gradcli.tensor(W_JAC)
    x = gradcli.tensor(X_JAC)
    f = lambda v: gradcli.tanh(W @ v) * v.sum()  # noqa: E731
    sides = {"gradcli jacfwd": lambda: func_forward.jacfwd(f)(x),
             "gradcli jacrev": lambda: func.jacrev(f)(x)}
    ref = func.jacrev(f)(x)._data
    assert np.allclose(func_forward.jacfwd(f)(x)._data, ref, rtol=1e-12, atol=1e-12)
    if torch is not None:
        tW, tx = torch.tensor(W_JAC), torch.tensor(X_JAC)
        tf = lambda v: torch.tanh(tW @ v) * v.sum()  # noqa: E731
        sides["pytorch jacfwd"] = lambda: torch.func.jacfwd(tf)(tx)
        sides["pytorch jacrev"] = lambda: torch.func.jacrev(tf)(tx)
        assert np.allclose(torch.func.jacfwd(tf)(tx).numpy(), ref)
    return sides


def per_sample_sides(gradcli, torch):
    from gradcli.autograd import func, vmap as gvmap
    from gradcli.ops import NN_FUNCTIONS as F

    params = {k: gradcli.tensor(v) for k, v in MLP.items()}
    data, targets = gradcli.tensor(DATA), gradcli.tensor(TARGETS)

    def loss(p, x, t):
        h = F["relu"](F["linear"](x.unsqueeze(0), p["fc1.weight"], p["fc1.bias"]))
        return F["cross_entropy"](F["linear"](h, p["fc2.weight"], p["fc2.bias"]), t.unsqueeze(0))

    g = func.grad(loss)
    vm = gvmap.vmap(g, in_dims=(None, 0, 0))

    def loop():
        return [g(params, data[i], targets[i]) for i in range(N_SAMPLES)]

    batched = vm(params, data, targets)
    looped = loop()
    for k in params:
        assert np.allclose(batched[k]._data, np.stack([r[k]._data for r in looped]), rtol=1e-10, atol=1e-12)
    sides = {"gradcli vmap(grad)": lambda: vm(params, data, targets), "gradcli loop of grad": loop}
    if torch is not None:
        tp = {k: torch.tensor(v) for k, v in MLP.items()}
        td, tt = torch.tensor(DATA), torch.tensor(TARGETS)
        TF = torch.nn.functional

        def tloss(p, x, t):
            h = TF.relu(TF.linear(x.unsqueeze(0), p["fc1.weight"], p["fc1.bias"]))
            return TF.cross_entropy(TF.linear(h, p["fc2.weight"], p["fc2.bias"]), t.unsqueeze(0))

        tvm = torch.func.vmap(torch.func.grad(tloss), in_dims=(None, 0, 0))
        out = tvm(tp, td, tt)
        for k in params:
            assert np.allclose(out[k].numpy(), batched[k]._data)
        sides["pytorch vmap(grad)"] = lambda: tvm(tp, td, tt)
    return sides


def hessian_sides(gradcli, torch):
    from gradcli.autograd import func_forward, functional

    x = gradcli.tensor(X_HESS)
    sides = {"gradcli hessian (fwd over rev)": lambda: func_forward.hessian(rosenbrock)(x),
             "gradcli functional.hessian (rev over rev)": lambda: functional.hessian(rosenbrock, x)}
    ref = functional.hessian(rosenbrock, x)._data
    assert np.allclose(func_forward.hessian(rosenbrock)(x)._data, ref, rtol=1e-10, atol=1e-10)
    if torch is not None:
        tx = torch.tensor(X_HESS)
        sides["pytorch torch.func.hessian"] = lambda: torch.func.hessian(rosenbrock)(tx)
        assert np.allclose(torch.func.hessian(rosenbrock)(tx).numpy(), ref)
    return sides


def main() -> None:
    import gradcli

    torch = import_torch()
    rows, summaries, details = [], [], {}
    parts = [("jacfwd R^10 -> R^1000", jacobian_sides, "gradcli jacfwd",
              ["gradcli jacrev", "pytorch jacfwd"]),
             ("vmap(grad) over 64 samples", per_sample_sides, "gradcli vmap(grad)",
              ["gradcli loop of grad", "pytorch vmap(grad)"]),
             ("Hessian, 100 variables", hessian_sides, "gradcli hessian (fwd over rev)",
              ["gradcli functional.hessian (rev over rev)", "pytorch torch.func.hessian"])]
    for title, make, ours, others in parts:
        times = compare(make(gradcli, torch), REPEAT)
        details[title] = {k: v for k, v in times.items()}
        mine = best(times[ours])
        for name, ts in times.items():
            rows.append([title, name, fmt_s(best(ts)), fmt_x(best(ts) / mine) if name != ours else "1.0x"])
        figures = {o: (best(times[o]) if o in times else None) for o in others}
        against_pytorch = [o for o in others if o.startswith("pytorch")][0]
        against_gradcli = [o for o in others if o.startswith("gradcli")][0]
        pt = figures[against_pytorch]
        summaries.append(summary(title, f"{ours} vs {against_gradcli} and PyTorch", fmt_s(mine),
                                 f"{against_gradcli} {fmt_s(figures[against_gradcli])}",
                                 None if pt is None else fmt_s(pt),
                                 None if pt is None else mine <= pt))
    report("forward_mode", ["workload", "side", "best", "vs gradcli's"], rows, summaries, details,
           notes=["the machine is shared and loaded: figures are the least of N interleaved runs",
                  "vmap runs the function once on the batch (ops/batching_rules.py); jacfwd and "
                  "hessian are one jvp vmapped over the basis"])


if __name__ == "__main__":
    sys.exit(main())
