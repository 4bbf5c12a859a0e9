"""`gradcli gradcheck` with no file: every op of the op table, and a checker that can fail.

The mutation tests replace an op's backward with a wrong one (scaled by 1.1) and
assert the self-check names that op: a checker that cannot fail is worth nothing.
"""
import json

import pytest
from typer.testing import CliRunner

from gradcli.check import Options, self_check
from gradcli.check.selfcheck import check_op, differentiable_ops
from gradcli.cli.app import app
from gradcli.ops import OPS
from gradcli.ops.registry import TENSORS

FAST = Options(order=1, sympy=False)


@pytest.fixture(scope="module")
def full_report():
    result = CliRunner().invoke(app, ["gradcheck", "--json"], catch_exceptions=False)
    return result


def test_self_check_passes_with_sympy_and_second_order(full_report):
    assert full_report.exit_code == 0, [c for c in json.loads(full_report.stdout)["checks"] if not c["ok"]]
    doc = json.loads(full_report.stdout)
    assert doc["ok"] is True
    kinds = {(c["order"], c["reference"]) for c in doc["checks"]}
    assert kinds == {(1, "finite-difference"), (1, "sympy"), (2, "finite-difference"), (2, "sympy")}
    assert all("op" in c and "file" not in c for c in doc["checks"])


def test_self_check_covers_every_differentiable_op(full_report):
    checked = {c["op"] for c in json.loads(full_report.stdout)["checks"]}
    assert checked == {op.name for op in differentiable_ops()}


def test_sympy_really_ran_for_most_ops(full_report):
    doc = json.loads(full_report.stdout)
    compared = {c["op"] for c in doc["checks"] if c["reference"] == "sympy" and "skipped" not in c}
    assert len(compared) >= 0.9 * len(differentiable_ops())


def test_human_self_check_is_one_line_per_op(monkeypatch):
    some = [OPS[name] for name in ("add", "exp", "sum", "mm", "softmax")]
    monkeypatch.setattr("gradcli.check.selfcheck.differentiable_ops", lambda: some)
    result = CliRunner().invoke(app, ["gradcheck"], catch_exceptions=False)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    for op in some:
        row = [line for line in lines if line.split() and line.split()[0] == op.name]
        # issue 15: the node column left the table to fit 80 columns (`gradcli ops` shows nodes)
        assert len(row) == 1 and row[0].split().count("ok") == 5


def _scaled(rule, only_tensors=False):
    if rule is None:
        return None
    if only_tensors:  # wrong only when the backward builds a graph: order 2 must see it
        return lambda F, g, *a: rule(F, g, *a) * (1.1 if F is TENSORS else 1.0)
    return lambda F, g, *a: rule(F, g, *a) * 1.1


def _has_nonzero_derivative(op):
    report = check_op(op, FAST)
    return any(r.analytical not in (0.0, None) for r in report.results)


MUTANTS = [op for op in differentiable_ops() if op.name not in ("sign", "zero")]


@pytest.mark.parametrize("op", MUTANTS, ids=lambda op: op.name)
def test_a_scaled_backward_is_reported(op, monkeypatch):
    if not _has_nonzero_derivative(op):
        pytest.skip(f"{op.name} has zero derivatives at its points: scaling changes nothing")
    monkeypatch.setattr(op, "rules", tuple(_scaled(r) for r in op.rules))
    report = check_op(op, FAST)
    assert not report.ok, f"{op.name}'s backward scaled by 1.1 passed"
    bad = [r for r in report.results if not r.ok]
    assert all(r.analytical == pytest.approx(1.1 * r.expected, rel=1e-3, abs=1e-6) for r in bad)


@pytest.mark.parametrize("name", ["mul", "exp", "tanh", "sum", "mm", "softmax", "maximum"])
def test_sympy_alone_also_catches_it(name, monkeypatch):
    op = OPS[name]
    monkeypatch.setattr(op, "rules", tuple(_scaled(r) for r in op.rules))
    report = check_op(op, Options(order=1))
    assert any(not r.ok for r in report.results if r.reference == "sympy")


@pytest.mark.parametrize("name", ["mul", "exp", "sin", "div", "prod", "logsumexp"])
def test_a_wrong_double_backward_is_caught_at_order_2_only(name, monkeypatch):
    op = OPS[name]
    monkeypatch.setattr(op, "rules", tuple(_scaled(r, only_tensors=True) for r in op.rules))
    report = check_op(op, Options(order=2))
    assert all(r.ok for r in report.results if r.order == 1)
    assert {r.reference for r in report.results if r.order == 2 and not r.ok} == {
        "finite-difference", "sympy"}


def test_cli_exits_1_and_names_the_broken_op(monkeypatch):
    op = OPS["exp"]
    monkeypatch.setattr(op, "rules", tuple(_scaled(r) for r in op.rules))
    monkeypatch.setattr("gradcli.check.selfcheck.differentiable_ops", lambda: [OPS["sin"], op])
    result = CliRunner().invoke(app, ["gradcheck", "--json"], catch_exceptions=False)
    assert result.exit_code == 1
    bad = {c["op"] for c in json.loads(result.stdout)["checks"] if not c["ok"]}
    assert bad == {"exp"}


def test_an_op_that_raises_is_a_failure(monkeypatch):
    op = OPS["sin"]
    monkeypatch.setattr(op, "forward", lambda x: (_ for _ in ()).throw(ValueError("broken")))
    # apply caches the op's forward with its float promotion: dropped here, restored after
    monkeypatch.setattr(op, "float_dtype", None)
    monkeypatch.setattr(op, "float_hit", None)
    report = check_op(op, FAST)
    assert not report.ok and "broken" in report.error
