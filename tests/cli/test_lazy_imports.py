"""What a plain program's command does not import (issue 25's start no slower than the round
before): torch.nn's layers, torch.optim, torch.utils.data, torch.func and forward mode, and the
parts of gradcheck a fast check without SymPy does not run, each loaded on a program's first
read of its namespace. Checked in a real process, as `test_sympy_is_not_imported_at_start_up`."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

PLAIN = "x = 2.0\ny = 3.0\nz = x * x * y\n"
# benchmarks/gradcheck.py's program, smaller
GRADCHECK = ("manual_seed(0)\nW = randn(20, 20) / 4.5\nx = randn(20, requires_grad=True)\n"
             "z = tanh(W @ x)\n")
# loaded only when a program reads their namespace (or, for the check's, when SymPy is asked
# for, a custom Function's check fails, or the op table is checked)
LAZY = ("gradcli.nn.public", "gradcli.nn.modules.public", "gradcli.nn.modules.linear",
        "gradcli.nn.loss", "gradcli.nn.rnn", "gradcli.optim", "gradcli.lang.utils_data",
        "gradcli.autograd.api", "gradcli.autograd.func", "gradcli.autograd.vmap",
        "gradcli.autograd.forward_ad", "gradcli.autograd.functional_call",
        "gradcli.autograd.multi_grad_hook", "gradcli.check.perop", "gradcli.check.functions",
        "gradcli.check.selfcheck", "gradcli.lang.stdlib", "gradcli.ops.batching_rules")


def run(tmp_path, source: str, args: list[str]) -> tuple[int, str, set]:
    """(exit code, stdout, the modules gradcli's start and the command imported) of one
    command in a new process."""
    path = tmp_path / "p.py"
    path.write_text(source)
    code = ("import sys, json\nbefore = set(sys.modules)\nfrom gradcli.cli.app import run_app\n"
            f"code = run_app({[args[0], str(path), *args[1:]]!r})\n"
            "print(json.dumps([code, sorted(set(sys.modules) - before)]))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    *out, last = proc.stdout.splitlines()
    status, modules = json.loads(last)
    return status, "\n".join(out), set(modules)


@pytest.mark.parametrize("source, args", [
    (PLAIN, ["backward"]),
    (PLAIN, ["backward", "--json"]),
    (PLAIN, ["grad", "--wrt", "x"]),
    (GRADCHECK, ["gradcheck", "--no-sympy", "--fast"]),
])
def test_a_plain_program_imports_no_layer_it_does_not_use(tmp_path, source, args):
    status, out, modules = run(tmp_path, source, args)
    assert status == 0, out
    assert modules & set(LAZY) == set()
    assert "gradcli.nn.modules.module" in modules   # the Module base: the language names it


def test_a_program_that_reads_torch_nn_and_optim_loads_them(tmp_path):
    """The check above can fail: the same command on a program that uses a layer, a loss and
    an optimizer imports them, and its answer is the one PyTorch gives (w := w - 0.1 * 2w)."""
    source = ("import torch\nimport torch.nn as nn\nm = nn.Linear(1, 1, bias=False)\n"
              "with torch.no_grad():\n    m.weight.fill_(3.0)\n"
              "opt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
              "loss = nn.MSELoss()(m(torch.ones(1, 1)), torch.zeros(1, 1))\n"
              "loss.backward()\nopt.step()\nw = m.weight.sum() * 1.0\n")
    status, out, modules = run(tmp_path, source, ["backward", "--json"])
    assert status == 0, out
    assert {"gradcli.nn.public", "gradcli.nn.modules.linear", "gradcli.nn.loss",
            "gradcli.optim"} <= modules
    assert json.loads(out)["output"]["value"] == pytest.approx(3.0 - 0.1 * 2 * 3.0)


def test_the_standard_modules_named_at_start_are_the_facades():
    """builtins names the standard modules (so that the language starts without lang/stdlib.py):
    the same names as the facades it loads, in their order, each importable by the parser."""
    from gradcli.lang import builtins, parser, stdlib

    assert builtins.STANDARD_MODULES == tuple(stdlib._FACADES)
    assert set(builtins.STANDARD_MODULES) <= set(parser.IMPORTABLE_MODULES)


def test_a_program_that_imports_collections_and_warnings_loads_them(tmp_path):
    """The stdlib facade is loaded on a program's first read, with its readers and `with`."""
    source = ("import torch\nimport warnings\nfrom collections import defaultdict, Counter, OrderedDict\n"
              "d = defaultdict(list)\nd['a'].append(1)\nc = Counter('aab')\n"
              "o = OrderedDict(zip(['k'], [2.0]))\n"
              "with warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n"
              "x = torch.tensor(2.0, requires_grad=True)\n"
              "z = x * o['k'] * c.most_common(1)[0][1] * len(d['a'])\n")
    status, out, modules = run(tmp_path, source, ["backward"])
    assert status == 0, out
    assert "gradcli.lang.stdlib" in modules
    assert "output z = tensor(8.)" in out


def test_a_plain_start_imports_none_of_the_standard_modules_it_does_not_need(tmp_path):
    """importlib.resources (with tempfile, shutil, random) and dataclasses cost a plain start
    several million instructions: they load where their data or classes are first needed."""
    status, out, modules = run(tmp_path, PLAIN, ["backward"])
    assert status == 0, out
    assert "gradcli.lang.interpreter" in modules   # (the check can fail: the run was made here)
    assert {"importlib.resources", "tempfile", "random", "dataclasses"} & set(modules) == set()
