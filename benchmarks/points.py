"""Target 7, batches: `gradcli grad FILE --wrt x,y --points -` on a 10-op
program, one process fed by a pipe [one process per point: about 0.2 s each]: at
least 0.25x the floor's rate (issue 31.2: about 20,000 points per second on the
machine of benchmarks/README.md), and at least 5,000 per second on a program with a
loop (LOOP: 20 iterations of 3 ops). Both programs run once per batch of points
(`answers.batch`); the row "one run per point" is the same straight-line program with
batches turned off (GRADCLI_POINTS_ONE_BY_ONE=1), the path of any other program.

The throughput is steady-state: (M_BIG - M_SMALL) points over the difference of
the two processes' wall times, so the start of the process is not counted; the
overall figure (M_BIG points over the whole process) is shown too.

Floor: one Python process reading the same JSON Lines and writing one JSON line
per point, with the program's value and gradient computed by hand in numpy.
PyTorch: the same loop running the program on torch with `autograd.grad`.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from _common import (QUICK, best, fmt_s, gradcli_cmd, has_torch, process_env, python_exe, report,
                     run_process, summary)

PROGRAM = """\
x = 1.0
y = 2.0
a = x * y
b = sin(a)
c = b + x
d = c * c
e = exp(-d)
f = e + y
g = log(f)
h = g * x
z = h - y
"""  # 10 ops: mul, sin, add, mul, neg, exp, add, log, mul, sub

LOOP = """\
x = 1.0
y = 2.0
s = x
for i in range(20):
    s = sin(s) * y + x * 0.1
z = s / 20
"""  # 60 ops in the loop, then one

M_SMALL, M_BIG = 2000, 20000
REPEAT = 3
RATIO = 0.25           # of the numpy floor's rate, on the 10-op program
LOOP_TARGET = 5000.0   # points per second on LOOP
GRADCLI = "gradcli grad --points -"
ONE_BY_ONE = "same, one run per point"
LOOPED = "gradcli grad --points -, LOOP (20 x 3 ops)"

FLOOR = r"""
import json, sys
import numpy as np
out = sys.stdout
for line in sys.stdin:
    if not line.strip():
        continue
    point = json.loads(line)
    x = np.asarray(float(point["x"])); y = np.asarray(float(point["y"]))
    a = x * y; b = np.sin(a); c = b + x; d = c * c; e = np.exp(-d); f = e + y
    g = np.log(f); h = g * x; z = h - y
    gh = 1.0; gy = -1.0
    gg = gh * x; gx = gh * g
    gf = gg / f
    ge = gf; gy = gy + gf
    gd = -ge * e
    gc = gd * 2 * c
    gb = gc; gx = gx + gc
    ga = gb * np.cos(a)
    gx = gx + ga * y; gy = gy + ga * x
    out.write(json.dumps({"point": point, "output": {"name": "z", "value": float(z)},
                          "grads": {"x": float(gx), "y": float(gy)}}, separators=(",", ":")) + "\n")
"""

TORCH = r"""
import json, sys
import torch
torch.set_default_dtype(torch.float64)
out = sys.stdout
for line in sys.stdin:
    if not line.strip():
        continue
    point = json.loads(line)
    x = torch.tensor(float(point["x"]), requires_grad=True)
    y = torch.tensor(float(point["y"]), requires_grad=True)
    a = x * y; b = torch.sin(a); c = b + x; d = c * c; e = torch.exp(-d); f = e + y
    g = torch.log(f); h = g * x; z = h - y
    gx, gy = torch.autograd.grad(z, (x, y))
    out.write(json.dumps({"point": point, "output": {"name": "z", "value": z.item()},
                          "grads": {"x": gx.item(), "y": gy.item()}}, separators=(",", ":")) + "\n")
