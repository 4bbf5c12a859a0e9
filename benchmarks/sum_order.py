"""The cost of summing in PyTorch's order (gradcli/ops/torch_order.py) beside numpy's own sum.

    python benchmarks/sum_order.py                     # every case, float32
    python benchmarks/sum_order.py --against OLD.py    # an older torch_order.py too, same process
    python benchmarks/sum_order.py --dtype float16 --quick
    python benchmarks/sum_order.py --instructions --against OLD.py   # under valgrind

Issue 29 asks the emulated order to cost within 1.5x of what gradcli paid before it, which
was numpy's `np.sum(x, axis, keepdims=...)`. Each case times the sides interleaved, in
batches, and keeps the best batch of each: the machine's load hits every side alike and the
best of many is the least disturbed. The figure is a ratio to numpy, not a time.
`--instructions` counts instructions instead (one process under valgrind's callgrind, a
profile dumped at each `os.getppid()` between the sides): they do not move with the load.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from gradcli.ops import torch_order  # noqa: E402


def cases(dtype):
    """(name, array, axes, keepdim): whole sums of 1 to 10^6 elements, dims, views."""
    rng = np.random.default_rng(0)

    def arr(*shape):
        return (rng.standard_normal(shape) * 3).astype(dtype)

    out = [(f"all {n:,}", arr(n), None, False) for n in (1, 7, 16, 100, 2000, 10_000, 40_000, 10 ** 5, 10 ** 6)]
    big, mid, cube = arr(1000, 1000), arr(33, 65), arr(60, 70, 9)
    out += [
        ("33x65 dim 0", mid, (0,), False), ("33x65 dim 1", mid, (1,), False),
        ("33x65 dim 1 keepdim", mid, (1,), True),
        ("100x300 dim 0", arr(100, 300), (0,), False), ("300x100 dim 1", arr(300, 100), (1,), False),
        ("1000x1000 dim 0", big, (0,), False), ("1000x1000 dim 1", big, (1,), False),
        ("1000x1000 .T dim 0", big.T, (0,), False), ("1000x1000 [:, :700] all", big[:, :700], None, False),
        ("60x70x9 dims 0,2 keepdim", cube, (0, 2), True), ("60x70x9 dim 1", cube, (1,), False),
        ("60x70x9 .T dim 1", cube.transpose(2, 0, 1), (1,), False),
        ("60x70x9 [::2, ::3, 1:] dim 0", cube[::2, ::3, 1:], (0,), False),
        ("16x64 dim 0 keepdim", arr(16, 64), (0,), True), ("all 16x64", arr(16, 64), None, False),
        ("256x10 dim 1", arr(256, 10), (1,), False), ("2000x1 dim 0", arr(2000, 1), (0,), False),
    ]
    return out


def best(fn, batch, rounds):
    """Seconds per call of the best of `rounds` batches (one generator of batch timings)."""
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(batch):
            fn()
        yield (time.perf_counter() - t) / batch


def measure(sides, rounds):
    """Best seconds per call of each side, the sides' batches interleaved."""
    t0 = time.perf_counter()
    for fn in sides.values():
        fn()
    one = max(time.perf_counter() - t0, 1e-6) / len(sides)
    batch = max(1, int(2e-3 / one))
    gens = {k: best(fn, batch, rounds) for k, fn in sides.items()}
    times = {k: float("inf") for k in sides}
    for _ in range(rounds):
        for k, g in gens.items():
            times[k] = min(times[k], next(g))
    return times


def count_sides(sides, size):
    """Under callgrind: each side warmed up, then `reps` calls between two dumps."""
    reps = max(2, min(50, 200_000 // max(size, 1)))
    for fn in sides.values():
        fn()
        os.getppid()   # dump: the warm-up
        for _ in range(reps):
            fn()
        os.getppid()   # dump: `reps` calls
    print(f"REPS {reps}", flush=True)


def instructions(argv):
    """Run this script under callgrind and read the instructions per call of each side."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=getppid",
                              f"--callgrind-out-file={tmp}/cg", sys.executable, __file__, "--count", *argv],
                             capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(out.stderr[-2000:])
        parts = sorted((int(f.rsplit(".", 1)[1]), f) for f in os.listdir(tmp) if "." in f)
        totals = [int(re.search(r"^totals: (\d+)", open(os.path.join(tmp, f)).read(), re.M).group(1))
                  for _, f in parts]
    return out.stdout, totals[1::2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", help="another torch_order.py, measured beside this one")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float16"])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--only", help="cases whose name contains this")
    parser.add_argument("--instructions", action="store_true", help="count instructions (valgrind)")
    parser.add_argument("--count", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.instructions:
        stdout, counts = instructions([a for a in sys.argv[1:] if a != "--instructions"])
        report(stdout, counts, bool(args.against))
        return
    old = None
    if args.against:
        spec = importlib.util.spec_from_file_location("torch_order_old", args.against)
        old = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(old)
    rounds = 7 if args.quick else 25
    if not args.count:
        header(old is not None, "us")
    for name, x, axes, keepdim in cases(np.dtype(args.dtype)):
        if args.only and args.only not in name:
            continue
        sides = {"numpy": lambda: np.sum(x, axis=axes, keepdims=keepdim),
                 "this": lambda: torch_order.sum(x, axes, keepdim)}
        if old is not None:
            sides["before"] = lambda: old.sum(x, axes, keepdim)
            assert np.array_equal(old.sum(x, axes, keepdim), torch_order.sum(x, axes, keepdim)), name
        if args.count:
            print(f"CASE {name}", flush=True)
            count_sides(sides, x.size)
            continue
        t = measure(sides, rounds)
        row = f"| {name} | {t['numpy'] * 1e6:.1f} us | {t['this'] * 1e6:.1f} us | {t['this'] / t['numpy']:.2f}x |"
        if old is not None:
            row += f" {t['before'] * 1e6:.1f} us | {t['before'] / t['numpy']:.2f}x |"
        print(row, flush=True)


def header(against, unit):
    head = f"| case | numpy ({unit}) | this | ratio |" + (" before | ratio |" if against else "")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))


def report(stdout, counts, against):
    """The instruction table from the counting process's case names and callgrind's dumps."""
    header(against, "instructions")
    names = re.findall(r"^CASE (.*)$", stdout, re.M)
    reps = [int(r) for r in re.findall(r"^REPS (\d+)$", stdout, re.M)]
    per = 3 if against else 2
    for i, (name, r) in enumerate(zip(names, reps)):
        c = [n / r for n in counts[i * per:(i + 1) * per]]
        row = f"| {name} | {c[0]:,.0f} | {c[1]:,.0f} | {c[1] / c[0]:.2f}x |"
        if against:
            row += f" {c[2]:,.0f} | {c[2] / c[0]:.2f}x |"
        print(row)


if __name__ == "__main__":
    main()
