"""Forward mode's machinery: levels, the tangent table, errors, and what a program sees."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import gradcli as g
from gradcli.autograd import forward_ad as fwAD
from gradcli.autograd import func_forward
from gradcli.errors import AutogradError, ProgramValueError
from gradcli.ops import dual


def test_no_level_no_tangents_and_the_check_is_off():
    assert dual.ACTIVE[0] == 0 and not dual.LEVELS
    with fwAD.dual_level():
        assert dual.ACTIVE[0] == 1
    assert dual.ACTIVE[0] == 0 and not dual.LEVELS


def test_a_tangent_goes_with_its_tensor():
    with fwAD.dual_level():
        level = dual.LEVELS[-1]
        d = fwAD.make_dual(g.tensor([1.0, 2.0]), g.tensor([1.0, 1.0]))
        y = d * 3
        assert len(level.tangents) == 2
        del d, y
        gc.collect()
        assert not level.tangents


def test_exit_drops_every_tangent():
    with fwAD.dual_level():
        d = fwAD.make_dual(g.tensor([1.0]), g.tensor([2.0]))
        assert fwAD.unpack_dual(d).tangent is not None
    assert fwAD.unpack_dual(d).tangent is None


def test_forward_ad_levels_do_not_nest_but_jvp_does():
    with fwAD.dual_level():
        with pytest.raises(AutogradError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
        # torch.func.jvp inside a forward_ad level: its own level, inner
        x = fwAD.make_dual(g.tensor([2.0]), g.tensor([1.0]))
        out, t = func_forward.jvp(lambda a: a * a, (x,), (g.tensor([1.0]),))
        assert t.tolist() == [4.0]
        assert fwAD.unpack_dual(t).tangent.tolist() == [2.0]   # d/dx (2 x) along the outer tangent


def test_make_dual_errors():
    with pytest.raises(AutogradError, match="no level exists"):
        fwAD.make_dual(g.tensor([1.0]), g.tensor([1.0]))
    with fwAD.dual_level():
        with pytest.raises(AutogradError, match=r"Tensor is of size \[2\] while the given forward gradient "
                                                r"is of size \[3\]"):
            fwAD.make_dual(g.tensor([1.0, 2.0]), g.ones(3))
        with pytest.raises(ProgramValueError, match="Expected primal to be floating point"):
            fwAD.make_dual(g.tensor([1, 2]), g.tensor([1, 2]))


def test_gradient_flows_through_a_dual_view():
    x = g.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, g.tensor([1.0, 0.0]))
        y = (d * d).sum()
        assert fwAD.unpack_dual(y).tangent.item() == 2.0
        y.backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_tangent_of_an_integer_result_is_none():
    with fwAD.dual_level():
        d = fwAD.make_dual(g.tensor([1.0, 3.0]), g.tensor([1.0, 1.0]))
        assert fwAD.unpack_dual(d.argmax()).tangent is None
        assert fwAD.unpack_dual(d > 2).tangent is None


def test_jacfwd_equals_jacrev_on_a_wide_function():
    rng = np.random.default_rng(0)
    W = g.tensor(rng.standard_normal((50, 4)))
    f = lambda x: g.tanh(W @ x) * x.sum()
    x = g.tensor(rng.standard_normal(4))
    from gradcli.autograd.func import jacrev
    np.testing.assert_allclose(func_forward.jacfwd(f)(x)._data, jacrev(f)(x)._data, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name, kind, formula", [
    ("sin", "pointwise", "t_self * cos(self)"),
    ("mm", "bilinear", "mm(t_self, mat2) + mm(self, t_mat2)"),
    ("sum", "linear", "sum(t_self)"),
    ("log_softmax", "written", "t_self - (exp(result) * t_self).sum(dim, keepdim=True)"),
    ("det", "transposed backward", "d<("),
])
def test_ops_command_lists_the_tangent_rule(name, kind, formula):
    from typer.testing import CliRunner

    from gradcli.cli.app import app

    result = CliRunner().invoke(app, ["ops", name])
    assert result.exit_code == 0, result.output
    lines = result.stdout.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("  tangent (forward mode), " + kind))
    assert lines[at + 1].strip().startswith(formula)


def test_every_op_lists_a_tangent_rule():
    from gradcli.answers.optable import op_detail
    from gradcli.ops import OPS

    for op in OPS.values():
        if op.differentiable:
            assert op_detail(op.name)["tangent"]["formula"], op.name


def test_a_level_a_program_leaves_open_ends_with_its_run():
    from gradcli.lang import compile_program

    program = compile_program("import torch.autograd.forward_ad as fwAD\nfwAD.enter_dual_level()\n"
                              "x = fwAD.make_dual(torch.tensor([1.0]), torch.tensor([2.0]))\n"
                              "y = x * 3\n", "leak.py")
    for _ in range(2):   # the second run can enter a level again
        program.run(script=True)
        assert not dual.LEVELS and dual.ACTIVE[0] == 0
