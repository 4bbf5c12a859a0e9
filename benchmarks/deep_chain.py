"""Target 4, depth and memory: a 10^6-node chain runs forward and backward, and
its peak memory per node is reported [PyTorch about 1.2 KB per node at 10^5,
HIPS autograd 0.9 KB].

The chain is scalar_chain's (steps alternating `y * c + d` and `sin(y * c)`).
Each measurement runs in a fresh child process, so that the peak resident set
(`ru_maxrss`) belongs to that one graph: per node = (peak RSS during forward and
backward - RSS before the forward) / nodes. The floor keeps, by hand in numpy,
what the backward needs (one 0-d array per sin step) and applies the chain rule.

gradcli runs 10^6 nodes under the CLI's GC thresholds (what `gradcli backward`
on such a program gets), and 10^5 nodes under both GC modes, beside PyTorch at
10^5 (10^6 PyTorch nodes would take most of the minute this benchmark has).
"""
from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

from _common import (chain_forward, chain_numpy_backward, chain_numpy_forward, fmt_s, gc_mode, has_torch,
                     process_env, report, summary)

C, D = 1.0001, 0.0001
BIG, SMALL = 1_000_000, 100_000


def current_rss() -> int:
    """Resident set size now, in bytes (Linux /proc)."""
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * resource.getpagesize()


def peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KB on Linux


def child(kind: str, n: int, mode: str) -> dict:
    import numpy as np

    if kind == "gradcli":
        import gradcli as lib

        x = lib.tensor(0.5, requires_grad=True)
    elif kind == "torch":
        import torch as lib

        x = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
    else:
        lib = None
        x = np.asarray(0.5)
    kinds = [i % 2 for i in range(n // 2)]
    with gc_mode(mode):
        base = current_rss()
        t0 = time.perf_counter()
        if lib is None:
            c = np.asarray(C)
            y, saved = chain_numpy_forward(x, kinds, c, np.asarray(D))
        else:
            y = chain_forward(x, kinds, lib.sin, C, D)
        t1 = time.perf_counter()
        after_forward = current_rss()
        if lib is None:
            grad = chain_numpy_backward(saved, c)
        else:
            y.backward()
            grad = x.grad.item()
        t2 = time.perf_counter()
    return {"kind": kind, "n": n, "gc": mode, "forward_s": t1 - t0, "backward_s": t2 - t1,
            "graph_bytes_per_node": (after_forward - base) / n,
            "peak_bytes_per_node": (peak_rss() - base) / n, "grad": grad}


def run_child(kind: str, n: int, mode: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", kind, str(n), mode],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600,
                          env=process_env())
    if proc.returncode != 0:
        raise SystemExit(f"{kind} {n} failed:\n{proc.stderr.decode()[-3000:]}")
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def main() -> None:
    plan = [("numpy", BIG, "library"), ("gradcli", BIG, "cli"),
            ("numpy", SMALL, "library"), ("gradcli", SMALL, "cli"), ("gradcli", SMALL, "library")]
    if has_torch():
        plan.append(("torch", SMALL, "library"))
    results = [run_child(*p) for p in plan]
    floors = {r["n"]: r for r in results if r["kind"] == "numpy"}
    for r in results:
        ref = floors[r["n"]]["grad"]
        assert abs(r["grad"] - ref) <= 1e-6 * abs(ref) + 1e-300, f"{r['kind']}: wrong gradient"
    rows = []
    for r in results:
        total = r["forward_s"] + r["backward_s"]
        floor = floors[r["n"]]
        side = {"numpy": "numpy by hand (floor)", "torch": "pytorch"}.get(r["kind"], "gradcli")
        gc_label = {"library": "library GC", "cli": "cli GC"}[r["gc"]]
        rows.append([f"{r['n']:,}", side if r["kind"] != "gradcli" else f"gradcli, {gc_label}",
                     fmt_s(r["forward_s"]), fmt_s(r["backward_s"]),
                     f"{total / r['n'] * 1e6:.1f}",
                     f"{total / (floor['forward_s'] + floor['backward_s']):.1f}x",
                     f"{r['graph_bytes_per_node']:.0f} B", f"{r['peak_bytes_per_node']:.0f} B"])
    big = next(r for r in results if r["kind"] == "gradcli" and r["n"] == BIG)
    small_cli = next(r for r in results if r["kind"] == "gradcli" and r["n"] == SMALL and r["gc"] == "cli")
    small_lib = next(r for r in results if r["kind"] == "gradcli" and r["n"] == SMALL and r["gc"] == "library")
    tor = next((r for r in results if r["kind"] == "torch"), None)
    big_total = big["forward_s"] + big["backward_s"]
    summaries = [
        summary("deep chain 10^6 nodes, fwd+bwd (cli GC)", "runs; memory per node reported",
                f"{fmt_s(big_total)}, peak {big['peak_bytes_per_node']:.0f} B/node",
                f"{fmt_s(floors[BIG]['forward_s'] + floors[BIG]['backward_s'])}, "
                f"{floors[BIG]['peak_bytes_per_node']:.0f} B/node",
                None, True),
        summary("deep chain 10^5 nodes, peak memory per node", "reported [PyTorch ~1.2 KB]",
                f"{small_cli['peak_bytes_per_node']:.0f} B/node (cli GC), "
                f"{small_lib['peak_bytes_per_node']:.0f} B/node (library GC)",
                f"{floors[SMALL]['peak_bytes_per_node']:.0f} B/node",
                f"{tor['peak_bytes_per_node']:.0f} B/node" if tor else None,
                (small_cli["peak_bytes_per_node"] <= tor["peak_bytes_per_node"]) if tor else None),
    ]
    report("deep_chain", ["nodes", "side", "forward", "backward", "us/node", "vs floor",
                          "graph/node", "peak/node"], rows, summaries,
           details={"runs": results},
           notes=["each row is a fresh process; graph/node = RSS growth over the forward, "
                  "peak/node = ru_maxrss growth over forward and backward"])


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(child(sys.argv[2], int(sys.argv[3]), sys.argv[4])))
    else:
        sys.exit(main())
