"""Regression tests: each bug the hardening work and the fuzzer found, as it was found.

The docstring of each test says what used to happen. (Limits found too slow or too
greedy are in `test_hardening_limits.py`: a 10^7-digit literal took 2.4 GB in the
lexer's regular expression, a string of 5 x 10^6 escapes 2.5 GB, a 10^4-statement loop
body ran 10^4 times more statements than --max-steps allowed iterations, a 100 MB file
was read 50 MB deep before it was refused.)
"""
from __future__ import annotations

import io
import sys

import pytest

from hardening_helpers import invoke, strict_json

from gradcli.cli.app import run_app


def test_points_line_with_an_out_of_range_number():
    """`{"x": 1e400}` on a --points line: the point echoed back was not strict JSON (exit 70)."""
    result = invoke("grad", "-e", "x = 1.0\ny = x * x", "--wrt", "x", "--points", "-",
                    input='{"x": 1e400}\n')
    assert result.exit_code == 0
    assert strict_json(result.stdout)["point"] == {"x": "Infinity"}


def test_points_line_that_is_not_utf8():
    """A --points line of bytes that are not UTF-8 was a UnicodeDecodeError (exit 70) that
    ended the stream."""
    result = invoke("grad", "-e", "x = 1.0\ny = x * x", "--wrt", "x", "--points", "-",
                    input=b'\xff\n{"x": 2.0}\n')
    docs = [strict_json(line) for line in result.stdout.splitlines()]
    assert docs[0]["error"]["message"] == "--points line 1: not UTF-8 text (byte 0)"
    assert docs[1]["grads"]["x"] == 4.0


def test_points_line_nested_too_deeply():
    """A --points line of 5000 nested lists raised RecursionError, which ended the whole run
    with "the program nests too deeply"."""
    result = invoke("grad", "-e", "x = 1.0\ny = x * x", "--wrt", "x", "--points", "-",
                    input='{"x": ' + "[" * 5000 + "]" * 5000 + '}\n{"x": 2.0}\n')
    docs = [strict_json(line) for line in result.stdout.splitlines()]
    assert docs[0]["error"]["code"] == 2 and docs[1]["grads"]["x"] == 4.0


def test_set_value_nested_too_deeply():
    """`--set x=[[[...]]]` 5000 deep was reported as "the program nests too deeply to run"."""
    result = invoke("eval", "-e", "x = 1.0", "--set", "x=" + "[" * 5000 + "]" * 5000)
    assert result.exit_code == 2
    assert "--set x: the value is nested too deeply" in result.stderr


def test_list_nested_in_a_loop_is_linear():
    """`a = [a]` 10^5 times in expression mode walked the whole nesting at each step to see
    whether the literal was a tensor: quadratic, over 20 s. A value nests at most 1000 deep
    (issue 19): refused when built, at the 1001st level."""
    result = invoke("eval", "-e", "a = []\nfor i in range(100000):\n    a = [a]\nx = 2.0\ny = x * x",
                    "--json")
    assert result.exit_code == 3 and "nested more than 1000 levels" in result.stderr


@pytest.mark.parametrize("source", [
    "a = [print]\na.append(a)\nx = 2.0\ny = x * x",
    "a = [print]\nfor i in range(500):\n    a = [a, print]\nx = 2.0\ny = x * x",
])
def test_values_that_cannot_be_shown_are_left_out(source):
    """A list holding itself, or nested 5000 deep, made `eval` fail with exit 3 "the
    program nests too deeply to run" while rendering the values, though the program ran."""
    for extra in ([], ["--json"]):
        result = invoke("eval", "-e", source, *extra)
        assert result.exit_code == 0, result.stderr
    doc = strict_json(result.stdout)
    assert "a" not in doc["values"] and doc["values"]["y"] == 4.0


