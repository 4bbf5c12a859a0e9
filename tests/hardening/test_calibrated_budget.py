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

import numpy as np
import pytest

import gradcli
from gradcli.autograd import forward_ad as fwAD
from gradcli.limits import CREATE_GRAPH_STEP_WORK, NODE_WORK, OP_WORK, TANGENT_WORK, Limits, limited
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
    # forward over reverse twice: its outer tangents ran on arrays uncharged (6 s of CPU)
    "hessian_of_hessian": (["run"], (
        "import torch\ndef f(x):\n    return (torch.sin(x) * torch.exp(x) * torch.cos(x)).sum()\n"
        "x = torch.linspace(0.1, 1.0, 30, dtype=torch.float64)\n"
        "h = torch.func.hessian(torch.func.hessian(f))(x)\n")),
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_nested_differentiation_ends_at_the_step_limit(name, tmp_path):
    args, source = NESTED[name]
    check_step_limit(args, tmp_path, source)


def test_plot_of_the_fourth_derivative_at_100000_samples_ends(tmp_path):
    """Four nested orders over 10^5 samples: an answer or the step limit, within the bound."""
    proc, cpu = run_limited(["plot", "--wrt", "x", "--order", "4", "--samples", "100000", "--json"],
                            tmp_path, "x = 0.5\ny = sin(x) * exp(x) * cos(x)\n")
    assert proc.returncode in (0, 3), (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    assert cpu < cpu_bound(CPU_S), f"{cpu:.2f} s of CPU"


# -- in process: what a backward and a tangent charge, exactly ------------------------------

def _charged(fn) -> int:
    with limited(Limits()) as b:
        fn()
        return b.work


def _reachable(node) -> set:
    seen, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n is not None and n not in seen:
            seen.add(n)
            stack.extend(n.next_nodes)
    return seen


def test_a_create_graph_step_is_charged_beside_the_nodes_its_rule_makes():
    """Without create_graph a backward charges NODE_WORK a step and its two walks over the
    graph; with it each step CREATE_GRAPH_STEP_WORK more, and each node its rules make."""
    n = 100
    x = gradcli.tensor(0.5, requires_grad=True)
    y = x
    for _ in range(n):
        y = gradcli.sin(y)
    steps = n + 1   # the sin nodes and x's AccumulateGrad
    plain = _charged(lambda: gradcli.autograd.grad(y, x, retain_graph=True))
    assert plain == 2 * steps + steps * NODE_WORK
    got = []
    charged = _charged(lambda: got.extend(gradcli.autograd.grad(y, x, create_graph=True)))
    made = _reachable(got[0].grad_fn) - _reachable(y.grad_fn)
    assert len(made) >= 2 * n   # each rule's g * cos(y)
    assert charged == 2 * steps + steps * (NODE_WORK + CREATE_GRAPH_STEP_WORK) + len(made) * NODE_WORK


def test_a_tangent_on_arrays_is_charged_as_its_forward_again():
    """A forward-mode tangent computed on arrays runs numpy directly (ops/dual.py), not
    through `apply`: each input's part is charged the forward's elements and TANGENT_WORK."""
    x = gradcli.tensor(np.linspace(0.0, 1.0, 4096))
    for fn, parts in ((gradcli.sin, 1), (lambda a: a * a, 2)):
        alone = _charged(lambda: fn(x))
        with fwAD.dual_level():
            dual = fwAD.make_dual(x, gradcli.ones(4096, dtype=gradcli.float64))
            with_tangent = _charged(lambda: fn(dual))
            assert fwAD.unpack_dual(fn(dual)).tangent is not None
        # `alone`: the forward's elements and OP_WORK (it records no node)
        assert with_tangent - alone == parts * (TANGENT_WORK + alone - OP_WORK)


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
    # resampled by small matrices along each dim (reflect pad, interpolate): charged their
    # products and copies, not their input's elements (5-7x under their time before)
    "reflection_pad": "x = rand(4096, 3, 6, 6)\nwhile True:\n    y = F.pad(x, (2, 2, 2, 2), mode='reflect')\n",
    "interpolate_bilinear": ("x = rand(2048, 3, 6, 6)\nwhile True:\n"
                             "    y = F.interpolate(x, scale_factor=3, mode='bilinear')\n"),
    # numpy's matmul loops per small matrix (23x under its time when charged its inputs)
    "attention_small_heads": ("q = rand(30000, 3, 2)\nwhile True:\n"
                              "    y = F.scaled_dot_product_attention(q, q, q)\n"),
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
