"""A backward pass after ops ran under a dual level gives the gradients it gives without one.

A TRANSPOSE tangent rule (the backward rule differentiated by its gradient) runs the
engine on the rule's graph; it must not reach the program's own graph behind the op's
inputs, or it frees what those nodes saved and the program's `l.backward()` fails (as it
did for `gradcli jacobian --mode forward` and the forward walk of samples/s07_training.py).
"""
from __future__ import annotations

import numpy as np
import pytest

import gradcli as g
from gradcli.ops import dual
F = g   # the losses are gradcli.mse_loss etc.

LOSSES = {
    "mse_loss": lambda a, b: F.mse_loss(a, b),
    "smooth_l1_loss": lambda a, b: F.smooth_l1_loss(a, b),
    "huber_loss": lambda a, b: F.huber_loss(a, b, delta=2.0),
    "l1_loss": lambda a, b: F.l1_loss(a, b),
}


def _grad(loss, dual_level: bool):
    x = g.tensor([2.0, 4.0, 6.0, 8.0])
    y = g.tensor([4.0, 8.0, 13.0, 15.0])
    w = g.tensor(0.5, requires_grad=True)
    grads = []
    for _ in range(2):   # two steps: .grad accumulates
        if dual_level:   # as `jacobian --mode forward` runs a program: tangents need no graph
            level = dual.enter_level(graph=False)
            try:
                dual.set_tangent(w, g.tensor(1.0), level)
                out = loss(w * x, y)
                assert level.get(out) is not None
                out.backward()
            finally:
                dual.exit_level(level)
        else:
            loss(w * x, y).backward()
        grads.append(float(w.grad._data))
    return grads


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_backward_after_a_dual_level_gives_the_same_gradients(name):
    """The node behind the loss's input (`w * x` saved w and x) keeps what it saved while
    the loss's tangent is computed, so that the backward through it works."""
    with_level = _grad(LOSSES[name], dual_level=True)
    assert np.allclose(with_level, _grad(LOSSES[name], dual_level=False), rtol=1e-12)


def test_jacobian_forward_of_a_training_loop():
    """samples/s07_training.py calls l.backward() in its loop: forward mode re-runs it."""
    import json
    from pathlib import Path

    from typer.testing import CliRunner

    from gradcli.cli.app import app

    sample = str(Path(__file__).resolve().parents[2] / "samples" / "s07_training.py")
    docs = [CliRunner().invoke(app, ["jacobian", sample, "--wrt", "w", "--mode", mode, "--json"])
            for mode in ("forward", "reverse")]
    assert all(d.exit_code == 0 for d in docs), docs[0].output
    forward, reverse = (json.loads(d.stdout)["jacobian"]["w"] for d in docs)
    assert forward == pytest.approx(reverse, rel=1e-6, abs=1e-7)
