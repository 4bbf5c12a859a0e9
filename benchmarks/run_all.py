"""Run every benchmark, one process each with this interpreter, and print the
figures beside their targets as the Markdown table of benchmarks/README.md.

    python benchmarks/run_all.py                      # all nine
    python benchmarks/run_all.py mlp gradcheck        # some
    python benchmarks/run_all.py --blas-threads 1     # numpy's and PyTorch's BLAS on one thread
    python benchmarks/run_all.py --json results.jsonl # also keep each benchmark's JSON line
    python benchmarks/run_all.py --compare HEAD~3 --quick gradcheck mlp
                                                      # an older commit beside the working tree

Run it with an interpreter that has PyTorch to fill the PyTorch column; without
it, that column says "-".
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BENCHMARKS = ["cli_start", "scalar_chain", "mlp", "deep_chain", "higher_order", "parse", "points",
              "gradcheck", "graph", "conv"]


def run(name: str, env: dict, echo: bool = True, label: str = "") -> dict | None:
    """One benchmark in its own process: its JSON line, or None if it failed."""
    if echo:
        print(f"\n### {name}{label}", flush=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(HERE / f"{name}.py")], stdout=subprocess.PIPE,
                            env=env, text=True)
    last = None
    try:
        for line in proc.stdout:
            if echo:
                sys.stdout.write(line)
                sys.stdout.flush()
            if line.startswith("{"):
                last = line
        proc.wait()
    finally:
        if proc.poll() is None:   # interrupted: the benchmark goes too
            proc.kill()
            proc.wait()
    print(f"({name}{label}: {time.perf_counter() - t0:.0f} s, exit {proc.returncode})", flush=True)
    if proc.returncode != 0 or last is None:
        return None
    return json.loads(last)


def markdown(docs: list[dict]) -> str:
    def met(v):
        return {True: "met", False: "**missed**", None: "-"}[v]

    lines = ["| benchmark | measure | target | gradcli | floor | PyTorch | |",
             "|---|---|---|---|---|---|---|"]
    for doc in docs:
        for s in doc["summary"]:
            lines.append(f"| {doc['benchmark']} | {s['metric']} | {s['target']} | {s['gradcli'] or '-'} "
                         f"| {s['floor'] or '-'} | {s['pytorch'] or '-'} | {met(s['met'])} |")
    return "\n".join(lines)


# -- --compare REV ------------------------------------------------------------------------


@contextmanager
def checkout(rev: str):
    """REV checked out in a temporary git worktree (detached), removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix="gradcli-compare-"))
    path = tmp / "tree"
    try:
        done = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(path),
                               rev], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"--compare {rev}: git worktree add failed: {done.stderr.strip()}")
        yield path
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)],
                       capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "prune"], capture_output=True)


# A figure's leading quantity: "232.0 ms = 1.73x" -> (0.232, "s"), "5,319 points/s" -> (5319, "points/s"),
# "4,065/s (3,208/s overall)" -> (4065, "/s").
_QUANTITY = re.compile(r"^\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*(us|ms|s|x|[A-Za-z]*/[A-Za-z]+|[A-Za-z]+)?")
_SECONDS = {"us": 1e-6, "ms": 1e-3, "s": 1.0}


def quantity(figure) -> tuple | None:
    """(value, unit) of a figure's leading number, times in seconds; None when it has none."""
    m = _QUANTITY.match(figure or "")
    if not m:
        return None
    value, unit = float(m.group(1).replace(",", "")), m.group(2) or ""
    if unit in _SECONDS:
        return value * _SECONDS[unit], "s"
    return value, unit


def ratio(old, new) -> str:
    """new / old of two figures; a rate (".../s") counts the other way, so > 1 is always worse."""
    a, b = quantity(old), quantity(new)
    if a is None or b is None or a[1] != b[1] or not a[0] or not b[0]:
        return "-"
    r = b[0] / a[0] if not a[1].endswith("/s") else a[0] / b[0]
    return f"{r:.2f}x" + (" **slower**" if r > 1.1 else "")


