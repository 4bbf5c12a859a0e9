"""`gradcli gradcheck FILE ...` through Typer's CliRunner: exit codes, the JSON of SPEC 5
(parsed), the human report, kinks, budgets, several files, --fast and --order 2."""
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
RIGHT = (SAMPLES / "e12_custom_function.py").read_text()   # the seed e12
WRONG = (SAMPLES / "e13_wrong_backward.py").read_text()    # the seed e13: d/dy is off by one


def invoke(*args, input=None):
    return CliRunner().invoke(app, ["gradcheck", *args], input=input, catch_exceptions=False)


def checks(result):
    doc = json.loads(result.stdout)
    assert set(doc) >= {"ok", "checks"}
    return doc


@pytest.fixture
def files(tmp_path):
    def write(**programs):
        paths = []
        for name, text in programs.items():
            path = tmp_path / f"{name}.py"
            path.write_text(text)
            paths.append(str(path))
        return paths
    return write


def test_seed_custom_function_passes(files):
    (right,) = files(e12=RIGHT)
    result = invoke(right, "--of", "z")
    assert result.exit_code == 0, result.stdout
    assert "FAIL" not in result.stdout


def test_seed_wrong_backward_fails_on_input_y(files):
    (wrong,) = files(e13=WRONG)
    result = invoke(wrong, "--json")
    assert result.exit_code == 1
    doc = checks(result)
    assert doc["ok"] is False
    failed = [c for c in doc["checks"] if not c["ok"]]
    assert {c["input"] for c in failed} == {"y"}
    assert {c["reference"] for c in failed} == {"finite-difference", "sympy"}
    fd = next(c for c in failed if c["reference"] == "finite-difference")
    assert fd["file"] == wrong and fd["output"] == "z" and fd["order"] == 1
    assert fd["worst_index"] == [0]
    assert fd["analytical"] == pytest.approx(3 + 2.718281828459045 ** 3)
    assert fd["expected"] == pytest.approx(2 + 2.718281828459045 ** 3, rel=1e-8)
    assert fd["max_abs_error"] == pytest.approx(1.0, rel=1e-6)


def test_human_report_names_the_failing_element_and_both_references(files):
    (wrong,) = files(e13=WRONG)
    result = invoke(wrong)
    assert result.exit_code == 1
    out = result.stdout
    assert "failures" in out and "FAIL" in out
    # issue 15: a failure too wide for 80 columns folds to "name: value" lines (was one wide row)
    failures = out[out.index("failures:"):]
    assert "input: y" in failures and "element: [0]" in failures
    assert "analytical: 23.0855" in failures and "FD: 22.0855" in failures


def test_json_keys_are_exactly_specs(files):
    doc = checks(invoke("-e", "x = [1.0, 2.0]; y = (x * x).sum()", "--json"))
    assert doc["ok"] is True
    first = doc["checks"][0]
    assert list(first)[:10] == ["file", "output", "input", "order", "reference", "ok", "max_abs_error",
                                "worst_index", "analytical", "expected"]
    assert {(c["input"], c["order"], c["reference"]) for c in doc["checks"]} == {
        ("x", 1, "finite-difference"), ("x", 1, "sympy")}


def test_several_files_give_one_report(files):
    right, wrong = files(e12=RIGHT, e13=WRONG)
    result = invoke(right, wrong, "--json")
    assert result.exit_code == 1
    doc = checks(result)
    assert {c["file"] for c in doc["checks"]} == {right, wrong}
    assert all(c["ok"] for c in doc["checks"] if c["file"] == right)
    assert {c["input"] for c in doc["checks"] if c["file"] == wrong and not c["ok"]} == {"y"}


def test_a_file_that_does_not_run_is_reported_and_the_others_checked(files):
    right, broken = files(good=RIGHT, broken="x = 2.0\ny = x + nope\n")
    result = invoke(right, broken, "--json")
    assert result.exit_code == 3
    doc = checks(result)
    assert doc["ok"] is False
    assert doc["errors"][0]["file"] == broken and doc["errors"][0]["error"]["code"] == 3
    assert {c["file"] for c in doc["checks"]} == {right}
    assert "nope" in result.stderr


def test_program_error_alone_exits_3_with_the_json_error():
    result = invoke("-e", "x = 2.0; y = x + nope", "--json")
    assert result.exit_code == 3
    assert json.loads(result.stdout)["error"]["code"] == 3


