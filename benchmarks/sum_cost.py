"""What a float32 `gradcli.sum` / `mean` / `cumsum` costs in this tree beside another tree
(issue 29: within 1.5x of the round's start), and beside numpy's own `np.sum`.

    python benchmarks/sum_cost.py --base /tmp/work/base            # every case, 7 rounds
    python benchmarks/sum_cost.py --base /tmp/work/base --rounds 15 --only sum

Each round runs one process per tree (`PYTHONPATH=<tree>`, the trees alternating, so that
a process the machine slows down hits one side only once); a process times every case as
the best of 5 batches (no grad, float32 tensors made once), and the table keeps each
case's best over the rounds. Byte-compile both trees first (`python -m compileall -q
gradcli`: this machine sets PYTHONDONTWRITEBYTECODE). The figures are microseconds per
call and the ratio this tree / base.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZES = (1, 10, 100, 1000, 10_000, 100_000, 1_000_000)


def cases():
    """(name, make, call): make(np, g) -> the operand; call(g, t) the measured op."""
    out = []
    for n in SIZES:
        out.append((f"sum {n:,}", lambda np, g, n=n: g.tensor(_data(np, n)), lambda g, t: g.sum(t)))
    for n in (10, 1000, 100_000):
        out.append((f"mean {n:,}", lambda np, g, n=n: g.tensor(_data(np, n)), lambda g, t: g.mean(t)))
        out.append((f"cumsum {n:,}", lambda np, g, n=n: g.tensor(_data(np, n)), lambda g, t: g.cumsum(t, 0)))
    for rows, cols in ((16, 64), (100, 300), (1000, 1000)):
        shape = f"{rows}x{cols}"
        for dim in (0, 1):
            out.append((f"sum {shape} dim {dim}", lambda np, g, r=rows, c=cols: g.tensor(_data(np, r * c).reshape(r, c)),
                        lambda g, t, d=dim: g.sum(t, d)))
        out.append((f"sum {shape}.T dim 1 keepdim", lambda np, g, r=rows, c=cols: g.tensor(_data(np, r * c).reshape(r, c)).T,
                    lambda g, t: g.sum(t, 1, keepdim=True)))
        out.append((f"mean {shape} dim 1", lambda np, g, r=rows, c=cols: g.tensor(_data(np, r * c).reshape(r, c)),
                    lambda g, t: g.mean(t, 1)))
    out.append(("sum 1000x1000[:, ::3] all", lambda np, g: g.tensor(_data(np, 10 ** 6).reshape(1000, 1000))[:, ::3],
                lambda g, t: g.sum(t)))
    return out


def _data(np, n):
    return (np.random.default_rng(0).standard_normal(n) * 3).astype(np.float32)


def child(only: str | None) -> None:
    """In the measured tree: every case's best time over 5 batches, as JSON."""
    import numpy as np

    import gradcli as g
    results = {}
    with g.no_grad():
        for name, make, call in cases():
            if only and only not in name:
                continue
            t = make(np, g)
            call(g, t)
            t0 = time.perf_counter()
            call(g, t)
            batch = max(1, int(2e-3 / max(time.perf_counter() - t0, 1e-7)))
            best = float("inf")
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(batch):
                    call(g, t)
                best = min(best, (time.perf_counter() - t0) / batch)
            results[name] = best
        if not only or "np.sum" in only or only in "sum":
            for n in SIZES:
                a = _data(np, n)
                t0 = time.perf_counter()
                batch = max(1, int(2e-3 / max(1e-7, (np.sum(a), time.perf_counter() - t0)[1])))
                best = float("inf")
                for _ in range(5):
                    t0 = time.perf_counter()
                    for _ in range(batch):
                        np.sum(a)
                    best = min(best, (time.perf_counter() - t0) / batch)
                results[f"np.sum {n:,}"] = best
    print(json.dumps(results))


def run(tree: str, only: str | None) -> dict:
    env = dict(os.environ, PYTHONPATH=tree)
    args = [sys.executable, str(HERE / "sum_cost.py"), "--child"] + (["--only", only] if only else [])
    out = subprocess.run(args, env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="/tmp/work/base", help="the tree to compare with")
    parser.add_argument("--tree", default=str(HERE.parent), help="this tree")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", help="cases whose name contains this")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.only)
        return
    best: dict[str, dict[str, float]] = {"base": {}, "this": {}}
    for _ in range(args.rounds):
        for side, tree in (("base", args.base), ("this", args.tree)):
            for name, t in run(tree, args.only).items():
                best[side][name] = min(best[side].get(name, float("inf")), t)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (2 cores); best of {args.rounds} rounds x 5 batches")
    print("| case | base (us) | this (us) | this / base | np.sum (us) |")
    print("|---|---|---|---|---|")
    for name, _, _ in cases():
        if name not in best["this"]:
            continue
        b, t = best["base"].get(name), best["this"][name]
        n = name.split()[1] if name.startswith("sum ") and "x" not in name and "dim" not in name else None
        ref = best["this"].get(f"np.sum {n}") if n else None
        print(f"| {name} | {b * 1e6:.1f} | {t * 1e6:.1f} | {t / b:.2f}x | {'' if ref is None else f'{ref * 1e6:.1f}'} |")


if __name__ == "__main__":
    main()