def test_negative_number_to_a_fractional_power_is_nan():
    """`(-8.0) ** 0.5` made a Python complex: alone an odd error ("invalid data type
    'complex'"), inside an expression a silently wrong real value and a ComplexWarning."""
    result = invoke("eval", "-e", "x = 2.0\ny = x * (-8.0) ** 0.5\nz = (-8.0) ** 0.5", "--json")
    assert result.exit_code == 0, result.stderr
    values = strict_json(result.stdout)["values"]
    assert values["y"] == "NaN" and values["z"] == "NaN"
    assert "Warning" not in result.stderr


@pytest.mark.parametrize("source, value", [
    ("y = x * 9 ** 9 ** 9", "Infinity"),
    ("y = x * (-9) ** 9 ** 9", "-Infinity"),
    ("y = x * 10.0 ** 400", "Infinity"),
    ("y = x * 2 ** 63", 2.0 ** 63),
    ("y = x * 2 ** -1", 0.5),
])
def test_number_powers_are_float64(source, value):
    """Number `**` overflowing float64 was an error worded `(34, 'Numerical result out of
    range')`; it is float64's infinity, as `1e308 * 10` already was."""
    result = invoke("eval", "-e", "x = 1.0\n" + source, "--json")
    assert result.exit_code == 0, result.stderr
    assert strict_json(result.stdout)["values"]["y"] == value


def test_builtin_messages_do_not_show_python_internals():
    """`sum([1, 2], dim=0)` said `make_builtins.<locals>._sum() got an unexpected keyword
    argument 'dim'`; `1.0 + print` named the type 'Builtin'."""
    result = invoke("run", "-e", "y = sum([1, 2], dim=0)\n")
    assert "<expr>:1:5: error: sum() got an unexpected keyword argument 'dim'" in result.stderr
    result = invoke("run", "-e", "y = [1] * print\n")
    assert "non-int of type 'builtin_function_or_method'" in result.stderr


class ClosedPipe(io.StringIO):
    """A standard output whose reader has gone (`gradcli ... | head -1`)."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self):
        raise io.UnsupportedOperation("fileno")


@pytest.mark.parametrize("argv", [
    ["run", "-e", "print(1)"],                        # print: click turned it into exit 1
    ["eval", "-e", "x = 2.0"],                        # a Rich table: Rich exited 1 itself
    ["eval", "-e", "x = 2.0", "--json"],
    ["ops"],
])
def test_broken_pipe_exits_0_quietly(argv, monkeypatch, capsys):
    """With standard output closed, `run` and the commands printing Rich tables exited 1
    ("a check failed") instead of 0, as the other commands did."""
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert run_app(argv) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_f_string_fields_count_against_the_token_budget(monkeypatch):
    """3 x 10^6 f-string fields took 39 s and 1.8 GB: each field is lexed and parsed on its
    own, outside the program's tokens. (The budget is lowered to keep the test quick.)"""
    from gradcli.errors import LimitError
    from gradcli.lang import compile_program, lexer, parser

    monkeypatch.setattr(lexer, "MAX_TOKENS", 1000)
    monkeypatch.setattr(parser, "MAX_TOKENS", 1000)
    compile_program('x = 1.0\ns = f"' + "{x}" * 300 + '"')
    with pytest.raises(LimitError, match="more than 1000 tokens") as info:
        compile_program('x = 1.0\ns = f"' + "{x}" * 600 + '"')
    assert info.value.span.line == 2
    with pytest.raises(LimitError, match="more than 1000 tokens"):
        compile_program('x = 1.0\ns = f"' + "{x:{x}}" * 300 + '"')


@pytest.mark.parametrize("hook, message", [
    ("lambda g: print", "expected Tensor or None (got builtin_function_or_method)"),
    ("lambda g: 3.0", "expected Tensor or None (got float)"),
    ("lambda g: g.sum()", "hook '<lambda>' has changed the size of value"),
])
def test_hook_returning_something_else_than_a_gradient(hook, message):
    """A hook returning a function (a fuzzed seed: `lambda g: sum_to_size`) made the engine
    call float() on it: exit 70. PyTorch checks what a hook returns."""
    source = f"x = tensor([1., 2.], requires_grad=True)\nh = x.register_hook({hook})\ny = (x * x).sum()\n"
    result = invoke("backward", "-e", source)
    assert result.exit_code == 3 and message in result.stderr, result.stderr


