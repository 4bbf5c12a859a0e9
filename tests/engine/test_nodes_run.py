"""Which nodes `autograd.grad` runs: only those that lead to one of its inputs.

The engine finds them by a walk (`engine._needed`), skipped when every sink of the graph
(a node with no edge out: a leaf's AccumulateGrad, mostly) is an input, since every node
then leads to one. These tests see which nodes ran through the hooks on their tensors,
and check that the walk is skipped exactly when it may be.
"""
import pytest

import gradcli as g
from gradcli.autograd import engine


def graph():
    """y of x, w and c, with a branch (h) that leads to w alone."""
    x = g.tensor(0.5, requires_grad=True)
    w = g.tensor(1.5, requires_grad=True)
    c = g.tensor(2.0, requires_grad=True)
    h = w.exp()
    ran = []
    h.register_hook(lambda grad: ran.append("h"))
    y = g.sin(x * w) + h * h + c * 3.0
    return x, w, c, y, ran


def counting_walks(monkeypatch):
    calls = []
    walk = engine._needed

    def counted(deps, targets):
        calls.append(len(deps))
        return walk(deps, targets)

    monkeypatch.setattr(engine, "_needed", counted)
    return calls


def test_a_branch_that_leads_to_no_input_does_not_run(monkeypatch):
    calls = counting_walks(monkeypatch)
    x, w, c, y, ran = graph()
    (gx,) = g.autograd.grad(y, x)
    assert ran == [] and calls, "w's branch ran, or no walk decided what to run"
    assert gx.item() == pytest.approx(float(g.cos(g.tensor(0.75))) * 1.5)


def test_every_node_runs_without_the_walk_when_every_sink_is_an_input(monkeypatch):
    calls = counting_walks(monkeypatch)
    x, w, c, y, ran = graph()
    gx, gw, gc = g.autograd.grad(y, (x, w, c), retain_graph=True)
    assert ran == ["h"] and calls == [] and gc.item() == 3.0
    # the same gradients where the walk runs (c's sink is no input), h's branch with them
    walked = g.autograd.grad(y, (x, w))
    assert ran == ["h", "h"] and len(calls) == 1
    assert [v.item() for v in walked] == [gx.item(), gw.item()]


def test_a_second_derivative_skips_the_walk_and_matches_the_closed_form(monkeypatch):
    calls = counting_walks(monkeypatch)
    x = g.tensor(0.3, requires_grad=True)
    y = g.sin(x * 2.0) * 3.0
    (d1,) = g.autograd.grad(y, x, create_graph=True)
    (d2,) = g.autograd.grad(d1, x)
    assert calls == []
    assert d2.item() == pytest.approx(-12.0 * float(g.sin(g.tensor(0.6))))