def test_nothing_requires_grad_is_an_autograd_error():
    result = invoke("-e", "x = tensor(2.0); y = x * 2")
    assert result.exit_code == 4
    assert "require" in result.stderr


def test_wrt_and_set_choose_what_is_checked():
    doc = checks(invoke("-e", "a = 2.0\nb = 3.0\nc = a * b * b", "--wrt", "b", "--set", "b=0.5",
                        "--json"))
    assert {c["input"] for c in doc["checks"]} == {"b"}
    fd = next(c for c in doc["checks"] if c["reference"] == "finite-difference")
    assert fd["analytical"] == pytest.approx(2 * 2.0 * 0.5)


def test_wrt_an_intermediate_tensor():
    doc = checks(invoke("-e", "x = 2.0\nh = x * x\ny = sin(h)", "--wrt", "h", "--json"))
    assert doc["ok"]
    fd = next(c for c in doc["checks"] if c["reference"] == "finite-difference")
    assert fd["input"] == "h" and fd["analytical"] == pytest.approx(-0.6536436208636119)


def test_no_sympy_gives_only_finite_differences():
    doc = checks(invoke("-e", "x = [1.0, 2.0]; y = exp(x)", "--no-sympy", "--json"))
    assert {c["reference"] for c in doc["checks"]} == {"finite-difference"}


def test_order_2_checks_second_derivatives():
    doc = checks(invoke("-e", "x = [0.5, 1.5]; y = (sin(x) * x).sum()", "--order", "2", "--json"))
    assert doc["ok"]
    assert {(c["order"], c["reference"]) for c in doc["checks"]} == {
        (1, "finite-difference"), (1, "sympy"), (2, "finite-difference"), (2, "sympy")}


def test_order_2_finds_a_backward_that_is_not_differentiable(files):
    # The seed's Function computes its backward from tensors saved without a graph:
    # right at first order, wrong (zero) at second, as PyTorch's gradgradcheck says too.
    (right,) = files(e12=RIGHT)
    result = invoke(right, "--order", "2", "--json")
    assert result.exit_code == 1
    doc = checks(result)
    assert all(c["ok"] for c in doc["checks"] if c["order"] == 1)
    bad = [c for c in doc["checks"] if c["order"] == 2 and not c["ok"]]
    assert {c["input"] for c in bad} == {"x", "y"}
    assert all(c["analytical"] == 0.0 for c in bad)


def test_fast_mode_checks_projections(files):
    doc = checks(invoke("-e", "x = [0.5, 1.5, 2.5]; y = tanh(x) * x", "--fast", "--json"))
    assert doc["ok"]
    assert all(c.get("fast") and c["worst_index"] == [] for c in doc["checks"])
    (wrong,) = files(e13=WRONG)
    result = invoke(wrong, "--fast", "--json")
    assert result.exit_code == 1
    assert {c["input"] for c in checks(result)["checks"] if not c["ok"]} == {"y"}


@pytest.mark.parametrize("program", [
    "x = 0.0; y = relu(x)",
    "x = [0.0, 1.0]; y = abs(x).sum()",
    "a = 1.0; b = 1.0; m = maximum(a, b)",
    "x = 1.0; y = clamp(x, 0.0, 1.0)",
    "x = [1.0, 3.0, 3.0]; y = x.max()",
])
def test_a_point_on_a_kink_is_reported_not_failed(program):
    result = invoke("-e", program, "--order", "2", "--json")
    assert result.exit_code == 0, result.stdout
    doc = checks(result)
    assert doc["ok"]
    assert any("kink" in c for c in doc["checks"])
    human = invoke("-e", program, "--order", "2")
    assert "kink" in human.stdout


def test_a_kink_does_not_hide_a_wrong_value_elsewhere(files):
    (wrong,) = files(e13=WRONG.replace("z = Func.apply(x, y).sum()",
                                       "z = Func.apply(x, y).sum() + relu(x - 1.0).sum()"))
    result = invoke(wrong, "--json")
    assert result.exit_code == 1
    doc = checks(result)
    assert any("kink" in c for c in doc["checks"] if c["input"] == "x")
    assert {c["input"] for c in doc["checks"] if not c["ok"]} == {"y"}