@pytest.mark.parametrize("call", ["unbind(a)", "split(a, 1)", "chunk(a, 2)", "narrow(a, 0, 0, 1)",
                                  "rand_like(a)", "randn_like(a)"])
def test_python_list_where_a_tensor_is_required(call):
    """`unbind([[1., 2.]])` and the like read `.shape` of the list: AttributeError, exit 70
    (found by the fuzzer in script mode, where a list literal stays a list). It is PyTorch's
    TypeError now, raised at the language's boundary; the functions themselves are in
    gradcli/ops/shape.py and factories.py."""
    result = invoke("run", "-e", f"a = [[1.0, 2.0]]\nb = {call}\n")
    assert result.exit_code == 3, result.stderr
    expected = ("argument 'input' (position 1) must be Tensor, not list" if "like" in call
                else "argument 1 must be Tensor, not list")
    assert expected in result.stderr


def test_gradient_of_the_zero_norm_is_zero():
    """Found by the generator: `norm(x, p=0)` has a graph edge to x but its rule gives None,
    so `grad --wrt x` says x was not used (exit 4); PyTorch gives zeros."""
    result = invoke("grad", "-e", "x = [0.5, -1.5]\ny = torch.norm(x, p=0.0)", "--wrt", "x", "--json")
    assert result.exit_code == 0 and strict_json(result.stdout)["grads"]["x"] == [0.0, 0.0]


def test_range_as_an_operand_of_a_tensor_op():
    """`range(10 ** 12) * t` (a mutant in the 30-minute fuzz run) made numpy build an array of
    10^12 numbers: MemoryError, exit 70. An op now refuses a value that is neither a tensor
    nor a number, with PyTorch's TypeError (gradcli/ops, by its owner)."""
    result = invoke("run", "-e", "t = tensor(2., requires_grad=True)\ny = range(10 ** 12) * t.sigmoid()\n")
    assert result.exit_code == 3, result.stderr
    assert "must be Tensor, not range" in result.stderr


@pytest.mark.parametrize("order", ["1", "2"])
def test_gradcheck_of_an_empty_input(order):
    """`--set x=[[]]` (a mutant in the 30-minute fuzz run, seed 20261121) made the SymPy
    reference reshape an empty Jacobian with -1: ValueError, exit 70. An empty input has
    nothing to check, and passes, as in PyTorch's gradcheck."""
    result = invoke("gradcheck", "-e", "x = -1.2\ny = 1.0\nf = (1 - x) ** 2 + 100 * (y - x ** 2) ** 2",
                    "--set", "x=[[]]", "--order", order, "--json")
    assert result.exit_code == 0, result.stderr
    checks = strict_json(result.stdout)["checks"]
    assert {c["input"] for c in checks} == {"x", "y"} and all(c["ok"] for c in checks)


CUSTOM = """class Func(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2, {second}
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([3., 4.], requires_grad=True)
z = Func.apply(x, y)
"""


@pytest.mark.parametrize("second, kind", [("argmax", "builtin_function_or_method"), ("2", "int"),
                                          ("grad_output.tolist()", "list"), ("(grad_output,)", "tuple")])
@pytest.mark.parametrize("command", [["gradcheck", "--no-sympy"], ["run"]])
def test_custom_backward_returning_a_non_tensor(second, kind, command):
    """A backward returning the function `argmax` (a mutant in the 30-minute fuzz run, seed
    20261121) reached numpy: TypeError, exit 70. It is PyTorch's error, at the apply call
    for gradcheck (whose backward runs outside the program)."""
    program = CUSTOM.format(second=second) + ("z.sum().backward()\n" if command == ["run"] else "")
    result = invoke(*command, "-e", program)
    assert result.exit_code == 4, result.stderr
    if second == "2" and command[0] != "run":
        kind = "float"   # in the expression commands a literal is of the default float dtype (SPEC 2.1)
    assert f"error: expected Variable or None (got {kind})" in result.stderr
    if command[0] == "gradcheck":
        assert "<expr>:10:" in result.stderr and "Func.backward returns one Tensor" in result.stderr


