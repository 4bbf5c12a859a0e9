"""Every call-back the engine makes into a program's object goes through the one boundary
(`graph/callback.call_program`): what the program put there (a number, an exception
class) is a program error at the program's place, exit 3, never a traceback. These are
the call-backs added with the autograd API, nn and optim work (node hooks, saved-tensor
hooks, functional and torch.func functions, module hooks, lr_lambda)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
X = "x = torch.tensor(2.0, requires_grad=True)\n"

CASES = {
    "node hook not callable": (X + "y = x * x\ny.grad_fn.register_hook(5)\ny.backward()", "'int' object is not callable"),
    "node prehook an exception class": (X + "y = x * x\ny.grad_fn.register_prehook(ValueError)\ny.backward()", "hook"),
    "post-accumulate hook not callable": (X + "x.register_post_accumulate_grad_hook(5)\n(x * x).backward()", "not callable"),
    "pack hook not callable": (X + "with torch.autograd.graph.saved_tensors_hooks(5, 6):\n    y = x * x\ny.backward()", "pack_hook"),
    "unpack hook an exception class": (X + "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, ValueError):\n    y = x * x\ny.backward()", "unpack_hook"),
    "vjp of an exception class": (X + "torch.autograd.functional.vjp(ValueError, x)", "vjp"),
    "hvp of a number": (X + "torch.autograd.functional.hvp(3, x, x)", "not callable"),
    "torch.func.grad of a number": (X + "torch.func.grad(3)(x)", "not callable"),
    "lr_lambda failing": ("w = torch.tensor(1.0, requires_grad=True)\no = torch.optim.SGD([w], lr=0.1)\n"
                          "s = torch.optim.lr_scheduler.LambdaLR(o, lambda e: [][e])\ns.step()", "index"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_call_back_is_a_program_error(case):
    program, fragment = CASES[case]
    proc = subprocess.run([sys.executable, "-m", "gradcli", "run", "-e", program], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "<expr>:" in proc.stderr and fragment in proc.stderr
