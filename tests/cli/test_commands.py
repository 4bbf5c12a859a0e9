"""The commands through Typer's CliRunner: options, JSON (parsed), stderr, exit codes."""
import json

import pytest
from typer.testing import CliRunner

from gradcli.cli.app import app

XXY = "x = 2.0\ny = 3.0\nz = x * x * y\n"


def invoke(*args, input=None):
    return CliRunner().invoke(app, list(args), input=input, catch_exceptions=False)


def as_json(result):
    return json.loads(result.stdout)


# -- eval ------------------------------------------------------------------------

def test_eval_json_values_and_output():
    doc = as_json(invoke("eval", "-e", XXY, "--json"))
    assert doc == {"output": "z", "values": {"x": 2.0, "y": 3.0, "z": 12.0}}


def test_eval_human_table_shows_pytorch_style_tensors():
    result = invoke("eval", "-e", XXY)
    assert result.exit_code == 0
    assert "tensor(12.)" in result.stdout and "MulBackward0" in result.stdout


def test_final_bare_expression_is_the_output():
    doc = as_json(invoke("eval", "-e", "x = 3.0; x ** 2", "--json"))
    assert doc["values"]["x"] == 3.0
    assert doc["output"] == "x ** 2"


def test_program_from_stdin():
    doc = as_json(invoke("backward", "-", "--json", input=XXY))
    assert doc["grads"] == {"x": 12.0, "y": 4.0}


def test_file_argument(tmp_path):
    f = tmp_path / "f.txt"
    f.write_text(XXY)
    doc = as_json(invoke("backward", str(f), "--json"))
    assert doc["output"] == {"name": "z", "value": 12.0}


# -- backward --------------------------------------------------------------------

def test_backward_set_overrides_inputs():
    doc = as_json(invoke("backward", "-e", XXY, "--set", "x=5", "--set", "y=-1", "--json"))
    assert doc["grads"] == {"x": -10.0, "y": 25.0}


def test_backward_set_unknown_input_is_a_usage_error():
    result = invoke("backward", "-e", XXY, "--set", "q=1")
    assert result.exit_code == 2
    assert "q" in result.stderr


def test_backward_gradient_ones_and_value():
    prog = "x = [2., 3.]\ny = x * x\n"
    assert as_json(invoke("backward", "-e", prog, "--gradient", "ones", "--json"))["grads"]["x"] == [4.0, 6.0]
    got = as_json(invoke("backward", "-e", prog, "--gradient", "[0.4, 0.6]", "--json"))["grads"]["x"]
    assert got == pytest.approx([1.6, 3.6])


def test_backward_non_scalar_without_gradient_is_pytorchs_error():
    result = invoke("backward", "-e", "x = [2., 3.]\ny = x * x\n")
    assert result.exit_code == 4
    assert "grad can be implicitly created only for scalar outputs" in result.stderr
    assert "Traceback" not in result.stderr


def test_backward_json_error_on_stdout():
    result = invoke("backward", "-e", "x = [2., 3.]\ny = x * x\n", "--json")
    doc = as_json(result)
    assert doc["error"]["code"] == 4
    assert "scalar outputs" in doc["error"]["message"]


def test_backward_inputs_limits_accumulation():
    doc = as_json(invoke("backward", "-e", XXY, "--inputs", "x", "--json"))
    assert doc["grads"]["x"] == 12.0 and doc["grads"]["y"] is None


def test_backward_explains_none_gradients():
    prog = "a = torch.tensor(2.0, requires_grad=True)\nb = torch.tensor(3.0)\nc = a * b\nd = 1.0\ne = c * 2\n"
    doc = as_json(invoke("backward", "-e", prog, "--json"))
    assert doc["grads"]["a"] == 6.0 and doc["grads"]["d"] is None
    why = doc["why_none"]
    assert "does not require grad" in why["b"]
    assert "retain_grad" in why["c"]
    assert "no path" in why["d"]
    human = invoke("backward", "-e", prog).stdout
    assert "no path" in human and "retain_grad" in human


def test_backward_steps_lists_every_node():
    doc = as_json(invoke("backward", "-e", XXY, "--steps", "--json"))
    names = [s["node"] for s in doc["steps"]]
    assert names[0] == "MulBackward0" and names.count("AccumulateGrad") == 2
    first = doc["steps"][0]
    assert first["grad_in"] == 1.0
    assert [e["grad"] for e in first["edges"]] == [3.0, 4.0]
    assert "MulBackward0" in invoke("backward", "-e", XXY, "--steps").stdout


