"""Limits fail fast (issue 15): a program over a limit is refused in a real process held
by RLIMIT_CPU (and RLIMIT_AS for the token limit), so a slow or greedy refusal is killed
and fails the test. No wall-clock assertion: CPU seconds are the kernel's count."""
import math
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hardening_helpers import cpu_bound

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="rlimits and /proc")

# Runs gradcli in this process, then reports its peak virtual memory on stderr's last line.
_WRAPPER = """
import sys
from gradcli.cli.app import run_app
code = run_app(sys.argv[1:])
peak = [l for l in open("/proc/self/status") if l.startswith("VmPeak")][0].split()[1]
sys.stderr.write("\\nVmPeak " + peak + "\\n")
sys.exit(code)
"""


def gradcli(args, cpu_seconds, address_space=None):
    seconds = math.ceil(cpu_bound(cpu_seconds))  # the bound for this machine's speed

    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
        if address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    result = subprocess.run([sys.executable, "-c", _WRAPPER, *args], cwd=ROOT, preexec_fn=limit, env=env,
                            capture_output=True, text=True, timeout=120)
    lines = result.stderr.strip().splitlines()
    peak = int(lines[-1].split()[1]) * 1024 if lines and lines[-1].startswith("VmPeak") else None
    return result, peak


def test_a_program_over_the_token_limit_is_refused_within_1s_and_100mb(tmp_path):
    program = tmp_path / "long.py"
    program.write_text("y = " + "1+" * 1_000_001 + "1\n")  # 2 x 10^6 tokens on one line
    _, base = gradcli(["eval", "-e", "x = 1.0"], cpu_seconds=10)
    assert base is not None
    result, peak = gradcli(["eval", str(program)], cpu_seconds=2, address_space=base + (100 << 20))
    assert result.returncode == 3, result.stderr[-500:]
    assert "more than 2000000 tokens" in result.stderr
    assert f"{program}:1:2000003: error:" in result.stderr
    assert peak - base < 100 << 20


LIMITS = {
    "characters": ("x = 1.0\n" + "#" * 10_000_001, "characters long"),
    "nesting": ("y = " + "(" * 5000 + "1" + ")" * 5000, "too deeply nested"),
    "integer digits": ("y = " + "9" * 100_000, "integer literal too large"),
    "steps": ("x = 1.0\nwhile True:\n    x = x\n", "--max-steps"),
    "elements": ("y = torch.zeros(10**9)", "--max-elements"),
    # (10**8, not 10**9: a range of 10**9 is charged by its length first, the steps limit)
    "sequence length": ("y = list(range(10**8))", "exceeds the limit of 10000000 items"),
    "format width": ("x = 1.0\ny = f'{x:1000000000}'", "width"),
    "call depth": ("def f(n):\n    return f(n)\ny = f(1)", "recursion"),
}


@pytest.mark.parametrize("name", list(LIMITS))
def test_every_other_limit_is_refused_within_2s(name, tmp_path):
    source, message = LIMITS[name]
    program = tmp_path / "p.py"
    program.write_text(source)
    result, _ = gradcli(["eval", str(program)], cpu_seconds=2)
    assert result.returncode == 3, result.stderr[-500:]
    assert message in result.stderr