def test_gradcheck_of_a_big_input_answers_in_fast_mode():
    """gradcheck of `arange(1e6)` (a mutant in the 30-minute fuzz run, seed 20261122) ran
    2 x 10^6 evaluations of the program: no answer in 20 s. Past an estimate of 10 s a check
    is made in fast mode (v^T J u), and says so."""
    result = invoke("gradcheck", "-e", "x = torch.linspace(0, 1, 100000, requires_grad=True)\n"
                                       "r = (x * x).sum()\n", "--no-sympy", "--json")
    assert result.exit_code == 0, result.stderr
    (check,) = strict_json(result.stdout)["checks"]
    assert check["ok"] and check["fast"] and check["worst_index"] == []   # a projection has no element
    assert "200000 times" in check["note"] and "checked in fast mode" in check["note"]


def test_assigning_a_non_tensor_to_grad():
    """`b.grad = expand` (a mutant in the 30-minute fuzz run, seed 20261123) stored a function
    as a gradient: exit 70 in `graph` later. It is PyTorch's TypeError at the assignment."""
    result = invoke("run", "-e", "b = torch.tensor([0.0, 1.0], requires_grad=True)\nb.grad = expand\n")
    assert result.exit_code == 3
    assert ("2:3: error: assigned grad expected to be a Tensor or None but got grad of type "
            "builtin_function_or_method") in result.stderr


def test_assigning_a_grad_of_another_shape():
    result = invoke("run", "-e", "b = torch.tensor([0.0, 1.0], requires_grad=True)\nb.grad = torch.ones(3)\n")
    assert result.exit_code == 3
    assert ("error: attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure "
            "that the gradient and the tensor are the same size") in result.stderr


@pytest.mark.parametrize("value, kind", [("expand", "builtin_function_or_method"), ("[1, 2]", "list"),
                                         ("None", "NoneType"), ("3", "int")])
def test_assigning_a_non_tensor_to_data(value, kind):
    """`x.data = None` made a tensor of nan (numpy's float of None); PyTorch refuses it."""
    result = invoke("run", "-e", f"b = torch.tensor([0.0, 1.0], requires_grad=True)\nb.data = {value}\n")
    assert result.exit_code == 3
    assert f"error: Variable data has to be a tensor, but got {kind}" in result.stderr


@pytest.mark.parametrize("value", ["expand", "1", "None"])
def test_assigning_a_non_bool_to_requires_grad(value):
    result = invoke("run", "-e", f"b = torch.tensor([0.0, 1.0])\nb.requires_grad = {value}\n")
    assert result.exit_code == 3 and "2:3: error: requires_grad must be a bool" in result.stderr


def test_requires_grad_of_a_non_leaf_cannot_be_turned_off():
    result = invoke("run", "-e", "a = torch.tensor([0.0, 1.0], requires_grad=True)\nb = a * 2\n"
                                 "b.requires_grad = False\n")
    assert result.exit_code == 4
    assert "error: you can only change requires_grad flags of leaf variables." in result.stderr


NO_BACKWARD = """class Func(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
x = torch.tensor([1., 2.], requires_grad=True)
z = Func.apply(x).sum()
"""


@pytest.mark.parametrize("command", [["backward"], ["jacobian", "--wrt", "x"], ["gradcheck"],
                                     ["run"]])
def test_custom_function_without_backward(command):
    """A Function whose backward was cut off by a mutant (the final 30-minute fuzz run, seed
    20261124) raised Python's NotImplementedError: exit 70. It is PyTorch's message, exit 4."""
    program = NO_BACKWARD + ("z.backward()\n" if command == ["run"] else "")
    result = invoke(*command, "-e", program)
    assert result.exit_code == 4, result.stderr
    assert ("error: You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD.") in result.stderr