def test_large_input_is_sampled_for_sympy():
    result = invoke("-e", "x = randn(300, seed=1, requires_grad=True); y = (x * x).sum()", "--json")
    assert result.exit_code == 0
    sym = next(c for c in checks(result)["checks"] if c["reference"] == "sympy")
    assert sym["ok"] and "sampled 24 of 300 elements" in sym["note"]


def test_symbolic_work_over_budget_says_so_instead_of_hanging(monkeypatch):
    from gradcli.check import symbolic

    monkeypatch.setattr(symbolic, "SECONDS", 0.01)
    program = "W = randn(150, 150, seed=0)\nx = randn(150, seed=1, requires_grad=True)\ny = tanh(W @ x)"
    result = invoke("-e", program, "--json")
    assert result.exit_code == 0
    sym = next(c for c in checks(result)["checks"] if c["reference"] == "sympy")
    # issue 15: "skipped": true, the reason beside it (was the reason itself)
    assert sym["ok"] and sym["skipped"] is True and sym["skip_reason"].startswith("budget:")
    human = invoke("-e", program)
    assert "budget:" in human.stderr  # issue 15: notes go to stderr (were on stdout)


def test_bad_options_are_usage_errors():
    assert invoke("-e", "x = 1.0; y = x", "--order", "3").exit_code == 2
    assert invoke("-e", "x = 1.0; y = x * x", "--wrt", "nope").exit_code == 2


MIXED = '''
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        ctx.save_for_backward(x)
        return torch.sin(x) * k

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * torch.cos(x) * ctx.k, None

x = torch.tensor([0.3, 0.7, 1.1], requires_grad=True)
w = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
h = Scale.apply(x, 2.5)
y = torch.zeros(2)
y[0] = h[1]
z = torch.cat([w @ h, y]).softmax(0)[1:3].sum() + torch.stack([x, h]).max() + (x * 2.0 + 1.0).sum()
'''


def test_a_program_of_many_ops_with_a_custom_function_passes_both_orders_and_references():
    doc = checks(invoke("-e", MIXED, "--order", "2", "--json"))
    assert doc["ok"], [c for c in doc["checks"] if not c["ok"]]
    assert all("skipped" not in c for c in doc["checks"])
    assert {c["input"] for c in doc["checks"]} == {"x", "w"}


def test_a_hook_that_changes_the_gradient_is_what_gets_checked():
    # PyTorch's gradcheck too compares the gradient the hooks produce with the function's.
    result = invoke("-e", "x = 2.0; y = x * x; y.register_hook(lambda g: g * 2); z = y + 1", "--json")
    assert result.exit_code == 1
    fd = next(c for c in checks(result)["checks"] if c["reference"] == "finite-difference")
    assert fd["analytical"] == pytest.approx(8.0) and fd["expected"] == pytest.approx(4.0)


def test_of_several_outputs():
    doc = checks(invoke("-e", "x = [1.0, 2.0]; y = x * x; z = sin(x)", "--of", "y,z", "--json"))
    assert {(c["output"], c["reference"]) for c in doc["checks"]} == {
        ("y", "finite-difference"), ("y", "sympy"), ("z", "finite-difference"), ("z", "sympy")}


def test_a_constant_changed_in_place_after_use_is_replayed_with_its_old_value():
    program = "c = tensor([1.0, 2.0])\nx = [1.0, 1.0]\ny = x * x + c\nwith no_grad():\n    c += 1.0"
    result = invoke("-e", program, "--of", "y", "--json")
    assert result.exit_code == 0
    assert checks(result)["ok"]


def test_a_graph_freed_by_the_programs_backward_is_still_checked():
    result = invoke("-e", "x = [1.0, 2.0]; y = (x * x).sum(); y.backward()")
    assert result.exit_code == 0
    # issue 28.1: what the program's backward freed is kept, so its own graph is checked
    assert "freed" not in result.stderr and "passed" in result.stdout


def test_a_graph_changed_in_place_after_the_programs_backward_is_checked_by_its_replay():
    program = ("w = [1.0, 2.0]\nloss = (w * w).sum()\nloss.backward()\nwith no_grad():\n"
               "    w -= 0.1 * w.grad\n")
    result = invoke("-e", program, "--of", "loss")
    assert result.exit_code == 0
    assert "in place" in result.stderr  # issue 15: notes go to stderr
