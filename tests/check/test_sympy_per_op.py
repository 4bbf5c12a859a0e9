"""The per-op SymPy reference: reverse accumulation with each node's local derivatives by
SymPy. It checks what the whole-program translation cannot reach, agrees with it where both
can, catches a wrong backward rule, and never calls one."""
import json
import zlib

import numpy as np
import pytest
from typer.testing import CliRunner

from gradcli._tensor import Tensor, no_grad
from gradcli.check import Options, check_run, core, run_recorded, symbolic
from gradcli.check.perop import Chain
from gradcli.check.replay import Tape, recording
from gradcli.cli.app import app
from gradcli.lang import compile_program
from gradcli.ops import OPS
from gradcli.ops.registry import apply

# The brief's example: 192 symbols through a two-layer network; the whole-program
# translation takes minutes.
NETWORK = """
import torch
X = torch.randn(16, 8, seed=3)
W1 = torch.randn(8, 16, seed=1, requires_grad=True)
W2 = torch.randn(16, 4, seed=2, requires_grad=True)
h = torch.tanh(X @ W1)
loss = torch.softmax(h @ W2, dim=1).log().mean()
"""

CUSTOM = '''
class Func(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        expx = torch.exp(x)
        ctx.save_for_backward(expx, y)
        return 3 * x * y + expx

    @staticmethod
    def backward(ctx, grad_output):
        expx, y = ctx.saved_tensors
        return grad_output * (3 * y + expx), grad_output * {dy}

x = torch.tensor([0.5, 1.5], requires_grad=True)
y = torch.tensor([2.0, -1.0], requires_grad=True)
z = (Func.apply(x, y) * torch.tanh(x)).sum()
'''

# Small programs both references reach: broadcasting, constants on either side, where,
# indexing, cat/stack, multi-output unbind, max over a dim, a custom Function.
SMALL = {
    "broadcast": "x = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]\nb = [0.1, 0.2, 0.3]\n"
                 "y = (sigmoid(x * b + 1.0) / (2.0 - b)).sum(dim=0)",
    "where_index": "x = [0.3, -0.7, 1.1, 2.0]\ny = where(x > 0, x * x, exp(x))[1:3] + x[0] * x[3]",
    "cat_stack": "a = [1.0, 2.0]\nb = [0.5, -0.5]\n"
                 "y = cat([a * b, stack([a, b]).sum(dim=0)]).softmax(0)",
    "unbind": "x = [[0.2, 0.4], [0.6, 0.8], [1.0, 1.2]]\np, q, r = x.unbind()\ny = p * q + r.exp() * p",
    "max_dim": "x = [[0.2, 0.9, -0.4], [1.3, -0.8, 0.5]]\nw = [1.0, 2.0]\n"
               "y = (x.max(dim=1)[0] * w).sum() + x.min(dim=0).values.sum()",
    "matmul": "A = [[0.5, 1.0], [-1.0, 2.0], [0.3, 0.1]]\nv = [0.7, -0.2]\ny = tanh(A @ v).log_softmax(0)",
    "custom": CUSTOM.format(dy="3 * x"),
}


@pytest.fixture(autouse=True)
def _time_for_sympy(monkeypatch):
    """These tests check what the per-op reference answers, so it must get to answer: its
    2 s budget (`symbolic.SECONDS`) is for users; a slow or loaded test machine may need more.
    The budget's own behaviour is tested with budgets set where it matters."""
    monkeypatch.setattr(symbolic, "SECONDS", 60.0)


def checks_of(source, **options):
    run, notes = run_recorded(compile_program(source))
    (report,) = check_run(run, notes, "test", Options(**{"order": 1, **options}))
    return report.results


def sympy_checks(results, order=1):
    return {r.input: r for r in results if r.reference == "sympy" and r.order == order}


def invoke(*args):
    return CliRunner().invoke(app, ["gradcheck", *args], catch_exceptions=False)


def scaled_rules(op, monkeypatch, factor=1.1):
    """Make `op`'s backward wrong: every rule's gradient scaled by `factor`."""
    rules = tuple(None if r is None else (lambda r: lambda F, g, *a: r(F, g, *a) * factor)(r)
                  for r in op.rules)
    monkeypatch.setattr(op, "rules", rules)


# -- the network the whole-program translation cannot reach -------------------------


def test_a_network_out_of_whole_program_reach_is_checked_per_op():
    result = invoke("-e", NETWORK, "--json")
    assert result.exit_code == 0, result.stdout
    doc = json.loads(result.stdout)
    sym = [c for c in doc["checks"] if c["reference"] == "sympy"]
    assert {c["input"] for c in sym} == {"W1", "W2"}
    for c in sym:
        assert c["ok"] and "skipped" not in c
        assert c["sympy_method"] == "per-op"
        assert c["max_abs_error"] < 1e-12
        assert c["finite-difference"] == pytest.approx(c["expected"], abs=1e-8)
    assert all("sympy_method" not in c for c in doc["checks"] if c["reference"] != "sympy")