VIEW_IN_PLACE = "x = [1., 2., 3.]\ny = x * 1\ny[1:].mul_(x[:2])\nz = (y * y).sum()\n"


def test_backward_through_an_in_place_op_on_a_view():
    """y[1:] *= x[:2] changes y's gradient too: y = [x0, x1 x0, x2 x1] (PyTorch: 10, 40, 24)."""
    doc = as_json(invoke("backward", "-e", VIEW_IN_PLACE, "--json"))
    assert doc["output"]["value"] == 41.0
    assert doc["grads"]["x"] == [10.0, 40.0, 24.0]


def test_graph_shows_copy_slices_for_an_in_place_op_on_a_view():
    doc = as_json(invoke("graph", "-e", VIEW_IN_PLACE, "--json"))
    names = json.dumps(doc)
    assert "CopySlices" in names and "SliceBackward0" in names


def test_backward_retain_and_create_graph_options_run():
    assert invoke("backward", "-e", XXY, "--retain-graph", "--json").exit_code == 0
    doc = as_json(invoke("backward", "-e", XXY, "--create-graph", "--json"))
    assert doc["grads"]["x"] == 12.0


# -- grad --------------------------------------------------------------------------

def test_grad_first_order():
    doc = as_json(invoke("grad", "-e", XXY, "--wrt", "x,y", "--json"))
    assert doc["order"] == 1 and doc["wrt"] == ["x", "y"]
    assert doc["grads"] == {"x": 12.0, "y": 4.0}


def test_grad_orders_two_and_three():
    doc = as_json(invoke("grad", "-e", XXY, "--wrt", "x,y", "--order", "2", "--json"))
    assert doc["grads"] == {"x": {"x": 6.0, "y": 4.0}, "y": {"x": 4.0, "y": 0.0}}
    doc = as_json(invoke("grad", "-e", XXY, "--wrt", "x", "--order", "3", "--json"))
    assert doc["grads"] == {"x": {"x": {"x": 0.0}}}


def test_grad_order_two_of_vector_input_has_product_shape():
    doc = as_json(invoke("grad", "-e", "x = [1., 2.]\nz = (x * x * x).sum()\n", "--wrt", "x", "--order", "2", "--json"))
    assert doc["grads"]["x"]["x"] == [[6.0, 0.0], [0.0, 12.0]]


def test_grad_wrt_defaults_to_every_input():
    # issue 15: --wrt is optional in grad, jacobian and hessian (it was required)
    assert as_json(invoke("grad", "-e", XXY, "--json"))["wrt"] == ["x", "y"]
    assert set(as_json(invoke("jacobian", "-e", XXY, "--json"))["jacobian"]) == {"x", "y"}
    assert set(as_json(invoke("hessian", "-e", XXY, "--json"))["hessian"]) == {"x", "y"}


def test_grad_unused_input_needs_allow_unused():
    prog = "x = 2.0\ny = 3.0\nz = x * 2\n"
    result = invoke("grad", "-e", prog, "--wrt", "x,y")
    assert result.exit_code == 4
    assert "appears to not have been used in the graph" in result.stderr
    doc = as_json(invoke("grad", "-e", prog, "--wrt", "x,y", "--allow-unused", "--json"))
    assert doc["grads"] == {"x": 2.0, "y": None}


def test_grad_wrt_makes_a_plain_leaf_require_grad():
    prog = "x = torch.tensor(3.)\nw = torch.tensor(2., requires_grad=True)\ny = x * w\n"
    assert as_json(invoke("grad", "-e", prog, "--wrt", "x", "--json"))["grads"]["x"] == 2.0


def test_grad_grad_outputs_and_intermediates():
    prog = "a = [1., 2.]\nb = [1., 2.]\nc = 2 * a + 3 * b + 1\nd = 2 * c + 1\n"
    doc = as_json(invoke("grad", "-e", prog, "--wrt", "a,c", "--grad-outputs", "ones", "--json"))
    assert doc["grads"] == {"a": [4.0, 4.0], "c": [2.0, 2.0]}


def test_grad_unknown_wrt_suggests_a_name():
    result = invoke("grad", "-e", XXY, "--wrt", "xx")
    assert result.exit_code == 2
    assert "did you mean 'x'" in result.stderr


def test_grad_of_picks_another_output():
    doc = as_json(invoke("grad", "-e", "x = 2.0\nu = x * 3\nv = u * u\n", "--of", "u", "--wrt", "x", "--json"))
    assert doc["output"]["name"] == "u" and doc["grads"]["x"] == 3.0