def test_custom_function_without_forward():
    result = invoke("run", "-e", "class Func(torch.autograd.Function):\n    pass\n"
                                 "y = Func.apply(torch.ones(2))\n")
    assert result.exit_code == 3
    assert "3:10: error: You must implement the forward function for custom autograd.Function." in result.stderr


@pytest.mark.parametrize("api, function, message", [
    ("hessian", "lambda t: t * 2",
     "The Tensor returned by the function given to hessian should contain a single element"),
    ("hessian", "lambda t: (t.sum(), t.sum())", "The function given to hessian should return a single Tensor"),
    ("jacobian", "lambda t: 3.0", "The outputs of the user-provided function given to jacobian must be either "
     "a Tensor or a tuple of Tensors but the given outputs of the user-provided function has type "
     "<class 'float'>."),
    ("hessian", "lambda t: [t]", "The outputs of the user-provided function given to hessian must be either "
     "a Tensor or a tuple of Tensors but the given outputs of the user-provided function has type "
     "<class 'list'>."),
])
def test_functional_api_checks_what_the_function_returns(api, function, message):
    """Found beside the fuzz run's NotImplementedError: hessian of a non-scalar raised Python's
    RuntimeError (exit 70), a non-tensor result an AttributeError. PyTorch's messages now."""
    result = invoke("run", "-e", f"x = torch.ones(2, requires_grad=True)\n"
                                 f"print(torch.autograd.functional.{api}({function}, x))\n")
    assert result.exit_code in (3, 4), result.stderr
    assert f"error: {message}" in result.stderr


def test_functional_api_checks_its_inputs():
    result = invoke("run", "-e", "print(torch.autograd.functional.jacobian(lambda t: t, 3.0))\n")
    assert result.exit_code == 3
    assert ("The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the given "
            "inputs has type <class 'float'>.") in result.stderr


@pytest.mark.parametrize("factory", ["ones_like", "zeros_like", "empty_like", "rand_like", "randn_like"])
def test_a_like_factory_of_a_non_tensor(factory):
    """`@ones_like` as a decorator of a Function's backward (the final fuzz run, seed 20261125)
    made a tensor of a function, and calling it gave exit 70. PyTorch's TypeError now."""
    result = invoke("run", "-e", f"def f(t):\n    return t\nprint({factory}(f))\n")
    assert result.exit_code == 3
    assert f"error: {factory}(): argument 'input' (position 1) must be Tensor, not function" in result.stderr


def test_a_function_whose_backward_is_not_callable():
    """`@print` returns None: the backward is None, and calling it is Python's TypeError."""
    program = ("class Func(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
               "        return x * 2\n    @print\n    def backward(ctx, g):\n        return g\n"
               "x = torch.tensor([1., 2.], requires_grad=True)\nFunc.apply(x).sum().backward()\n")
    result = invoke("run", "-e", program)
    assert result.exit_code == 3, result.stderr
    assert "9:21: error: 'NoneType' object is not callable" in result.stderr


def test_a_program_closure_called_back_after_its_run_keeps_the_runs_limits():
    """Found by the 30-minute fuzz: a library caller's backward, after the run, ran a custom
    Function's backward with no budget in force, and `0.5 in range(10**15)` (a scan in C
    that no timer interrupts) never returned. The closure now runs under its run's limits."""
    from gradcli.errors import LimitError
    from gradcli.lang import Limits, compile_program

    source = ("class Slow(torch.autograd.Function):\n"
              "    @staticmethod\n"
              "    def forward(ctx, x):\n"
              "        return x * 2\n"
              "    @staticmethod\n"
              "    def backward(ctx, g):\n"
              "        found = 0.5 in range(10 ** 15)\n"
              "        return g * 2\n"
              "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
              "out = Slow.apply(x).sum()\n")
    run = compile_program(source).run(limits=Limits(10**6, 20000))
    with pytest.raises(LimitError, match="steps"):
        run.output.backward()