def test_the_human_table_says_per_op():
    result = invoke("-e", NETWORK)
    assert result.exit_code == 0
    assert "SymPy (per op)" in result.stdout and "skipped" not in result.stdout


def test_a_wrong_backward_is_caught_by_the_per_op_reference(monkeypatch):
    scaled_rules(OPS["tanh"], monkeypatch)
    results = checks_of(NETWORK)
    sym = sympy_checks(results)
    assert {r.method for r in sym.values()} == {"per-op"}
    # tanh is below W1 only: W2's gradient stays right
    assert not sym["W1"].ok and sym["W2"].ok
    assert sym["W1"].analytical != pytest.approx(sym["W1"].expected, rel=1e-3)
    fd = next(r for r in results if r.reference == "finite-difference" and r.input == "W1")
    assert sym["W1"].others["finite-difference"] == pytest.approx(sym["W1"].expected, abs=1e-7)
    assert not fd.ok


def test_order_2_keeps_the_whole_program_reference_or_says_why_not(monkeypatch):
    monkeypatch.setattr(core, "WHOLE_PROGRAM_WORK", 0)   # every program is "obviously" too big
    results = checks_of("x = [0.5, 1.5]\ny = (sin(x) * x).sum()", order=2)
    first, second = sympy_checks(results, 1)["x"], sympy_checks(results, 2)["x"]
    assert first.ok and first.method == "per-op" and first.skipped is None
    assert second.skipped.startswith("budget: the whole-program translation would take")


def test_over_budget_whole_program_falls_back_to_per_op(monkeypatch):
    def over(*args, **kwargs):
        raise symbolic.OverBudget("budget: the symbolic work took more than 2 s")

    monkeypatch.setattr(core, "_whole_program", over)
    results = checks_of("x = [0.5, 1.5]\ny = (sin(x) * x).sum()", order=2)
    assert sympy_checks(results, 1)["x"].ok and sympy_checks(results, 1)["x"].method == "per-op"
    assert sympy_checks(results, 2)["x"].skipped == "budget: the symbolic work took more than 2 s"


def test_small_programs_stay_whole_program():
    doc = json.loads(invoke("-e", "x = [1.0, 2.0]; y = (x * x).sum()", "--order", "2", "--json").stdout)
    sym = [c for c in doc["checks"] if c["reference"] == "sympy"]
    assert len(sym) == 2 and all(c["ok"] and c["sympy_method"] == "whole-program" for c in sym)


# -- agreement with the whole-program reference ------------------------------------------


@pytest.mark.parametrize("name", sorted(SMALL))
def test_per_op_and_whole_program_agree(name):
    per_op = sympy_checks(checks_of(SMALL[name], sympy_method="per-op"))
    whole = sympy_checks(checks_of(SMALL[name], sympy_method="whole-program"))
    assert per_op.keys() == whole.keys()
    for key in per_op:
        a, b = per_op[key], whole[key]
        assert a.ok and b.ok and a.skipped is None and b.skipped is None, (a, b)
        assert (a.method, b.method) == ("per-op", "whole-program")
        np.testing.assert_allclose(a.arrays[None], b.arrays[None], rtol=1e-10, atol=1e-12)


def test_fast_mode_projects_one_vector_jacobian_product(monkeypatch):
    sym = sympy_checks(checks_of(SMALL["matmul"], sympy_method="per-op", fast=True))
    assert all(r.ok and r.projection and r.method == "per-op" for r in sym.values())
    scaled_rules(OPS["tanh"], monkeypatch)
    sym = sympy_checks(checks_of(SMALL["matmul"], sympy_method="per-op", fast=True))
    assert {k for k, r in sym.items() if not r.ok} == {"A", "v"}


def test_a_large_output_is_compared_on_sampled_rows():
    (r,) = sympy_checks(checks_of("x = randn(300, seed=1, requires_grad=True)\ny = tanh(x) * x",
                                  sympy_method="per-op")).values()
    assert r.ok and r.skipped is None and "64 sampled rows" in r.note


def _op_cases():
    from gradcli.check.selfcheck import differentiable_ops

    for op in differentiable_ops():
        rng = np.random.default_rng(zlib.crc32(op.name.encode()))
        for number, (inputs, params) in enumerate(op.domain(rng)):
            if number % 2 == 0:
                yield pytest.param(op, inputs, params, id=f"{op.name}-{number}")