def compare_markdown(rev: str, pairs: dict) -> str:
    """Both columns per figure: {name: [(old doc, new doc), ...]} of the interleaved rounds."""
    lines = [f"| benchmark | measure | {rev} | working tree | tree / {rev} |", "|---|---|---|---|---|"]
    for name, rounds in pairs.items():
        metrics = []
        for old, new in rounds:
            for doc in (old, new):
                for s in doc["summary"] if doc else []:
                    if s["metric"] not in metrics:
                        metrics.append(s["metric"])
        for metric in metrics:
            def best(side):   # the best figure of the rounds (least time, or most per second)
                figures = [next((s["gradcli"] for s in doc["summary"] if s["metric"] == metric), None)
                           for doc in (r[side] for r in rounds) if doc]
                figures = [f for f in figures if f]
                known = [f for f in figures if quantity(f)]
                if not known:
                    return figures[0] if figures else None
                rate = quantity(known[0])[1].endswith("/s")
                return (max if rate else min)(known, key=lambda f: quantity(f)[0])
            old, new = best(0), best(1)
            lines.append(f"| {name} | {metric} | {old or '-'} | {new or '-'} | {ratio(old, new)} |")
    return "\n".join(lines)


def run_compare(rev: str, names: list, env: dict, rounds: int) -> int:
    """Each benchmark for REV and for the working tree, alternating, then both columns."""
    label = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], capture_output=True,
                           text=True).stdout.strip() or rev
    pairs, failed = {}, []
    with checkout(rev) as tree:
        sides = {0: (f" @ {rev} ({label})", dict(env, GRADCLI_BENCH_TREE=str(tree))),
                 1: (" @ working tree", dict(env, GRADCLI_BENCH_TREE=str(ROOT)))}
        for name in names:
            pairs[name] = []
            for k in range(rounds):
                docs = {}
                for side in ((0, 1) if k % 2 == 0 else (1, 0)):   # who goes first alternates
                    docs[side] = run(name, sides[side][1], echo=False, label=sides[side][0])
                if docs[0] is None or docs[1] is None:
                    failed.append(name)
                pairs[name].append((docs[0], docs[1]))
    print("\n" + compare_markdown(rev, pairs))
    if failed:
        print(f"\nfailed: {', '.join(sorted(set(failed)))}")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    parser.add_argument("--blas-threads", type=int, help="OPENBLAS/OMP/MKL threads for the benchmarks")
    parser.add_argument("--json", help="append each benchmark's JSON line to this file")
    parser.add_argument("--compare", metavar="REV",
                        help="run each benchmark for the commit REV (a temporary git worktree) and for "
                             "the working tree, alternating, and print both columns with their ratio")
    parser.add_argument("--rounds", type=int, default=1,
                        help="with --compare: how many times to run each side (default 1)")
    parser.add_argument("--quick", action="store_true",
                        help="fewer repeats in each benchmark (at most 3), for a short run")
    args = parser.parse_args()
    names = args.names or BENCHMARKS
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
    env = dict(os.environ)
    if args.blas_threads:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(args.blas_threads)
    if args.quick:
        env["GRADCLI_BENCH_QUICK"] = "1"
    print(f"python {sys.version.split()[0]} ({sys.executable}), load {os.getloadavg()[0]:.1f}",
          flush=True)
    if args.compare:
        # a kill (timeout, a closed session) still removes the temporary worktree
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
        return run_compare(args.compare, names, env, max(args.rounds, 1))
    env["GRADCLI_BENCH_TREE"] = str(ROOT)
    docs, failed = [], []
    for name in names:
        doc = run(name, env)
        if doc is None:
            failed.append(name)
        else:
            docs.append(doc)
            if args.json:
                with open(args.json, "a") as fh:
                    fh.write(json.dumps(doc) + "\n")
    print("\n" + markdown(docs))
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
