"""What a newcomer's audit of pasted tutorial snippets found misleading (issue 28, "Done
when"), each through the CLI: a `--points` line blamed on `--set`, a Jacobian of zeros with
no word of why, and "no .grad for a, b: it ...".
"""
import json

from cli_helpers import as_json, invoke

EXPR = "x = 1.0\ny = 2.0\nz = sin(x) * exp(y) + x * y ** 2\n"

# The autograd.functional.jacobian example of PyTorch's documentation: J is computed without
# create_graph, so it has no graph, and its Jacobian in `inputs` is zeros
JACOBIAN_SNIPPET = """import torch
from torch.autograd.functional import jacobian

def exp_reducer(x):
    return x.exp().sum(dim=1)

inputs = torch.tensor([[0.1, 0.2], [0.3, 0.4]])
J = jacobian(exp_reducer, inputs)
"""


def test_a_points_line_with_a_name_that_is_no_input_names_its_line_not_set(tmp_path):
    points = tmp_path / "p.jsonl"
    points.write_text('{"x": 0.5}\n{"z": 1}\n{"X": 2}\n')
    result = invoke("grad", "-e", EXPR, "--wrt", "x", "--points", str(points))
    assert result.exit_code == 2
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert "grads" in lines[0]
    assert lines[1]["error"]["message"] == "--points line 2: no input named 'z'"
    assert lines[1]["error"]["hint"] == "the inputs are x, y"
    assert lines[2]["error"]["message"] == "--points line 3: no input named 'X'"
    assert lines[2]["error"]["hint"] in ("did you mean 'x'?", "the inputs are x, y")
    assert "--set" not in result.stderr
    refused = invoke("grad", "-e", EXPR, "--wrt", "x", "--set", "z=1")  # --set still says --set
    assert refused.exit_code == 2 and "--set: no input named 'z'" in refused.stderr


def test_a_jacobian_of_zeros_from_no_graph_says_why():
    result = invoke("jacobian", "-e", JACOBIAN_SNIPPET, "--wrt", "inputs")
    assert result.exit_code == 0, result.stderr
    assert "note: the Jacobian of 'J' in 'inputs' is zeros because 'J' has no grad_fn" in result.stderr
    assert "without create_graph=True" in result.stderr
    doc = as_json(invoke("jacobian", "-e", JACOBIAN_SNIPPET, "--wrt", "inputs", "--json"))
    assert json.dumps(doc).count("1.0") == 0   # the JSON is as it was: all zeros


def test_a_jacobian_block_of_an_input_not_used_says_so_and_a_used_one_does_not():
    program = "x = [1.0, 2.0]\nw = [3.0, 4.0]\ny = x * 2 + 0 * x\n"
    for mode in ("reverse", "forward"):
        result = invoke("jacobian", "-e", program, "--wrt", "x,w", "--mode", mode)
        assert result.exit_code == 0, result.stderr
        assert ("note: the Jacobian of 'y' in 'w' is zeros because 'y' is not computed from it"
                in result.stderr)
        assert "'x'" not in result.stderr
    # a zero that the arithmetic gives is no such case
    result = invoke("jacobian", "-e", "x = [0.0, 1.0]\ny = x * x\n", "--wrt", "x")
    assert result.exit_code == 0 and "note" not in result.stderr


def test_no_grad_for_several_names_speaks_of_them():
    result = invoke("backward", "-e", "x = 1.0\na = x * 2\nb = a * 3\ny = b + a\n")
    assert result.exit_code == 0, result.stderr
    assert ("no .grad for a, b: they are not leaves: call .retain_grad() on each to keep its "
            "gradient") in result.stdout
    one = invoke("backward", "-e", "x = 1.0\na = x * 2\ny = a * 3\n")
    assert "no .grad for a: it is not a leaf: call .retain_grad() on it" in one.stdout
    program = "import torch\ninputs = torch.ones(2)\ntarget = torch.zeros(2)\nw = torch.ones(2, requires_grad=True)\nloss = ((inputs * w - target) ** 2).sum()\n"
    result = invoke("backward", "-e", program)
    assert "no .grad for inputs, target: they do not require grad" in result.stdout


# The tutorial's way to check a custom Function: the program calls gradcheck itself, and its
# last value is the input x; `gradcli gradcheck` then checks x against x
SELF_CHECKING = """import torch
from torch.autograd import gradcheck

class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * 3 * x ** 2

x = torch.randn(4, dtype=torch.double, requires_grad=True)
print(gradcheck(MyCube.apply, (x,), eps=1e-6, atol=1e-4))
"""


def test_gradcheck_of_an_output_that_is_its_input_says_it_checks_nothing():
    result = invoke("gradcheck", "-e", SELF_CHECKING)
    assert result.exit_code == 0, result.stderr
    assert ("the output 'x' is the input 'x' itself, so this checks nothing the program computes"
            in result.stderr)
    doc = as_json(invoke("gradcheck", "-e", SELF_CHECKING, "--json"))
    assert all("checks nothing" in c["note"] for c in doc["checks"])
    computed = as_json(invoke("gradcheck", "-e", "x = 2.0\ny = x * x\n", "--json"))
    assert all("checks nothing" not in (c.get("note") or "") for c in computed["checks"])


RETAINED = """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3
h.retain_grad()
out = (h ** 2).mean()
out.backward()
h.grad.zero_()
"""


def test_backward_reports_the_grad_a_retained_tensor_got_from_the_programs_own_call():
    # d mean(h²)/dh = h = [3, 6]; the program zeroes it afterwards, as it may zero x.grad
    doc = as_json(invoke("backward", "-e", RETAINED, "--json"))
    assert doc["grads"] == {"x": [9.0, 18.0], "h": [3.0, 6.0]}
    result = invoke("backward", "-e", RETAINED)
    assert "h.grad is None" not in result.stdout and "no path leads" not in result.stdout
    assert "h.grad  shape [2]\ntensor([3., 6.])" in result.stdout
