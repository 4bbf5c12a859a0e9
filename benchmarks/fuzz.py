"""The long fuzz run: generated and mutated programs through the CLI and the library for
N minutes, then how many ran and what failed.

    python benchmarks/fuzz.py --minutes 30 [--seed S] [--out DIR]

The programs, mutations and properties are those of the bounded run in the test suite
(`tests/hardening/fuzzgen.py`): exit codes 0-4 only, no traceback, strict JSON, an answer
within the time bound, and backward against central finite differences for every valid
generated program. Each failure is printed and saved under DIR (program, command line,
what went wrong) to become a regression test. Exit 1 if anything failed.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "hardening"))
sys.path.insert(0, str(ROOT))

import fuzzgen  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=None, help="default: from the clock")
    parser.add_argument("--out", default="/tmp/gradcli-fuzz", help="where failures are saved")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else int(time.time())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    from gradcli.cli import process_settings

    process_settings()  # those of a gradcli process (`gradcli.cli.main`)
    from gradcli import dtypes

    # the library side at the expression commands' default, float64, as the CLI side runs
    # (and as tests/conftest.py runs the suite's bounded fuzz)
    dtypes.set_default_dtype(dtypes.float64)

    print(f"fuzzing for {args.minutes:g} min, seed {seed}, failures to {out}", flush=True)
    fuzzer = fuzzgen.Fuzzer(seed, workdir=str(out))
    start = time.monotonic()
    deadline = start + 60 * args.minutes
    reported = 0
    next_progress = start + 60
    while time.monotonic() < deadline:
        fuzzer.round()
        tally = fuzzer.tally
        while reported < len(tally.failures):
            failure = tally.failures[reported]
            reported += 1
            save(out, reported, failure)
            print(f"\nFAILURE {reported}\n{failure.describe()}\n", flush=True)
        if time.monotonic() >= next_progress:
            next_progress += 60
            print(f"{(time.monotonic() - start) / 60:5.1f} min: {tally.programs} programs, "
                  f"{tally.runs} CLI runs, {tally.gradient_checks} gradient checks, "
                  f"{len(tally.failures)} failures", flush=True)

    tally = fuzzer.tally
    elapsed = time.monotonic() - start
    kinds = Counter(f.kind for f in tally.failures)
    print()
    print(f"seed                    {seed}")
    print(f"time                    {elapsed / 60:.1f} min")
    print(f"programs run            {tally.programs} ({tally.programs / elapsed:.0f}/s)")
    print(f"CLI runs                {tally.runs}")
    print(f"gradient checks         {tally.gradient_checks} (backward vs central differences)")
    print(f"exit codes              {dict(sorted(tally.codes.items(), key=lambda kv: str(kv[0])))}")
    print(f"slowest CLI run         {tally.slowest:.2f} s (bound {fuzzgen.TIME_BOUND_S:.0f} s)")
    print(f"peak memory             {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    print(f"failures                {len(tally.failures)} {dict(kinds) if kinds else ''}")
    return 1 if tally.failures else 0


def save(out: Path, number: int, failure: "fuzzgen.Failure") -> None:
    program = failure.program if isinstance(failure.program, bytes) else failure.program.encode(
        "utf-8", "surrogatepass")
    (out / f"failure-{number:03d}.program").write_bytes(program)
    if failure.stdin:
        (out / f"failure-{number:03d}.stdin").write_bytes(failure.stdin)
    (out / f"failure-{number:03d}.txt").write_text(
        f"kind: {failure.kind}\norigin: {failure.origin}\nargv: {failure.argv!r}\n\n{failure.detail}\n")


if __name__ == "__main__":
    os.environ.setdefault("NO_COLOR", "1")
    sys.exit(main())
