"""Issue 26, item 3 (hook lists): registering hooks, running them and removing them is
charged, so a program that registers hooks in a loop ends at the step limit within the CPU
bound, in a real process under a CPU and memory rlimit (each ran 6-12 s of CPU and 0.5 GB
before, charged only its tokens)."""
from __future__ import annotations

import pytest

from hardening_helpers import limited_run, program_error

LOOPS = {
    "tensor_hooks_then_backward": (
        "x = torch.ones(3, requires_grad=True)\nfor i in range(10 ** 6):\n"
        "    h = x.register_hook(lambda g: None)\ny = x.sum()\n"
        "while True:\n    y.backward(retain_graph=True)\n"),
    "builtin_hooks_on_a_node": (
        "x = torch.ones(3, requires_grad=True)\ny = x * 2\nfor i in range(10 ** 6):\n"
        "    h = y.register_hook(len)\nwhile True:\n    y.sum().backward(retain_graph=True)\n"),
    "module_forward_hooks": (
        "m = nn.Linear(3, 3)\nfor i in range(10 ** 6):\n"
        "    h = m.register_forward_hook(lambda mod, i, o: None)\n"
        "x = torch.ones(3)\nwhile True:\n    y = m(x)\n"),
    "module_pre_and_backward_hooks": (
        "m = nn.Linear(3, 3)\nfor i in range(10 ** 6):\n"
        "    h = m.register_forward_pre_hook(lambda mod, i: None)\n"
        "    h2 = m.register_full_backward_hook(lambda mod, gi, go: None)\n"
        "x = torch.ones(3, requires_grad=True)\nwhile True:\n    m(x).sum().backward()\n"),
    "removing_hooks": (
        "x = torch.ones(3, requires_grad=True)\n"
        "hs = [x.register_hook(lambda g: None) for i in range(10 ** 5)]\n"
        "for h in hs:\n    h.remove()\nwhile True:\n    pass\n"),
    "hooks_on_every_output_of_a_node": (
        "x = torch.ones(10 ** 4, requires_grad=True)\nys = x.unbind()\nfor y in ys:\n"
        "    y.register_hook(lambda g: None)\nwhile True:\n"
        "    sum(ys).backward(retain_graph=True)\n"),
}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_hook_lists_are_charged(name):
    program_error("run", "-e", LOOPS[name], message="steps")


def test_hooks_still_run():
    """The charge does not change what hooks do: each runs once per backward, in order."""
    source = ("x = torch.ones(2, requires_grad=True)\nseen = []\n"
              "for i in range(100):\n    x.register_hook(lambda g, i=i: seen.append(i))\n"
              "m = nn.Linear(2, 1)\ncalls = []\nm.register_forward_hook(lambda mod, a, o: calls.append(1))\n"
              "m(x).sum().backward()\nprint(seen == list(range(100)), len(calls))\n")
    ran = limited_run("run", "-e", source)
    assert ran.code == 0, ran.stderr[-2000:]
    assert ran.stdout == "True 1\n"