def test_grad_human_output():
    out = invoke("grad", "-e", XXY, "--wrt", "x,y", "--order", "2").stdout
    # issue 15: order-2 labels in partial-derivative notation (was "d²z/dx dy")
    assert "∂²z/∂x∂y" in out and "∂²z/∂x²" in out
    one = invoke("grad", "-e", XXY, "--wrt", "x", "--order", "2").stdout
    assert "d²z/dx²" in one


# -- jacobian, hessian -------------------------------------------------------------------

def test_jacobian_shape_is_output_then_input():
    doc = as_json(invoke("jacobian", "-e", "x = [2., 3.]\ny = x * x\n", "--wrt", "x", "--json"))
    assert doc["jacobian"]["x"] == [[4.0, 0.0], [0.0, 6.0]]


def test_jacobian_unused_input_gets_zeros():
    doc = as_json(invoke("jacobian", "-e", "x = [2., 3.]\nw = 1.0\ny = x * x\n", "--wrt", "x,w", "--json"))
    assert doc["jacobian"]["w"] == [0.0, 0.0]


def test_hessian_all_second_partials():
    doc = as_json(invoke("hessian", "-e", XXY, "--wrt", "x,y", "--json"))
    assert doc["hessian"] == {"x": {"x": 6.0, "y": 4.0}, "y": {"x": 4.0, "y": 0.0}}
    assert "6." in invoke("hessian", "-e", XXY, "--wrt", "x,y").stdout


# -- --points -----------------------------------------------------------------------------

def test_points_one_compact_json_line_per_point_and_errors_go_on():
    points = '{"x": 1}\n{"x": "bad"}\n{"x": 3, "y": 1}\n'
    result = invoke("grad", "-e", XXY, "--wrt", "x", "--points", "-", input=points)
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    first, bad, third = map(json.loads, lines)
    assert first["point"] == {"x": 1} and first["grads"]["x"] == 6.0
    assert "error" in bad and bad["error"]["code"] == 2
    assert third["grads"]["x"] == 6.0
    assert " " not in lines[0]


