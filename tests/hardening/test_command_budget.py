"""Issue 26, item 5: one total budget for a command that runs the program many times (its
--points lines, its plot samples), besides each run's, and a --points line limit that holds
for NUL bytes and for a line that never ends. Real processes under a CPU and memory rlimit.

The runs here are small (--max-steps 20000, a total of 16 times that), so that reaching the
total takes well under a second of CPU."""
from __future__ import annotations

import json

from hardening_helpers import cpu_bound, limited_run

# 1000 iterations of a few dozen units each: about a tenth of one run's budget at --max-steps
# 20000, so each run alone succeeds, and about 140 of them spend the command's total.
LOOPING = ("x = 1.0\ns = 0.0\nfor i in range(1000):\n    s = s + 1.0\n"
           "if x > 0:\n    y = x * s\nelse:\n    y = -x * s\n")
TOTAL = "the command's runs together ran more than 320000 steps (16 times --max-steps"


def grad_points(tmp_path, lines: str):
    """`grad` of LOOPING at the points of `lines`, at --max-steps 20000 (a total of 320000)."""
    points = tmp_path / "points.jsonl"
    points.write_text(lines)
    return limited_run("grad", "-e", LOOPING, "--wrt", "x", "--points", str(points),
                       "--max-steps", "20000")


def test_points_share_one_total(tmp_path):
    ran = grad_points(tmp_path, '{"x": 1.0}\n' * 1000)
    assert ran.code == 3, ran.stderr[-2000:]
    lines = [json.loads(line) for line in ran.stdout.splitlines()]
    answered = [line for line in lines if "grads" in line]
    assert 10 < len(answered) < 1000 and lines[-1]["error"]["message"].startswith(TOTAL[:40])
    assert len(lines) == len(answered) + 1, "the rest of the input is not read"
    assert ran.stderr.count("error:") == 1 and "--max-steps" in ran.stderr
    assert ran.cpu_seconds < cpu_bound(5)


def test_points_within_the_total_all_answer(tmp_path):
    """A few runs of the same program are far from the total."""
    ran = grad_points(tmp_path, '{"x": 1.0}\n{"x": -2.0}\n' * 5)
    assert ran.code == 0, ran.stderr[-2000:]
    assert [json.loads(line)["grads"]["x"] for line in ran.stdout.splitlines()] == [1000.0, -1000.0] * 5


def test_plot_samples_share_one_total():
    """The `if` makes each sample a run of its own (no vector run): 400 of them."""
    ran = limited_run("plot", "-e", LOOPING, "--wrt", "x", "--json", "--max-steps", "20000")
    assert ran.code == 3, ran.stderr[-2000:]
    assert TOTAL in ran.stderr and "Traceback" not in ran.stderr
    assert ran.cpu_seconds < cpu_bound(5)
    fewer = limited_run("plot", "-e", LOOPING, "--wrt", "x", "--json", "--max-steps", "20000",
                        "--samples", "20")
    assert fewer.code == 0, fewer.stderr[-2000:]


def test_points_line_of_nul_bytes(tmp_path):
    """A line of 17 MiB of NUL bytes is over the line limit: reported, skipped unread, and
    the next line answers; a short one is not JSON."""
    points = tmp_path / "points.jsonl"
    points.write_bytes(b"\0" * (17 * 2**20) + b"\n" + b"\0\0\0\n" + b'{"x": 3.0}\n')
    ran = limited_run("grad", "-e", "x = 1.0\ny = x * x", "--wrt", "x", "--points", str(points))
    assert ran.code == 3, ran.stderr[-2000:]
    lines = [json.loads(line) for line in ran.stdout.splitlines()]
    assert "--points line 1 is longer than 16 MiB" in lines[0]["error"]["message"]
    assert "--points line 2: not a JSON object" in lines[1]["error"]["message"]
    assert lines[2]["grads"] == {"x": 6.0}
    assert ran.peak_mb < 512 and ran.cpu_seconds < cpu_bound(5)
