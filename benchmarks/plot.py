"""Issues 17 and 31.4, `gradcli plot`: 400 samples of f, f' and f'' of samples/rosenbrock.txt
along x in the terminal, whole process with plotext's import, at most 0.5 s (issue 17's
1 s, matplotlib's import excepted, before).

Rows, each a whole process (median and best of REPEAT, interleaved):
- the terminal plot, piped (plotext imported and drawn): the target's figure;
- the same program written with a `def`, so that it runs once per sample (the path any
  program takes that is not straight-line elementwise code), 3 runs per sample with the
  kink test's two neighbours;
- `--json` (no plotting library);
- `-o plot.png`, and `python -c "import matplotlib.figure, ..."` beside it: the file
  figure less matplotlib's import;
- `python -c "import plotext"` and the numpy floor, for scale. The import profile of
  plotext (`-X importtime`, its slowest modules) is printed as a note.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from _common import (SAMPLES, best, fmt_s, gradcli_cmd, median, python_exe, repeats, report, run_process,
                     summary)

REPEAT = 7
TARGET_S = 0.5
ROSENBROCK = str(SAMPLES / "rosenbrock.txt")
AS_DEF = ("x = -1.2\ny = 1.0\ndef rosen(a, b):\n    return (1 - a) ** 2 + 100 * (b - a ** 2) ** 2\n"
          "f = rosen(x, y)\n")
TERMINAL = "plot rosenbrock --wrt x --order 2 (terminal, one run)"
PER_SAMPLE = "same, a def: one run per sample"
JSON = "same, --json"
PNG = "same, -o plot.png"
MPL = "python -c 'import matplotlib (Agg canvas, figure)'"
PLOTEXT = "python -c 'import plotext'"
FLOOR = "python -c 'import numpy' (floor)"


def plotext_profile() -> list[tuple[float, str]]:
    """The slowest modules of `import plotext`, by self time."""
    _, proc = run_process([python_exe(), "-X", "importtime", "-c", "import plotext"])
    rows = []
    for line in proc.stderr.decode().splitlines():
        if line.startswith("import time:") and "imported package" not in line:
            self_us, _, name = line[len("import time:"):].split("|")
            rows.append((int(self_us) / 1e6, name.strip()))
    return sorted(rows, reverse=True)[:4]


def timed(cmd) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole process: the CPU time is what the load of
    other processes on this shared machine does not inflate."""
    before = os.times()
    wall, _ = run_process(cmd)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


def main() -> None:
    out = Path(tempfile.mkdtemp()) / "plot.png"
    base = gradcli_cmd() + ["plot"]   # the tree measured comes first on PYTHONPATH (_common.TREE)
    order2 = ["--wrt", "x", "--order", "2"]
    commands = {
        TERMINAL: base + [ROSENBROCK] + order2,
        PER_SAMPLE: base + ["-e", AS_DEF] + order2,
        JSON: base + [ROSENBROCK] + order2 + ["--json"],
        PNG: base + [ROSENBROCK] + order2 + ["-o", str(out)],
        MPL: [python_exe(), "-c", "import matplotlib; matplotlib.use('Agg'); "
                                  "import matplotlib.figure, matplotlib.backends.backend_agg"],
        PLOTEXT: [python_exe(), "-c", "import plotext"],
        FLOOR: [python_exe(), "-c", "import numpy"],
    }
    for name, cmd in commands.items():  # warm the caches; every command must succeed
        _, proc = run_process(cmd)
        if proc.returncode != 0:
            raise SystemExit(f"{name} failed: {proc.stderr.decode()[-2000:]}")
    times = {k: [] for k in commands}
    cpus = {k: [] for k in commands}
    for _ in range(repeats(REPEAT)):
        for name, cmd in commands.items():
            wall, cpu = timed(cmd)
            times[name].append(wall)
            cpus[name].append(cpu)
    med = {k: median(v) for k, v in times.items()}
    low = {k: best(v) for k, v in times.items()}
    cpu = {k: median(v) for k, v in cpus.items()}
    rows = [[k, fmt_s(med[k]), fmt_s(low[k]), fmt_s(cpu[k])] for k in commands]
    png_less_mpl = med[PNG] - med[MPL]
    notes = [
        "-o plot.png less matplotlib's import: " + fmt_s(png_less_mpl),
        "load average at the end: " + ", ".join(f"{x:.1f}" for x in os.getloadavg()),
        "import plotext, slowest modules (self time): "
        + ", ".join(f"{m} {fmt_s(t)}" for t, m in plotext_profile()),
    ]
    summaries = [
        summary("plot: 400 samples of f, f', f'' (rosenbrock, terminal), whole process",
                f"<= {TARGET_S:g} s", f"{fmt_s(med[TERMINAL])} (one run per sample: "
                f"{fmt_s(med[PER_SAMPLE])}); CPU {fmt_s(cpu[TERMINAL])}", fmt_s(med[FLOOR]), None,
                med[TERMINAL] <= TARGET_S),
    ]
    report("plot", ["process", "median", "best", "CPU (median)"], rows, summaries,
           details={"median_s": med, "best_s": low, "cpu_s": cpu, "png_less_matplotlib_s": png_less_mpl,
                    "repeat": repeats(REPEAT)}, notes=notes)


if __name__ == "__main__":
    sys.exit(main())
