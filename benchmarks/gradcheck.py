"""Target 8, gradcheck: n = 1000 input of `tanh(W @ x)` (W fixed, 1000 x 1000).
Finite differences no slower than `torch.autograd.gradcheck` [2.1 s]; fast mode
in milliseconds [PyTorch 5 ms].

Library: `gradcli.autograd.gradcheck.gradcheck(f, (x,))` and with
`fast_mode=True`, beside PyTorch's. CLI: `gradcli gradcheck FILE --no-sympy`
(and `--fast`), whole process, when the command exists. The floor does the same
work by hand in numpy: 2n evaluations of f for the central differences, n
vector-Jacobian products for the analytical Jacobian, and the comparison.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

from _common import (best, compare, fmt_s, fmt_x, gradcli_cmd, import_torch, repeats, report,
                     run_process, summary)

N = 1000
EPS, ATOL, RTOL = 1e-6, 1e-5, 1e-3
REPEAT_FULL = 3
REPEAT_FAST = repeats(21)
REPEAT_CLI = 3

PROGRAM = f"""\
manual_seed(0)
W = randn({N}, {N}) / {N ** 0.5}
x = randn({N}, requires_grad=True)
z = tanh(W @ x)
"""


def data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((N, N)) / np.sqrt(N), rng.standard_normal(N)


def floor_full(W, x0):
    def run():
        x = x0.copy()
        num = np.empty((N, N))
        for j in range(N):
            orig = x[j]
            x[j] = orig + EPS
            plus = np.tanh(W @ x)
            x[j] = orig - EPS
            minus = np.tanh(W @ x)
            x[j] = orig
            num[:, j] = (plus - minus) / (2 * EPS)
        y = np.tanh(W @ x)
        dy = 1 - y * y
        ana = np.empty((N, N))
        for r in range(N):
            seed = np.zeros(N)
            seed[r] = 1.0
            ana[r] = (seed * dy) @ W
        return bool(np.all(np.abs(ana - num) <= ATOL + RTOL * np.abs(num)))
    return run


def floor_fast(W, x0):
    def run():
        rng = np.random.default_rng(0)
        x = x0.copy()
        y = np.tanh(W @ x)
        v = rng.uniform(0, 1, N)
        u = rng.uniform(0, 1, N)
        analytical = ((v * (1 - y * y)) @ W) @ u
        numerical = v @ (np.tanh(W @ (x + EPS * u)) - np.tanh(W @ (x - EPS * u))) / (2 * EPS)
        return bool(abs(analytical - numerical) <= ATOL + RTOL * abs(numerical))
    return run


def gradcli_check(W, x0, fast):
    import gradcli
    from gradcli.autograd.gradcheck import gradcheck

    Wt = gradcli.tensor(W)
    x = gradcli.tensor(x0.copy(), requires_grad=True)

    def f(x):
        return gradcli.tanh(Wt @ x)

    return lambda: gradcheck(f, (x,), eps=EPS, atol=ATOL, rtol=RTOL, fast_mode=fast)


def torch_check(torch, W, x0, fast):
    Wt = torch.from_numpy(W)
    x = torch.tensor(x0, requires_grad=True)

    def f(x):
        return torch.tanh(Wt @ x)

    return lambda: torch.autograd.gradcheck(f, (x,), eps=EPS, atol=ATOL, rtol=RTOL, fast_mode=fast)


def cli_checks(tmp: Path) -> dict:
    """{label: (seconds, exit code)} of the gradcheck command, or {} when there is none."""
    _, helped = run_process(gradcli_cmd() + ["gradcheck", "--help"])
    if helped.returncode != 0:
        return {}
    help_text = helped.stdout.decode()
    prog = tmp / "tanh_matvec.py"
    prog.write_text(PROGRAM)
    runs = {"full": ["--no-sympy"] if "--no-sympy" in help_text else []}
    if "--fast" in help_text:
        runs["fast"] = runs["full"] + ["--fast"]
    out = {}
    for label, extra in runs.items():
        tries = []
        for _ in range(REPEAT_CLI):
            t, proc = run_process(gradcli_cmd() + ["gradcheck", str(prog)] + extra, timeout=600)
            tries.append((t, proc.returncode, proc.stderr.decode()[-300:] if proc.returncode else ""))
        out[label] = min(tries)
    return out


def main() -> None:
    torch = import_torch()
    W, x0 = data()
    full = {"numpy by hand (floor)": floor_full(W, x0), "gradcli": gradcli_check(W, x0, False)}
    fast = {"numpy by hand (floor)": floor_fast(W, x0), "gradcli": gradcli_check(W, x0, True)}
    if torch is not None:
        full["pytorch"] = torch_check(torch, W, x0, False)
        fast["pytorch"] = torch_check(torch, W, x0, True)
    for sides in (full, fast):
        for name, fn in sides.items():
            assert fn() is True, f"{name}: the check fails on a correct function"
    t_full = {k: best(v) for k, v in compare(full, REPEAT_FULL, warmup=0).items()}
    t_fast = {k: best(v) for k, v in compare(fast, REPEAT_FAST).items()}
    with tempfile.TemporaryDirectory() as tmp:
        cli = cli_checks(Path(tmp))
    rows = []
    for label, res in (("finite differences, full", t_full), ("fast mode", t_fast)):
        for side, t in res.items():
            rows.append([label, side, fmt_s(t), fmt_x(t / res["numpy by hand (floor)"]),
                         fmt_x(t / res["pytorch"]) if "pytorch" in res else None])
    for label, (t, code, err) in cli.items():
        rows.append([f"CLI gradcheck, {label}", "gradcli (whole process)", fmt_s(t), None,
                     f"exit {code}"])
    pf, pq = t_full.get("pytorch"), t_fast.get("pytorch")
    g_full, g_fast = t_full["gradcli"], t_fast["gradcli"]
    summaries = [
        summary("gradcheck n=1000 tanh(W @ x), full (library)", "<= 1x torch.autograd.gradcheck",
                fmt_s(g_full) + (f" = {fmt_x(g_full / pf)} PyTorch" if pf else ""),
                fmt_s(t_full["numpy by hand (floor)"]), fmt_s(pf) if pf else None,
                (g_full <= pf) if pf else None),
        summary("gradcheck n=1000, fast_mode (library)", "milliseconds [PyTorch 5 ms]",
                fmt_s(g_fast), fmt_s(t_fast["numpy by hand (floor)"]), fmt_s(pq) if pq else None,
                g_fast < 0.1),
    ]
    if cli:
        t, code, _ = cli["full"]
        summaries.append(summary("gradcli gradcheck --no-sympy n=1000 (CLI, whole process)",
                                 "<= 1x torch.autograd.gradcheck", f"{fmt_s(t)} (exit {code})",
                                 None, fmt_s(pf) if pf else None,
                                 (code == 0 and t <= pf) if pf else None))
        if "fast" in cli:
            t, code, _ = cli["fast"]
            summaries.append(summary("gradcli gradcheck --fast n=1000 (CLI, whole process)",
                                     "milliseconds + process start", f"{fmt_s(t)} (exit {code})",
                                     None, None, None))
    notes = [f"best of {REPEAT_FULL} (full) and {REPEAT_FAST} (fast) interleaved runs; "
             f"CLI: best of {REPEAT_CLI} processes"]
    if not cli:
        notes.append("the CLI has no gradcheck command yet: CLI rows skipped")
    for label, (_, code, err) in cli.items():
        if code:
            notes.append(f"CLI {label} exited {code}: {err.strip()}")
    report("gradcheck", ["check", "side", "best", "vs floor", "vs pytorch"], rows, summaries,
           details={"full_s": t_full, "fast_s": t_fast,
                    "cli": {k: {"seconds": v[0], "exit": v[1]} for k, v in cli.items()}},
           notes=notes)


if __name__ == "__main__":
    sys.exit(main())