def test_points_from_a_file(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text('{"x": 2}\n{"x": 4}\n')
    lines = invoke("eval", "-e", XXY, "--points", str(f)).stdout.splitlines()
    assert [json.loads(l)["values"]["z"] for l in lines] == [12.0, 48.0]


# -- errors ----------------------------------------------------------------------------------

def test_program_error_has_location_caret_and_hint():
    result = invoke("eval", "-e", "x = 2.0\ny = sine(x)\n")
    assert result.exit_code == 3
    lines = result.stderr.splitlines()
    assert lines[0].startswith("<expr>:2:5: error:")
    assert lines[1] == "  y = sine(x)"
    assert lines[2] == "      ^^^^"
    assert "did you mean 'sin'" in result.stderr


def test_syntax_error_exit_3_with_location():
    result = invoke("eval", "-e", "x = (2.0 +\n")
    assert result.exit_code == 3
    assert result.stderr.startswith("<expr>:")
    assert "^" in result.stderr


def test_shape_error_exit_3():
    result = invoke("eval", "-e", "x = [1., 2.]\ny = [1., 2., 3.]\nz = x + y\n")
    assert result.exit_code == 3
    assert "must match the size of tensor b" in result.stderr
    lines = result.stderr.splitlines()
    assert lines[0].startswith("<expr>:3:7: error:")
    assert lines[1:3] == ["  z = x + y", "        ^"]


def test_gradcheck_failure_is_exit_1():
    prog = ("class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
            "        ctx.save_for_backward(x)\n        return x * x\n    @staticmethod\n"
            "    def backward(ctx, g):\n        (x,) = ctx.saved_tensors\n        return g * x\n"
            "x = [1.0, 2.0]\ny = F.apply(x).sum()\n")
    result = invoke("gradcheck", "-e", prog, "--no-sympy", "--json")
    assert result.exit_code == 1
    assert any(c["input"] == "x" and not c["ok"] for c in json.loads(result.stdout)["checks"])


def test_autograd_error_exit_4_with_location():
    result = invoke("run", "-e", "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\ny.backward()\ny.backward()\n")
    assert result.exit_code == 4
    lines = result.stderr.splitlines()
    assert lines[0].startswith("<expr>:4:3: error: Trying to backward through the graph a second time")
    assert lines[1:3] == ["  y.backward()", "    ^^^^^^^^"]


def test_missing_file_is_exit_2(tmp_path):
    result = invoke("eval", str(tmp_path / "nope.txt"))
    assert result.exit_code == 2
    assert "cannot read" in result.stderr


def test_directory_and_binary_file_are_exit_2(tmp_path):
    assert invoke("eval", str(tmp_path)).exit_code == 2
    f = tmp_path / "bin"
    f.write_bytes(b"x = 1\0\0")
    assert invoke("eval", str(f)).exit_code == 2
    g = tmp_path / "latin"
    g.write_bytes(b"x = 1 # \xff\n")
    assert invoke("eval", str(g)).exit_code == 2


def test_unknown_option_is_exit_2():
    assert invoke("eval", "--bogus").exit_code == 2


def test_element_limit_names_the_option():
    result = invoke("eval", "-e", "x = zeros(1000, 1000)\n", "--max-elements", "1000")
    assert result.exit_code == 3
    assert "--max-elements" in result.stderr


def test_step_limit_names_the_option():
    result = invoke("run", "-e", "while True:\n    pass\n", "--max-steps", "1000")
    assert result.exit_code == 3
    assert "--max-steps" in result.stderr


# -- run, ops -----------------------------------------------------------------------------------

def test_run_prints_to_stdout_as_pytorch():
    result = invoke("run", "-e", "x = torch.tensor([3., 4.], requires_grad=True)\nprint(x)\nprint(x * 2)\n")
    assert result.stdout.splitlines() == ["tensor([3., 4.], requires_grad=True)",
                                          "tensor([6., 8.], grad_fn=<MulBackward0>)"]


def test_run_json_collects_printed_values_and_grads():
    doc = as_json(invoke("run", "-e", "x = torch.tensor(2., requires_grad=True)\ny = x * x\ny.backward()\nprint(x.grad)\n", "--json"))
    assert doc["printed"] == ["tensor(4.)"]
    assert doc["values"]["y"] == 4.0 and doc["grads"]["x"] == 4.0


def test_other_commands_send_program_prints_to_stderr():
    result = invoke("eval", "-e", "x = 2.0\nprint(x)\n", "--json")
    assert json.loads(result.stdout)["values"]["x"] == 2.0
    assert "tensor(2., requires_grad=True)" in result.stderr


def test_ops_lists_every_op_with_its_formula():
    doc = as_json(invoke("ops", "--json"))
    by_name = {op["name"]: op for op in doc["ops"]}
    assert by_name["mul"]["node"] == "MulBackward0"
    assert by_name["sin"]["formulas"]["self"] == "grad * cos(self)"
    assert "SinBackward0" in invoke("ops").stdout


def test_every_command_has_help_with_an_example():
    for command in ("eval", "backward", "grad", "jacobian", "hessian", "gradcheck", "graph", "run", "ops"):
        result = invoke(command, "--help")
        assert result.exit_code == 0, command
        assert "Example" in result.stdout, command


ANOMALY = "x = [0.0, 1.0]\ny = sqrt(x)\nz = (y * 0.0).sum()\n"


def test_detect_anomaly_points_at_the_forward_op():
    result = invoke("backward", "-e", ANOMALY, "--detect-anomaly")
    assert result.exit_code == 4
    lines = result.stderr.splitlines()
    assert lines[0] == "<expr>:2:5: error: Function 'SqrtBackward0' returned nan values in its 0th output."
    assert lines[1:3] == ["  y = sqrt(x)", "      ^^^^"]
    assert invoke("backward", "-e", ANOMALY, "--json").exit_code == 0


def test_detect_anomaly_in_run_keeps_what_was_printed():
    prog = "print('before')\nx = torch.tensor([0.0], requires_grad=True)\ny = torch.sqrt(x).sum() * 0.0\ny.backward()\n"
    result = invoke("run", "-e", prog, "--detect-anomaly")
    assert result.exit_code == 4 and result.stdout == "before\n"
    assert "<expr>:3:11:" in result.stderr


def test_run_accepts_inference_mode():
    result = invoke("run", "-e", "x = torch.ones(2, requires_grad=True)\nwith torch.inference_mode():\n"
                                 "    y = x * 2\nprint(y.requires_grad, (x * 2).requires_grad)\n")
    assert result.exit_code == 0 and result.stdout == "False True\n"


def test_run_imports_torch_linalg():
    result = invoke("run", "-e", "import torch.linalg as LA\nx = torch.tensor([[2., 1.], [1., 3.]])\n"
                                 "print(LA.det(x), torch.linalg.inv(x)[0])\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "tensor(5.) tensor([ 0.6000, -0.2000])\n"