"""


def points(m: int) -> bytes:
    return "".join(json.dumps({"x": 1 + i * 1e-4, "y": 2 - i * 1e-4}) + "\n"
                   for i in range(m)).encode()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        prog = Path(tmp) / "ten_ops.py"
        prog.write_text(PROGRAM)
        loop = Path(tmp) / "loop.py"
        loop.write_text(LOOP)
        grad = gradcli_cmd() + ["grad", str(prog), "--wrt", "x,y", "--points", "-"]
        sides = {GRADCLI: grad, "numpy by hand (floor)": [python_exe(), "-c", FLOOR]}
        if has_torch():
            sides["pytorch"] = [python_exe(), "-c", TORCH]
        sides[LOOPED] = gradcli_cmd() + ["grad", str(loop), "--wrt", "x,y", "--points", "-"]
        sides[ONE_BY_ONE] = grad
        envs = {ONE_BY_ONE: dict(process_env(), GRADCLI_POINTS_ONE_BY_ONE="1")}
        feeds = {m: points(m) for m in (M_SMALL, M_BIG)}
        times = {k: {m: [] for m in feeds} for k in sides}
        outputs = {}
        for _ in range(REPEAT):
            for name, cmd in sides.items():
                for m, feed in feeds.items():
                    if name == ONE_BY_ONE and m == M_BIG and QUICK:
                        continue
                    t, proc = run_process(cmd, stdin=feed, timeout=600, env=envs.get(name))
                    if proc.returncode != 0:
                        raise SystemExit(f"{name} failed: {proc.stderr.decode()[-2000:]}")
                    lines = proc.stdout.decode().splitlines()
                    assert len(lines) == m, f"{name}: {len(lines)} lines for {m} points"
                    if m == M_SMALL:   # every side's last answer at the same point (--quick
                        outputs[name] = json.loads(lines[-1])   # runs one-by-one at M_SMALL only)
                    times[name][m].append(t)
    ref = outputs["numpy by hand (floor)"]["grads"]
    for name, doc in outputs.items():
        if name == LOOPED:
            continue
        for k in ("x", "y"):
            assert abs(doc["grads"][k] - ref[k]) <= 1e-9 * abs(ref[k]), f"{name}: wrong gradient"
    rows, rates = [], {}
    for name in sides:
        t_small, t_big = best(times[name][M_SMALL]), best(times[name][M_BIG] or [None])
        if t_big is None:  # --quick: one run per point is measured at M_SMALL only
            steady = overall = M_SMALL / t_small
            rates[name] = (steady, overall, t_small, None)
            rows.append([name, fmt_s(t_small), "-", "-", f"{overall:,.0f} (at {M_SMALL})",
                         f"{1e6 / steady:.0f} us"])
            continue
        steady = (M_BIG - M_SMALL) / (t_big - t_small)
        overall = M_BIG / t_big
        rates[name] = (steady, overall, t_small, t_big)
        rows.append([name, fmt_s(t_small), fmt_s(t_big), f"{steady:,.0f}", f"{overall:,.0f}",
                     f"{1e6 / steady:.0f} us"])
    g_steady, g_overall = rates[GRADCLI][:2]
    f_steady = rates["numpy by hand (floor)"][0]
    l_steady = rates[LOOPED][0]
    pt = rates.get("pytorch")
    summaries = [summary("--points on a 10-op program, steady state", f">= {RATIO}x the floor's rate",
                         f"{g_steady:,.0f}/s ({g_steady / f_steady:.2f}x the floor; {g_overall:,.0f}/s "
                         f"overall at {M_BIG}; one run per point {rates[ONE_BY_ONE][0]:,.0f}/s)",
                         f"{f_steady:,.0f}/s", f"{pt[0]:,.0f}/s" if pt else None,
                         g_steady >= RATIO * f_steady),
                 summary("--points on a program with a loop (20 x 3 ops), steady state",
                         f">= {LOOP_TARGET:,.0f} points/s", f"{l_steady:,.0f}/s", None, None,
                         l_steady >= LOOP_TARGET)]
    report("points", ["side", f"{M_SMALL} points", f"{M_BIG} points", "points/s steady",
                      f"points/s overall ({M_BIG})", "per point"], rows, summaries,
           details={"rates": {k: {"steady": v[0], "overall": v[1], "t_small": v[2], "t_big": v[3]}
                              for k, v in rates.items()}, "repeat": REPEAT,
                    "ratio_to_floor": g_steady / f_steady, "load": os.getloadavg()},
           notes=[f"best of {REPEAT} processes per size; steady = ({M_BIG}-{M_SMALL}) points "
                  "over the difference of the two wall times"])


if __name__ == "__main__":
    sys.exit(main())
