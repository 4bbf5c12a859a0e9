"""Issue 26, item 3: every walk over a structure a program built is shared where PyTorch
shares it and charged where it cannot be: a module DAG (`p.a = m; p.b = m`, 40 deep)
unfolds to 2^40 paths for state_dict, load_state_dict, repr, str, f-strings and
exception messages, as in PyTorch, and the budget ends each; named_modules, parameters,
modules, train and apply visit each module once, as PyTorch's do.

Real processes under a CPU and memory rlimit; a lower --max-steps ends the runaways
sooner, through the same charges as the default.
"""
from __future__ import annotations

import pytest

from hardening_helpers import cpu_bound, limited_run, program_error

DAG = ("m = nn.Linear(2, 2)\n"
       "for i in range(40):\n"
       "    p = nn.Module()\n"
       "    p.a = m\n"
       "    p.b = m\n"
       "    m = p\n")


@pytest.mark.parametrize("tail", [
    "print(m)", "s = m.state_dict()", "m.load_state_dict({})", "s = str(m)", 's = f"{m}"',
    "raise ValueError(m)", "assert False, m", "x = [m] * 1000\nprint(x)",
])
def test_walks_that_unfold_a_module_dag_are_charged(tail):
    program_error("run", "--max-steps", "100000", "-e", DAG + tail, message="steps")


@pytest.mark.parametrize("tail, shown", [
    ("print(len(m.named_modules()), len(m.parameters()), len(m.modules()))", "41 2 41"),
    ("n = [0]\nm.apply(lambda k: n.append(1))\nprint(len(n) - 1)", "41"),
    ("m.train()\nm.zero_grad()\nm.double()\nprint(len(m.named_parameters()))", "2"),
])
def test_walks_that_share_visit_each_module_once(tail, shown):
    """As PyTorch's named_modules (its memo) and apply (over children(), which dedups)."""
    ran = limited_run("run", "-e", DAG + tail)
    assert ran.code == 0, ran.stderr
    assert ran.stdout.strip() == shown
    assert ran.cpu_seconds < cpu_bound(3)


def test_default_budget_ends_a_module_dag_repr_within_seconds():
    ran = program_error("run", "-e", DAG + "print(m)", message="steps")
    assert ran.peak_mb < 1024


def test_graph_of_many_modules_is_linear():
    """The dot and mermaid clusters scanned every node once per module: 3,000 modules over
    12,000 nodes took 3 s (6,000 over 24,000 would take 12 s); grouped once, about 1 s."""
    source = ("ms = nn.ModuleList([nn.Linear(1, 1) for i in range(6000)])\n"
              "h = torch.ones(1, requires_grad=True)\n"
              "for m in ms:\n    h = m(h)\ny = h.sum()\n")
    for fmt in ("dot", "mermaid"):
        ran = limited_run("graph", "--format", fmt, "-e", source)
        assert ran.code == 0, ran.stderr[-2000:]
        assert ran.stdout.count("subgraph") == 6001  # the ModuleList's and each Linear's
        assert ran.cpu_seconds < cpu_bound(5)


@pytest.mark.parametrize("body", ["undefined_nme", "a = torch.ones(2).foo", "a = torch.sine",
                                  "a = torch.ones(2) + torch.ones(3)", "assert False, 'x' * 1000"])
def test_errors_caught_in_a_loop_are_charged(body):
    """Each caught error cost one step, though making it (and its "did you mean" hint, a
    search over every name: ~0.5 ms) cost hundreds: 10^6 of them ran for minutes. The hint
    is now made only when shown, and a caught error is charged."""
    source = f"for i in range(1000000):\n    try:\n        {body}\n    except Exception:\n        pass\n"
    program_error("run", "--max-steps", "100000", "-e", source, message="steps")
