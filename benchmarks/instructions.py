"""Instruction counts of the engine's workloads, for comparing commits on a noisy machine.

    python benchmarks/instructions.py                       # this tree, every workload
    python benchmarks/instructions.py --tree /tmp/old chain terms   # another checkout too

Each workload runs in a process of its own under `valgrind --tool=callgrind`, and its
figure is the instructions of that process minus those of the same process doing only
the imports. Instructions are not seconds, but they do not move with the machine's load:
two commits compare within a few percent (the rest comes from node addresses, which the
engine's dicts hash). Needs valgrind; `PYTHONHASHSEED=0` is set for the measured processes.

Workloads (the library's default GC thresholds, from a `gc.collect()` after the imports):
  chain    2x10^4 scalar ops alternating `y * c + d` / `sin(y * c)`, forward and backward
  wide     one input fanned out to 10^4 products, summed, backward
  d2       five d2y/dx2 through 1,000 ops (higher_order.py)
  hessian  five Hessians of 100-variable Rosenbrock (higher_order.py)
  terms    2x10^4 terms parsed, run and differentiated (parse.py's program)
  compile  the same 2x10^4 terms only parsed (`compile_program`: lexing and parsing)
  lex      the same 2x10^4 terms only lexed (`lexer.lex` where it exists, else `tokenize`)
  source   only the making of that program's text (to subtract from the three above)
  mlp      50 steps of mlp.py's network cut to batch 16, width 64 (op overhead, not BLAS)
  conv32   five steps of conv.py's Conv2d forward and backward in float32 (one BLAS thread)
  conv64   the same in float64
"""
from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKLOADS = ("chain", "wide", "d2", "hessian", "terms", "mlp", "conv32", "conv64", "compile", "lex",
             "source")


def workload(name: str) -> None:
    """Run one workload in this process (after the imports every workload makes): the
    benchmarks' own gradcli sides, the chain cut to 2x10^4 ops."""
    import gradcli  # noqa: F401 (imported by every workload alike, "imports" included)
    import gradcli.autograd.functional  # noqa: F401
    from gradcli.lang import compile_program

    import conv
    import higher_order
    import mlp
    import parse
    import scalar_chain

    # every tree starts its workload with the collector in the same state: otherwise whether
    # a full collection (~25M instructions on the chain) falls inside the workload depends on
    # how many objects the imports happened to leave in each generation (issue 31's compare)
    gc.collect()
    if name == "chain":
        scalar_chain.N_OPS = 20_000
        scalar_chain.chain_gradcli()
    elif name == "wide":
        scalar_chain.wide_gradcli()
    elif name == "d2":
        for _ in range(5):
            higher_order.second_gradcli()
    elif name == "hessian":
        for _ in range(5):
            higher_order.hessian_gradcli()
    elif name == "terms":
        compile_program(parse.source(20_000), "terms.py").run().output.backward()
    elif name == "compile":
        compile_program(parse.source(20_000), "terms.py")
    elif name == "lex":
        from gradcli.lang import lexer

        src = parse.source(20_000)
        gc.disable()  # as compile_program lexes
        (lexer.lex if hasattr(lexer, "lex") else lexer.tokenize)(src)
    elif name == "source":
        parse.source(20_000)
    elif name == "mlp":
        from _common import dense_data

        step = mlp.gradcli_step(*dense_data(16, 64, 3))
        for _ in range(50):
            step()
    elif name in ("conv32", "conv64"):
        step = conv.gradcli_step(*conv.data("float32" if name == "conv32" else "float64"))
        for _ in range(5):
            step()
    elif name != "imports":
        raise SystemExit(f"unknown workload {name!r}")


def count(tree: Path, name: str) -> int:
    """Instructions of one process of `tree` running workload `name`."""
    env = dict(os.environ, PYTHONHASHSEED="0", GRADCLI_INSTRUCTIONS_TREE=str(tree),
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         sys.executable, __file__, "--run", name],
        env=env, capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or not found:
        raise SystemExit(f"{tree}: workload {name} failed:\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workloads", nargs="*", help=f"some of {', '.join(WORKLOADS)} (default: all)")
    parser.add_argument("--tree", action="append", default=[],
                        help="another checkout to count beside this one (repeatable)")
    parser.add_argument("--run", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        tree = os.environ.get("GRADCLI_INSTRUCTIONS_TREE", str(HERE.parent))
        sys.path[:0] = [tree, str(HERE)]
        workload(args.run)
        return
    workloads = args.workloads or list(WORKLOADS)
    unknown = [w for w in workloads if w not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload {unknown[0]!r} (choose from {', '.join(WORKLOADS)})")
    if shutil.which("valgrind") is None:
        raise SystemExit("instructions.py needs valgrind (Debian: apt-get install valgrind)")
    trees = [Path(t).resolve() for t in args.tree] + [HERE.parent]
    print(f"{'tree':40}" + "".join(f"{w:>12}" for w in workloads))
    for tree in trees:
        base = count(tree, "imports")
        row = [(count(tree, w) - base) / 1e6 for w in workloads]
        print(f"{str(tree)[-40:]:40}" + "".join(f"{m:>11.0f}M" for m in row))


if __name__ == "__main__":
    main()
