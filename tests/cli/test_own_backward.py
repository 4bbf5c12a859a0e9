"""Programs that differentiate themselves (issue 28.1): a snippet that ends `y.backward()`
or calls `autograd.grad` still answers `backward`, `grad`, `jacobian`, `hessian`, `graph`."""
import math

from cli_helpers import as_json, invoke

TUTORIAL = ("import torch\nx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
            "y = x.pow(2).sum()\ny.backward()\nprint(x.grad)\n")


def test_backward_reports_the_grads_the_programs_own_call_left_and_says_so():
    doc = as_json(invoke("backward", "-e", TUTORIAL, "--json"))
    assert doc["grads"] == {"x": [2.0, 4.0, 6.0]}  # not doubled by a second backward
    assert doc["by_program"]["line"] == 4
    human = invoke("backward", "-e", TUTORIAL)
    assert human.exit_code == 0
    assert "y.backward()" in human.stdout and "did not call backward again" in human.stdout
    assert "tensor([2., 4., 6.])" in human.stderr  # the program's print


def test_grad_jacobian_hessian_answer_from_the_graph_before_the_call():
    assert as_json(invoke("grad", "-e", TUTORIAL, "--json"))["grads"] == {"x": [2.0, 4.0, 6.0]}
    assert as_json(invoke("jacobian", "-e", TUTORIAL, "--json"))["jacobian"] == {"x": [2.0, 4.0, 6.0]}
    h = as_json(invoke("hessian", "-e", TUTORIAL, "--json"))["hessian"]["x"]["x"]
    assert h == [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0]]


def test_a_graph_that_saves_tensors_is_kept_for_grad_after_the_programs_backward():
    program = ("import torch\nx = torch.tensor(0.5, requires_grad=True)\n"
               "y = torch.sin(x) * torch.exp(x)\ny.backward()\n")
    doc = as_json(invoke("grad", "-e", program, "--order", "2", "--json"))
    want = 2 * math.cos(0.5) * math.exp(0.5)  # (sin x e^x)'' = 2 cos x e^x
    assert math.isclose(doc["grads"]["x"]["x"], want, rel_tol=1e-12)


def test_autograd_grad_in_the_program_does_not_free_the_graph_for_the_command():
    program = ("import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x ** 3\n"
               "g, = torch.autograd.grad(y, x)\nprint(g)\n")
    assert as_json(invoke("grad", "-e", program, "--of", "y", "--json"))["grads"] == {"x": 12.0}
    # no .backward() in the program: `backward` runs its own, on the kept graph
    doc = as_json(invoke("backward", "-e", program, "--of", "y", "--json"))
    assert doc["grads"]["x"] == 12.0 and "by_program" not in doc


def test_backward_of_a_sum_the_program_took_reports_its_grads():
    # the output y is a vector; the program backpropagated y.sum()
    program = ("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * x\n"
               "y.sum().backward()\n")
    assert as_json(invoke("backward", "-e", program, "--json"))["grads"] == {"x": [2.0, 4.0]}


def test_grads_are_the_calls_even_if_the_program_zeroes_them_after():
    program = ("import torch\nw = torch.tensor(3.0, requires_grad=True)\nloss = w * w\n"
               "loss.backward()\nw.grad.zero_()\n")
    assert as_json(invoke("backward", "-e", program, "--of", "loss", "--json"))["grads"] == {"w": 6.0}


def test_backward_with_options_reruns_from_none_and_says_so():
    doc = as_json(invoke("backward", "-e", TUTORIAL, "--steps", "--json"))
    assert doc["grads"] == {"x": [2.0, 4.0, 6.0]} and doc["steps"]
    assert "by_program" not in doc


def test_the_programs_own_second_backward_is_still_pytorchs_error():
    program = ("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()\n"
               "y.backward()\ny.backward()\n")
    result = invoke("grad", "-e", program)
    assert result.exit_code == 4
    assert "Trying to backward through the graph a second time" in result.stderr


def test_training_loop_after_step_gets_a_hint_not_a_bare_inplace_error():
    program = ("import torch\nw = torch.tensor([1.0, 2.0], requires_grad=True)\n"
               "opt = torch.optim.SGD([w], lr=0.1)\nloss = (w * w).sum()\nloss.backward()\nopt.step()\n")
    result = invoke("grad", "-e", program, "--of", "loss")
    assert result.exit_code == 4
    assert "gradcli backward" in result.stderr and "in place" in result.stderr
    # backward reports what the program's own call left: 2w at w = [1, 2]
    doc = as_json(invoke("backward", "-e", program, "--of", "loss", "--json"))
    assert doc["grads"] == {"w": [2.0, 4.0]}


def test_seed_snippets_that_call_backward_answer_grad():
    # s02: the output y = x * x was backpropagated by the program with a gradient of ones
    from pathlib import Path
    seed = Path(__file__).resolve().parents[2] / "samples" / "s02_accumulate.py"
    doc = as_json(invoke("backward", str(seed), "--json"))
    assert doc["grads"] == {"x": [0.0, 2.0, 4.0, 6.0]}
    doc = as_json(invoke("jacobian", str(seed), "--json"))
    assert doc["jacobian"]["x"] == [[0.0, 0, 0, 0], [0, 2.0, 0, 0], [0, 0, 4.0, 0], [0, 0, 0, 6.0]]


def test_a_snippet_ending_with_its_gradient_vector_answers_for_what_it_differentiated():
    # the last assignment (v, g) has no graph: the output is what the program differentiated
    program = ("import torch\nx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\ny = x * 2\n"
               "v = torch.tensor([0.1, 1.0, 0.0001])\ny.backward(v)\n")
    result = invoke("backward", "-e", program, "--json")
    doc = as_json(result)
    assert doc["output"]["name"] == "y" and doc["by_program"]["line"] == 5
    assert doc["grads"]["x"] == [0.2, 2.0, 0.0002]
    assert "the output is 'y'" in result.stderr
    program = ("import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x ** 3\n"
               "dy, = torch.autograd.grad(y, x, create_graph=True)\nd2y, = torch.autograd.grad(dy, x)\n")
    doc = as_json(invoke("grad", "-e", program, "--json"))
    assert doc["output"]["name"] == "dy" and doc["grads"]["x"] == 12.0  # d(3x^2)/dx at 2
    # --of still picks any value
    assert as_json(invoke("eval", "-e", program, "--of", "d2y", "--json"))["output"] == "d2y"
