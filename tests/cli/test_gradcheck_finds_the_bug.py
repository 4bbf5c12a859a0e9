"""gradcheck points at the bug (issue 28.2): the custom Function, its backward's line, the
wrong returned gradient; a real second derivative at order 2; unused inputs marked."""
import json
import math
from pathlib import Path

from typer.testing import CliRunner

from gradcli.cli.app import app

MULPLUS = """import torch
class MulPlus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b + a

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = torch.tensor(5.0, requires_grad=True)
z = MulPlus.apply(a, b).sum()
"""
SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def invoke(*args, input=None):
    return CliRunner().invoke(app, list(args), input=input, catch_exceptions=False)


def test_the_wrong_returned_gradient_is_named_with_class_line_and_parameter(tmp_path):
    f = tmp_path / "mulplus.py"
    f.write_text(MULPLUS)
    result = invoke("gradcheck", str(f), "--json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    (found,) = doc["functions"]
    assert found["class"] == "MulPlus" and found["position"] == 0 and found["parameter"] == "a"
    assert found["backward"] == f"{f}:11" and found["backward_def_line"] == 9
    assert found["element"] == [0]
    assert found["analytical"] == 3.0                           # g * b at b = 3
    assert math.isclose(found["expected"], 4.0, rel_tol=1e-6)   # g * (b + 1)
    human = invoke("gradcheck", str(f))
    assert "MulPlus.backward" in human.stdout and f"{f}:11" in human.stdout
    assert "gradient 0 (for 'a')" in human.stdout


def test_the_seed_wrong_backward_names_its_second_gradient():
    doc = json.loads(invoke("gradcheck", str(SAMPLES / "e13_wrong_backward.py"), "--json").stdout)
    (found,) = doc["functions"]
    assert (found["class"], found["position"], found["parameter"]) == ("Func", 1, "y")
    assert found["backward"].endswith("e13_wrong_backward.py:13")
    assert math.isclose(found["analytical"] - found["expected"], 1.0, rel_tol=1e-6)


def test_a_right_function_is_not_accused():
    fixed = MULPLUS.replace("return g * b, g * a", "return g * (b + 1), g * a")
    result = invoke("gradcheck", "-e", fixed, "--json")
    assert result.exit_code == 0
    assert "functions" not in json.loads(result.stdout)


def test_unused_inputs_are_marked_unused_not_ok_zero():
    result = invoke("gradcheck", "-e", MULPLUS.replace("return g * b, g * a", "return g * (b + 1), g * a"),
                    "--json")
    checks = [c for c in json.loads(result.stdout)["checks"] if c["input"] == "c"]
    assert checks and all(c["unused"] for c in checks)
    human = invoke("gradcheck", "-e", "x = 2.0\nw = 1.0\ny = x * x\n")
    rows = [line.split() for line in human.stdout.splitlines() if line.startswith("y ")]
    assert [r[4] for r in rows if r[1] == "w"] == ["unused", "unused"]
    assert [r[5] for r in rows if r[1] == "w"] == ["-", "-"]
    assert "2 passed, 2 unused" in human.stdout
    assert "does not depend on w" in human.stderr


def test_order_2_compares_the_hessian_entry_of_a_scalar_output():
    # e13's backward is not differentiable in x (the saved exp(x) has no graph): the second
    # derivative d2z/dx0^2 = e^1 is the reference, not e times a random grad_output
    doc = json.loads(invoke("gradcheck", str(SAMPLES / "e13_wrong_backward.py"), "--order", "2",
                            "--json").stdout)
    second = [c for c in doc["checks"] if c["order"] == 2 and c["input"] == "x"
              and c["reference"] == "finite-difference"]
    assert second[0]["analytical"] == 0.0
    assert math.isclose(second[0]["expected"], math.e, rel_tol=1e-5)
    assert "grad_output" not in second[0]
    human = invoke("gradcheck", str(SAMPLES / "e13_wrong_backward.py"), "--order", "2")
    assert "compared Hessian entries" in human.stdout


def test_order_2_of_a_vector_output_shows_its_vector():
    program = "x = [1.0, 2.0]\ny = x ** 3\n"
    doc = json.loads(invoke("gradcheck", "-e", program, "--order", "2", "--json").stdout)
    second = [c for c in doc["checks"] if c["order"] == 2]
    v = second[0]["grad_output"]
    assert len(v) == 2 and all(-1 <= e <= 1 for e in v)


UNUSED = MULPLUS.replace("z = MulPlus.apply(a, b).sum()\n",
                         "side = MulPlus.apply(a, b)\nMulPlus.apply(b, a)\nz = (a * b).sum()\n")


def test_a_function_the_output_does_not_use_is_said_not_checked(tmp_path):
    """MulPlus's backward is wrong, but z does not use its result: the checks of z pass (its
    derivatives are right), and the report says that MulPlus's backward was not checked,
    where it was applied, and how to check it, instead of passing in silence."""
    f = tmp_path / "unused.py"
    f.write_text(UNUSED)
    line = UNUSED.splitlines().index("side = MulPlus.apply(a, b)") + 1
    human = invoke("gradcheck", str(f))
    assert human.exit_code == 0, human.output
    assert (f"not checked: MulPlus (applied at {f}:{line}) is not used by z: its backward is not checked; "
            "gradcheck --of side checks it") in human.stdout
    assert human.stdout.splitlines()[-1] == "4 passed, 2 unused, 1 custom Function not checked"   # (c)
    doc = json.loads(invoke("gradcheck", str(f), "--json").stdout)
    assert doc["ok"] is True
    assert doc["unchecked_functions"] == [{"class": "MulPlus", "applied": f"{f}:{line}", "output": "z",
                                           "held_by": "side"}]
    # checked where it is used, the wrong gradient is found, and nothing is left unchecked
    found = json.loads(invoke("gradcheck", str(f), "--of", "side", "--json").stdout)
    assert found["ok"] is False and found["functions"][0]["class"] == "MulPlus"
    assert "unchecked_functions" not in found


def test_a_used_function_is_not_said_unchecked(tmp_path):
    f = tmp_path / "used.py"
    f.write_text(MULPLUS.replace("return g * b, g * a", "return g * (b + 1), g * a"))
    result = invoke("gradcheck", str(f))
    assert result.exit_code == 0 and "not checked" not in result.stdout
