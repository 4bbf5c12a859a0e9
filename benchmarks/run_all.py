"""Run every benchmark, one process each with this interpreter, and print the
figures beside their targets as the Markdown table of benchmarks/README.md.

    python benchmarks/run_all.py                      # all nine
    python benchmarks/run_all.py mlp gradcheck        # some
    python benchmarks/run_all.py --blas-threads 1     # numpy's and PyTorch's BLAS on one thread
    python benchmarks/run_all.py --json results.jsonl # also keep each benchmark's JSON line

Run it with an interpreter that has PyTorch to fill the PyTorch column; without
it, that column says "-".
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
BENCHMARKS = ["cli_start", "scalar_chain", "mlp", "deep_chain", "higher_order", "parse", "points",
              "gradcheck", "graph"]


def run(name: str, env: dict) -> dict | None:
    print(f"\n### {name}", flush=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(HERE / f"{name}.py")], stdout=subprocess.PIPE,
                            env=env, text=True)
    last = None
    for line in proc.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        if line.startswith("{"):
            last = line
    proc.wait()
    print(f"({name}: {time.perf_counter() - t0:.0f} s, exit {proc.returncode})", flush=True)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    parser.add_argument("--blas-threads", type=int, help="OPENBLAS/OMP/MKL threads for the benchmarks")
    parser.add_argument("--json", help="append each benchmark's JSON line to this file")
    args = parser.parse_args()
    names = args.names or BENCHMARKS
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
    env = dict(os.environ)
    if args.blas_threads:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(args.blas_threads)
    print(f"python {sys.version.split()[0]} ({sys.executable}), load {os.getloadavg()[0]:.1f}",
          flush=True)
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