@pytest.mark.parametrize("op, inputs, params", list(_op_cases()))
def test_every_op_node_agrees_with_its_whole_translation(op, inputs, params):
    """One node of each op of the table, every output: the chain's Jacobian is the one SymPy
    gives by differentiating the op's translation whole (elements SymPy knows on both sides)."""
    sp = symbolic.sympy()
    diff = [i for i, a in enumerate(inputs)
            if isinstance(a, np.ndarray) and i < len(op.rules) and op.rules[i] is not None]
    xs = [Tensor(np.array(inputs[i], dtype=np.float64), requires_grad=True) for i in diff]
    args = list(inputs)
    for i, x in zip(diff, xs):
        args[i] = x
    with recording() as notes:
        out = apply(op, tuple(args), params)
    for o in (out if isinstance(out, tuple) else (out,)):
        if not o.requires_grad:
            continue  # the indices of max(dim)
        tape = Tape([o], xs, notes)
        grads, known = Chain(tape, xs).vjp(sp, np.eye(o._data.size), symbolic.SympyBudget())
        syms = symbolic.Symbols(sp, [f"x{i}" for i in diff], [x._data for x in xs], max_symbols=10**6)
        with no_grad():
            _, base = tape.evaluate([Tensor._make(x._data) for x in xs], keep=True)
        y = np.asarray(tape.symbolic(sp, syms.arrays, base, symbolic.SympyBudget())[0], dtype=object)
        rows = symbolic.jacobian_exprs(y, [s for ss in syms.symbols for s in ss], symbolic.SympyBudget())
        values, whole_known = symbolic.evaluate(sp, [d for row in rows for d in row], syms.point,
                                                symbolic.SympyBudget())
        per_op, per_op_known = np.concatenate(grads, axis=1), np.concatenate(known, axis=1)
        assert (whole_known.reshape(per_op.shape) == per_op_known).all()
        np.testing.assert_allclose(per_op[per_op_known], values.reshape(per_op.shape)[per_op_known],
                                   rtol=1e-9, atol=1e-12)


# -- custom Functions, multi-output nodes, no counterpart ----------------------------------


def test_a_custom_function_is_translated_from_its_forward_not_its_backward():
    right = sympy_checks(checks_of(CUSTOM.format(dy="3 * x"), sympy_method="per-op"))
    assert all(r.ok for r in right.values())
    wrong = sympy_checks(checks_of(CUSTOM.format(dy="3 * x + 1"), sympy_method="per-op"))
    assert wrong["x"].ok and not wrong["y"].ok


def test_unbind_outputs_reached_apart_are_accumulated():
    # only outputs 0 and 2 of the UnbindBackward0 node are used: output 1 gets no cotangent
    sym = sympy_checks(checks_of("x = [0.5, 1.5, 2.5]\na, b, c = x.unbind()\ny = a * c + sin(c)",
                                 sympy_method="per-op"))
    assert sym["x"].ok and sym["x"].expected is not None
    np.testing.assert_allclose(sym["x"].arrays[None], [[2.5, 0.0, 0.5 + np.cos(2.5)]])


def test_a_partial_sympy_cannot_give_leaves_only_the_elements_it_reaches_unknown(monkeypatch):
    # tanh as an undefined f: SymPy's derivative of f stays unevaluated
    unknown_f = np.vectorize(lambda e: symbolic.sympy().Function("f")(e), otypes=[object])
    monkeypatch.setattr(OPS["tanh"], "sympy", lambda sp, x: unknown_f(x))
    source = "x = [0.5, 1.0]\ny = cat([tanh(x[0:1]), x[1:2] * 3.0 + x[0:1]])"
    per_op = sympy_checks(checks_of(source, sympy_method="per-op"))["x"]
    whole = sympy_checks(checks_of(source, sympy_method="whole-program"))["x"]
    for r in (per_op, whole):
        assert r.ok and r.skipped is None
        np.testing.assert_array_equal(np.isnan(r.arrays[None]), [[True, False], [False, False]])
        np.testing.assert_allclose(r.arrays[None][1], [1.0, 3.0])


def test_an_op_without_a_sympy_counterpart_leaves_the_reference_unavailable(monkeypatch):
    monkeypatch.setattr(OPS["tanh"], "sympy", None)
    sym = sympy_checks(checks_of(NETWORK))
    assert all(r.ok and r.skipped == "unavailable: tanh has no SymPy counterpart" for r in sym.values())


# -- independence ------------------------------------------------------------------------


def test_the_chain_never_calls_a_backward_rule(monkeypatch):
    source = SMALL["matmul"]
    run, notes = run_recorded(compile_program(source))
    xs = [run.values["A"], run.values["v"]]
    tape = Tape([run.output], xs, notes)
    chain = Chain(tape, [Tensor(np.array(x._data), requires_grad=True) for x in xs])

    def refuse(*args):
        raise AssertionError("a backward rule was called")

    for op in OPS.values():
        monkeypatch.setattr(op, "rules", tuple(None if r is None else refuse for r in op.rules))
    grads, known = chain.vjp(symbolic.sympy(), np.eye(3), symbolic.SympyBudget())
    assert all(k.all() for k in known)
    A, v = np.array(xs[0]._data), np.array(xs[1]._data)
    t = np.tanh(A @ v)
    # d log_softmax_i / d z_j = delta_ij - softmax_j; d z_j / d v = (1 - t_j^2) A_j
    jac_z = np.eye(3) - np.exp(t) / np.exp(t).sum()
    np.testing.assert_allclose(grads[1], jac_z @ ((1 - t ** 2)[:, None] * A), rtol=1e-12)
