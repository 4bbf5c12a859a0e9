"""The SymPy side: the graph replayed numerically and symbolically, evaluation, budgets,
and `grad --symbolic`."""
import json
import math
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcli._tensor import Tensor, no_grad
from gradcli.check import symbolic
from gradcli.check.program import run_recorded
from gradcli.check.replay import ReplayError, Tape
from gradcli.cli.app import app
from gradcli.lang import compile_program


def recorded(source, **kwargs):
    return run_recorded(compile_program(source), **kwargs)


def test_replay_reproduces_the_output_with_constants_the_graph_did_not_save():
    run, notes = recorded("c = tensor([1.0, 2.0])\nx = [0.5, 0.25]\ny = (x + c) * 3.0 - 1.0")
    x = run.values["x"]
    tape = Tape([run.output], [x], notes)
    (out,) = tape(Tensor(np.array([1.0, 1.0]), requires_grad=True))
    assert out._data.tolist() == [5.0, 8.0]
    (same,) = tape(x)
    assert same._data.tolist() == run.output._data.tolist()


def test_replay_refuses_a_graph_it_did_not_record():
    run = compile_program("x = 2.0\ny = x + 1.0").run()
    with pytest.raises(ReplayError):
        Tape([run.values["y"]], [run.values["x"]], {})


def test_symbolic_translation_follows_the_graph():
    sp = symbolic.sympy()
    run, notes = recorded("x = [0.5, 2.0]\nw = tensor([3.0, 4.0])\ny = (sin(x) * w).sum()")
    x = run.values["x"]
    tape = Tape([run.output], [x], notes)
    with no_grad():
        _, base = tape.evaluate([Tensor._make(x._data)], keep=True)
    syms = symbolic.Symbols(sp, ["x"], [x._data])
    (y,) = tape.symbolic(sp, syms.arrays, base, symbolic.SympyBudget())
    x0, x1 = syms.symbols[0]
    assert sp.simplify(y[()] - (3 * sp.sin(x0) + 4 * sp.sin(x1))) == 0


def test_evaluate_computes_each_subexpression_and_knows_what_sympy_left_undone():
    sp = symbolic.sympy()
    x = sp.Symbol("x", real=True)
    f = sp.Function("f")
    exprs = [sp.exp(x) * sp.sin(x) + sp.Heaviside(x), sp.Max(x, 0) ** 2, f(x).diff(x), 3]
    values, known = symbolic.evaluate(sp, exprs, {x: 0.5}, symbolic.SympyBudget())
    assert values[0] == pytest.approx(math.exp(0.5) * math.sin(0.5) + 1)
    assert values[1] == pytest.approx(0.25)
    assert known.tolist() == [True, True, False, True]


def test_symbols_sample_a_large_input():
    sp = symbolic.sympy()
    syms = symbolic.Symbols(sp, ["x"], [np.arange(500.0)])
    assert syms.sampled == [True] and len(syms.symbols[0]) == symbolic.SAMPLE
    assert all(isinstance(v, float) for i, v in enumerate(syms.arrays[0]) if i not in syms.columns[0])


def test_budget_raises_instead_of_hanging():
    budget = symbolic.SympyBudget(-1.0)   # already past (0.0 can tie with a coarse CPU clock)
    with pytest.raises(symbolic.OverBudget, match="budget"):
        budget.check()


def test_grad_symbolic_prints_formulas():
    result = CliRunner().invoke(app, ["grad", "-e", "x = 3.0; y = x**2 * sin(x)", "--wrt", "x",
                                      "--symbolic", "--json"], catch_exceptions=False)
    assert result.exit_code == 0
    formula = json.loads(result.stdout)["symbolic"]["x"]
    assert formula in ("x*(x*cos(x) + 2*sin(x))", "x**2*cos(x) + 2*x*sin(x)")


def test_grad_symbolic_second_order_and_tensors():
    result = CliRunner().invoke(app, ["grad", "-e", "x = 3.0; w = [1.0, 2.0]; y = (w * x * x).sum()",
                                      "--wrt", "x,w", "--order", "2", "--symbolic", "--json"],
                               catch_exceptions=False)
    doc = json.loads(result.stdout)["symbolic"]
    assert doc["x"]["x"] == "2*w[0] + 2*w[1]"
    assert doc["w"]["x"] == "[2*x, 2*x]"
    assert doc["w"]["w"] == "[[0, 0], [0, 0]]"


def test_grad_symbolic_of_a_vector_output_weighs_it_by_grad_outputs():
    result = CliRunner().invoke(app, ["grad", "-e", "x = [2.0, 3.0]; y = x * x", "--wrt", "x",
                                      "--grad-outputs", "[1.0, 2.0]", "--symbolic", "--json"],
                               catch_exceptions=False)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["symbolic"]["x"] == "[2*x[0], 4*x[1]]"


def test_sympy_is_not_imported_at_start_up():
    code = ("import sys, gradcli.cli.app, gradcli.check, gradcli.check.core; "
            "print('sympy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_user_text_never_reaches_sympify():
    import pathlib

    import gradcli.check as package

    for path in pathlib.Path(package.__file__).parent.glob("*.py"):
        text = path.read_text()
        assert "sympify(" not in text and "parse_expr(" not in text and "S(" not in text.replace("_S(", "")
