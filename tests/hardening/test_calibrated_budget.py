"""The calibrated work budget (issue 26, items 1 and 2), in real processes: with default
limits each hostile program below ends with the step-limit error (exit 3, naming the limit
and --max-steps) within 5 s of CPU and 2 GB, whatever op family or nesting it leans on.

Each runs the venv's `gradcli` as a subprocess under RLIMIT_CPU and RLIMIT_AS, so a
runaway is killed (and fails the test) instead of hanging the suite; the CPU bound
stretches with the machine's speed (`hardening_helpers.cpu_bound`).
"""
from __future__ import annotations

import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hardening_helpers import cpu_bound

CPU_S = 5.0
MEMORY = 2 * 2**30
GRADCLI = shutil.which("gradcli", path=str(Path(sys.executable).parent)) or shutil.which("gradcli")


def _limits():
    hard_cpu = int(cpu_bound(CPU_S) * 3) + 2   # the kill: well past the bound the test checks
    resource.setrlimit(resource.RLIMIT_CPU, (hard_cpu, hard_cpu))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run_limited(args, tmp_path, source):
    program = tmp_path / "prog.py"
    program.write_text(source)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([GRADCLI, args[0], str(program), *args[1:]], capture_output=True,
                          text=True, preexec_fn=_limits, timeout=300,
                          env={"PATH": str(Path(sys.executable).parent), "OPENBLAS_NUM_THREADS": "1"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc, cpu


def check_step_limit(args, tmp_path, source):
    proc, cpu = run_limited(args, tmp_path, source)
    assert proc.returncode == 3, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    assert "steps" in proc.stderr and "--max-steps" in proc.stderr, proc.stderr[-2000:]
    assert cpu < cpu_bound(CPU_S), f"{cpu:.2f} s of CPU"
    return proc, cpu


NESTED = {
    "autograd_grad_30_deep": (["run"], (
        "x = torch.tensor(1.5, requires_grad=True)\ny = torch.sin(x) * torch.exp(x)\n"
        "for i in range(30):\n    (y,) = torch.autograd.grad(y, x, create_graph=True)\n")),
    "func_grad_25_deep": (["run"], (
        "def f(x):\n    return torch.sin(x) * torch.exp(x)\ng = f\n"
        "for i in range(25):\n    g = torch.func.grad(g)\ny = g(torch.tensor(1.5))\n")),
    "grad_order_30": (["grad", "--wrt", "x", "--order", "30"],
                      "x = 1.5\ny = sin(x) * exp(x) * cos(x)\n"),
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_nested_differentiation_ends_at_the_step_limit(name, tmp_path):
    args, source = NESTED[name]
    check_step_limit(args, tmp_path, source)


DENSE = {
    "int_matmul": "a = ones(300, 300, dtype=torch.int64)\nwhile True:\n    b = a @ a\n",
    "batched_matmul": "a = ones(2000, 30, 30)\nwhile True:\n    b = bmm(a, a)\n",
    "broadcast_matmul": "a = ones(30, 30)\nb = ones(3000, 30, 30)\nwhile True:\n    c = a @ b\n",
    "conv2d_3000_channels": ("x = ones(1, 3000, 8, 8)\nw = ones(64, 3000, 3, 3)\n"
                             "while True:\n    y = F.conv2d(x, w)\n"),
    "adaptive_pool": "x = ones(4, 64, 100, 100)\nwhile True:\n    y = F.adaptive_avg_pool2d(x, (33, 33))\n",
    "batch_norm_10_7_features": ("x = ones(2, 10000000)\n"
                                 "while True:\n    y = F.batch_norm(x, None, None, training=True)\n"),
    "topk": "x = rand(10000000)\nwhile True:\n    y = topk(x, 5)\n",
    "sort_descending": "x = rand(10000000)\nwhile True:\n    y = sort(x, descending=True)\n",
    "cumprod": "x = rand(20000000)\nwhile True:\n    y = cumprod(x, 0)\n",
    "sin_elementwise": "x = rand(20000000)\nwhile True:\n    y = sin(x)\n",
    "mm_backward_retained": ("a = rand(500, 500, requires_grad=True)\nz = (a @ a).sum()\n"
                             "while True:\n    z.backward(retain_graph=True)\n"),
    # the weight's gradient alone: the node saved x only, and its backward was charged as
    # passes over the gradient (6.7 s of CPU here before the step limit)
    "conv2d_backward_of_an_unsaved_operand": ("x = rand(1, 1000, 30, 30)\n"
                                              "w = rand(64, 1000, 3, 3, requires_grad=True)\n"
                                              "z = F.conv2d(x, w).sum()\n"
                                              "while True:\n    z.backward(retain_graph=True)\n"),
    # ints past 63 bits become floats (lang/limits.py MAX_INT_BITS): the largest int a
    # program can hold has ~1030 bits (int(1e308)), so big-int work stays bounded per token
    "big_int_power_tower": "while True:\n    x = 10 ** 10 ** 6\n    y = int(1e308) * int(1e308)\n",
    "big_int_doubling": "n = 3\nwhile True:\n    n = n * 2\n    m = int(1e308) // 7 + n\n",
    "scalar_ops_without_grad": ("x = tensor(1.0)\nwhile True:\n"
                                "    x = x * 1.0 * 1.0 * 1.0 * 1.0 * 1.0 * 1.0 * 1.0 * 1.0\n"),
}


@pytest.mark.parametrize("name", sorted(DENSE))
def test_dense_work_ends_at_the_step_limit(name, tmp_path):
    check_step_limit(["run"], tmp_path, DENSE[name])


def test_the_limit_moves_with_max_steps(tmp_path):
    """The error names --max-steps, and raising it lets the same program go further."""
    source = "x = rand(100000)\nfor i in range(20):\n    y = sin(x)\n"
    proc, _ = run_limited(["run", "--max-steps", "1000"], tmp_path, source)
    assert proc.returncode == 3 and "--max-steps" in proc.stderr, proc.stderr[-2000:]
    proc, _ = run_limited(["run", "--max-steps", "100000"], tmp_path, source)
    assert proc.returncode == 0, proc.stderr[-2000:]
