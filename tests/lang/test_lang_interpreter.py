"""The interpreter: each construct, both modes, inputs and overrides, outputs,
graph sources, errors (classes, messages, hints, positions) and the run API."""
from __future__ import annotations

import math

import pytest

import gradcli
from gradcli import _tensor as engine_tensor
from gradcli.errors import (AutogradError, ExitCode, GradcliError, LimitError, NameNotFound,
                            ParseError, ProgramError, ProgramTypeError, ProgramValueError, Span,
                            UsageError)
from gradcli.lang import Limits, compile_program
from gradcli.limits import budget
from lang_helpers import raises_at

Tensor = engine_tensor.Tensor


def run(source: str, **kwargs):
    return compile_program(source).run(**kwargs)


def printed(source: str, script: bool = True, **kwargs) -> list:
    lines = []
    compile_program(source).run(stdout=lines.append, script=script, **kwargs)
    return lines


def value(source: str, name: str | None = None, **kwargs):
    result = run(source, **kwargs)
    out = result.output if name is None else result.values[name]
    return out.tolist() if isinstance(out, Tensor) else out


# --- inputs, outputs, modes ---------------------------------------------------


def test_literal_assignments_are_input_leaves():
    result = run("x = 2.0\ny = 3.0\nz = x * x * y")
    x, y, z = (result.values[k] for k in "xyz")
    assert x.requires_grad and x.is_leaf and y.requires_grad
    assert z.item() == 12.0 and z.grad_fn.name() == "MulBackward0"
    assert (result.output_name, result.output) == ("z", z)


@pytest.mark.parametrize("expression", [
    "2.0 * x", "x * 2.0", "2.0 + x", "x + 2.0", "x - 1.0", "1.0 - x", "2.0 / x", "x / 2.0",
    "x * y", "x - y", "y / x", "x + 2.0 * x - 3.0 / x + y * 2.0", "1.0 - x * y - 2.0",
    "(x + 1.0) * (2.0 - y) / 4.0",
])
def test_arithmetic_of_tensors_and_numbers_is_the_tensor_operators(expression):
    # the interpreter calls a Tensor's operator itself (`2.0 + x` as `x.__add__(2.0)`, what
    # `__radd__` does): the same values, nodes and gradients as Python's own operators
    result = run(f"x = 0.75\ny = -1.5\nz = {expression}")
    z, x, y = result.output, result.values["x"], result.values["y"]
    z.backward()
    x0, y0 = gradcli.tensor(0.75, requires_grad=True), gradcli.tensor(-1.5, requires_grad=True)
    z0 = eval(expression, {}, {"x": x0, "y": y0})  # the test's own Python, not a program's
    z0.backward()
    assert z.item() == z0.item() and z.grad_fn.name() == z0.grad_fn.name()
    assert [None if node is None else node.name() for node, _ in z.grad_fn.next_functions] == \
        [None if node is None else node.name() for node, _ in z0.grad_fn.next_functions]
    for mine, theirs in ((x, x0), (y, y0)):
        assert (mine.grad is None) == (theirs.grad is None)
        assert mine.grad is None or mine.grad.item() == theirs.grad.item()


def test_input_names_in_order_and_kinds():
    # an expression (no torch import): its literal assignments are input leaves
    program = compile_program(
        "a = -2.5\nb = 2 * pi\nc = [[1, 2], [3, 4]]\nd = torch.tensor(3.)\n"
        "e = tensor([1., 2.], requires_grad=True)\nf = a * 2\ng = sin(1.0)\nh = []\n"
        "if True:\n    i = 1.0\na = 1.0\n")
    assert program.input_names == ["a", "b", "c", "d", "e"]
    values = program.run().values
    assert values["b"].item() == pytest.approx(2 * math.pi) and values["b"].requires_grad
    assert values["c"].tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert not values["d"].requires_grad and values["e"].requires_grad
    assert not isinstance(values["i"], Tensor)
    # the same lines importing torch: a PyTorch program, with Python's numbers (SPEC 2.1)
    pytorch = compile_program("import torch\na = -2.5\nb = 2 * pi\nn = 3\n")
    assert pytorch.kind == "pytorch" and program.kind == "expression"
    assert pytorch.run().values == {"a": -2.5, "b": pytest.approx(2 * math.pi), "n": 3}
    assert pytorch.run(overrides={"n": 5}).values["n"] == 5


def test_shadowed_constant_is_not_a_literal():
    assert compile_program("pi = 3\nx = 2 * pi\n").input_names == ["pi"]


def test_overrides_replace_literals():
    program = compile_program("x = 2.0\ny = 3.0\nz = x * x * y")
    assert program.run(overrides={"x": 5.0, "y": -1.0}).output.item() == -25.0
    vector = program.run(overrides={"x": [1.0, 2.0]}).output
    assert vector.tolist() == [3.0, 12.0]
    assert program.run().output.item() == 12.0  # no state leaks between runs


def test_override_of_tensor_call_keeps_its_keywords():
    program = compile_program("w = torch.tensor(2., requires_grad=True)\ny = w * 3\n")
    result = program.run(overrides={"w": 4.0})
    assert result.values["w"].item() == 4.0 and result.values["w"].requires_grad


def test_override_of_unknown_input_is_an_error_with_a_hint():
    program = compile_program("xx = 2.0\ny = xx * 2\n")
    with pytest.raises(UsageError, match="no input named 'x'") as info:
        program.run(overrides={"x": 1.0})
    assert info.value.hint == "did you mean 'xx'?"
    with pytest.raises(UsageError, match="no input named 'y'"):
        program.run(overrides={"y": 1.0})


def test_requires_grad_names_make_top_level_leaves_require_grad():
    program = compile_program("x = torch.tensor(3.)\ny = x ** 2\n")
    assert not program.run().values["x"].requires_grad
    result = program.run(requires_grad=["x"])
    assert result.values["x"].requires_grad and result.values["y"].grad_fn is not None


def test_output_is_the_final_bare_expression():
    result = run("x = 3.0\n(x ** 2)  # square\n")
    assert result.output_name == "(x ** 2)" and result.output.item() == 9.0
    assert "x ** 2" not in result.values


def test_output_falls_back_to_the_last_assigned_name():
    result = run("x = 3.0\ny = x * 2\nz = y + 1\ny.retain_grad()\n")
    assert result.output_name == "z"
    result = run("a, b = 1.0, 2.0\n", script=True)
    assert result.output_name == "b" and result.output == 2.0


def test_select_output():
    result = run("x = 3.0\ny = x * 2\n")
    assert result.select_output("x")[1].item() == 3.0
    with pytest.raises(UsageError, match="no value named 'yy'") as info:
        result.select_output("yy")
    assert info.value.hint == "did you mean 'y'?"


def test_values_hold_data_only():
    result = run("import torch\ndef f(t): return t\nx = 1.0\nn = 2\ns = 'a'\nt = (1, 2)\ng = lambda: 0\n",
                 script=True)
    assert list(result.values) == ["x", "n", "s", "t"]


def test_expression_mode_list_literals_are_tensors():
    result = run("x = 2.0\ny = x * [1., 2.]\nl = [x, x]\nm = [[1, 2]] \n")
    assert result.values["y"].tolist() == [2.0, 4.0]
    assert isinstance(result.values["l"], list)
    with pytest.raises(ProgramValueError, match="ragged"):
        run("x = 2.0\ny = x * [[1., 2.], [3.]]\n")


def test_script_mode_is_python():
    result = run("lr = 0.01\nn = 3\nl = [1., 2.]\nw = torch.tensor(l, requires_grad=True)\n",
                 script=True)
    assert result.values["lr"] == 0.01 and result.values["n"] == 3
    assert result.values["l"] == [1.0, 2.0] and result.values["w"].requires_grad


def test_for_over_a_list_literal_iterates_numbers_in_both_modes():
    source = "s = 0.0\nfor v in [0.25, 0.5]:\n    s = s + v\nprint(s)\n"
    assert printed(source, script=False)[-1] == "tensor(0.7500, grad_fn=<AddBackward0>)"
    assert printed(source, script=True) == ["0.75"]


def test_call_arguments_keep_lists():
    result = run("x = arange(6.)\ny = x.reshape([2, 3])\nz = stack([x, x])\n")
    assert list(result.values["y"].shape) == [2, 3] and list(result.values["z"].shape) == [2, 6]


# --- statements and expressions ----------------------------------------------


def test_printing_like_python():
    lines = printed("print(None, True, 0.1, 2, 'a', (1,), [1.5, 'b'], 1 / 3)\n"
                    "print('a', 'b', sep='-', end='')\nprint('c')\nprint()\n"
                    "print(tensor([1., 2.]), (tensor(1.),))\n")
    assert lines == ["None True 0.1 2 a (1,) [1.5, 'b'] 0.3333333333333333", "a-bc", "",
                     "tensor([1., 2.]) (tensor(1.),)"]


def test_partial_line_is_flushed_at_the_end():
    result = run("print('a', end='')\n", script=True)
    assert result.printed == ["a"]


def test_fstrings():
    lines = printed("w = tensor(1.23456)\nx = 3\nn = 2\n"
                    "print(f'w: {w:.3f}, x: {x!r}, {x:>{n}}|{{}}, {w.grad}')\n"
                    "print(f\"{'s'!r} {1/4:.1%}\")\n")
    assert lines == ["w: 1.235, x: 3,  3|{}, None", "'s' 25.0%"]


def test_fstring_width_is_bounded():
    """A limit, as every other: not a ValueError a program's `except` catches (issue 26)."""
    with pytest.raises(LimitError, match="too large"):
        run("s = f'{1:1000000000}'\n")


def test_arithmetic_on_numbers():
    assert printed("print(7 // 2, 7 % 3, 2 ** 10, 2 ** -1, -3 ** 2, 10 / 4, 1 < 2 <= 2, 3 > 2 > 5)") == [
        "3 1 1024 0.5 -9 2.5 True False"]


def test_huge_integers_become_floats():
    assert printed("print(10 ** 100)\nx = 2 ** 62\nprint(x * 4)\n") == ["1e+100", "1.8446744073709552e+19"]


def test_boolean_operators_return_operands():
    assert printed("print(0 or 'x', 1 and 2, not 0, None or [])") == ["x 2 True []"]


def test_comparisons_membership_identity():
    assert printed("l = [1, 2]\nprint(1 in l, 3 not in l, None is None, l is not l)") == [
        "True True True False"]


def test_control_flow():
    source = """
total = 0
for i in range(10):
    if i % 2 == 0:
        continue
    elif i == 7:
        break
    else:
        total += i
n = 0
while n < 100:
    n += 7
else:
    print('while else', n)
for k in []:
    pass
else:
    print('for else')
print(total)
"""
    assert printed(source) == ["while else 105", "for else", "9"]


def test_functions_closures_defaults_varargs():
    source = """
def make(scale, *, offset=1):
    def f(v, w=2):
        return v * scale * w + offset
    return f
g = make(3, offset=10)
print(g(1), g(1, w=1))
def total(*args):
    s = 0
    for a in args:
        s += a
    return s
print(total(1, 2, 3), total(*[4, 5]))
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)
print(fact(10))
h = lambda a, b=2: a ** b
print(h(3), h(2, b=3))
"""
    assert printed(source) == ["16 13", "6 9", "3628800", "9 8"]


def test_unbound_local_is_an_error():
    with pytest.raises(ProgramError, match="local variable 'x' referenced before assignment"):
        run("x = 1\ndef f():\n    y = x\n    x = 2\n    return y\nf()\n", script=True)


def test_tuple_unpacking():
    result = run("a = tensor([2., 3., 4.], requires_grad=True)\nb, c, d = a.unbind()\n"
                 "(p, q), r = (1, 2), 3\n", script=True)
    assert [result.values[k].item() for k in "bcd"] == [2.0, 3.0, 4.0]
    assert result.values["c"].grad_fn.name() == "UnbindBackward0"
    assert (result.values["p"], result.values["q"], result.values["r"]) == (1, 2, 3)


@pytest.mark.parametrize("source, message", [
    ("a, b = 1, 2, 3", "too many values to unpack \\(expected 2\\)"),
    ("a, b, c = 1, 2", "not enough values to unpack \\(expected 3, got 2\\)"),
    ("a, b = tensor([1., 2., 3.])", "too many values"),
    ("a, b = 1.0", "cannot unpack non-iterable float object"),
])
def test_unpacking_errors(source, message):
    with pytest.raises(ProgramError, match=message):
        run(source, script=True)


def test_attribute_and_subscript_targets():
    result = run("x = tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\ny.backward()\n"
                 "g = x.grad\nx.grad = None\nz = tensor([1., 2.])\nz[0] = 5.\nl = [1, 2]\nl[1] = 7\n"
                 "d = {'k': 1}\nd['k'] += 1\n", script=True)
    assert result.values["g"].tolist() == [2.0, 4.0] and result.values["x"].grad is None
    assert result.values["z"].tolist() == [5.0, 2.0]
    assert result.values["l"] == [1, 7] and result.values["d"] == {"k": 2}


def test_inplace_on_a_leaf_that_requires_grad_is_pytorchs_error():
    error = raises_at(AutogradError, 2, 3, run, "x = 2.0\nx += 1\n")
    assert "leaf Variable that requires grad" in error.message
    assert error.exit_code == ExitCode.AUTOGRAD


def test_no_grad_context_and_decorator():
    lines = printed("x = tensor([2., 3.], requires_grad=True)\nwith torch.no_grad():\n    x += 1\n"
                    "    y = x * x\nprint(x.requires_grad, y.requires_grad)\n"
                    "@torch.no_grad()\ndef double(t):\n    return t * 2\nprint(double(x).requires_grad)\n"
                    "@no_grad\ndef triple(t):\n    return t * 3\nprint(triple(x).requires_grad)\n"
                    "with enable_grad():\n    print((x * 2).requires_grad)\n"
                    "with set_grad_enabled(False):\n    print((x * 2).requires_grad)\n"
                    "print((x * 2).requires_grad)\n")
    assert lines == ["True False", "False", "False", "True", "False", "True"]


def test_grad_mode_is_restored_after_an_error():
    with pytest.raises(ProgramError):
        run("with no_grad():\n    y = undefined_name\n")
    assert engine_tensor.is_grad_enabled()


def test_custom_function():
    source = """
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.note = 3
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * ctx.note * x ** 2

x = tensor(2.0, requires_grad=True)
f = Cube.apply
y = f(x)
y.backward()
"""
    result = run(source)
    assert result.values["y"].item() == 8.0 and result.values["x"].grad.item() == 12.0
    assert result.values["y"].grad_fn.name() == "CubeBackward"
    assert result.values["y"].grad_fn.source == Span(16, 5, 6)


@pytest.mark.parametrize("source, message", [
    ("class A(torch.nn):\n    pass", "only subclasses of autograd.Function"),
    ("class A(Function):\n    x = 1", "may only define forward and backward"),
    ("class A(Function):\n    def helper(ctx): pass", "not 'helper'"),
])
def test_class_restrictions(source, message):
    with pytest.raises(ProgramError, match=message):
        run(source, script=True)


def test_imports_bind_namespaces():
    lines = printed("import torch.nn.functional as F\nfrom torch import nn, autograd as ag\n"
                    "from torch.autograd import Function, grad\nimport torch.nn\n"
                    "print(F, nn, ag, torch.nn.functional is F)\n")
    assert lines == ["<module 'torch.nn.functional'> <module 'torch.nn'> <module 'torch.autograd'> True"]


def test_import_of_a_missing_member():
    error = raises_at(ProgramError, 1, 19, run, "from torch import sine", match="cannot import name 'sine'")
    assert error.hint == "did you mean 'sin'?"


def test_lists_and_dicts():
    lines = printed("l = []\nl.append(1)\nl.extend([2, 3])\nl.insert(0, 0)\nprint(l, l.pop(), l.index(1),"
                    " len(l))\nd = {'a': 1}\nprint(d['a'], d.get('b', 5), d.keys(), d.items())\n"
                    "print(list(enumerate('ab')), list(zip([1, 2], (3, 4))), [0] * 3, (1,) + (2,))\n")
    assert lines == ["[0, 1, 2] 3 1 3", "1 5 ['a'] [('a', 1)]",
                     "[(0, 'a'), (1, 'b')] [(1, 3), (2, 4)] [0, 0, 0] (1, 2)"]


def test_integral_floats_are_accepted_where_ints_are_needed():
    assert printed("print(list(range(3.0)), [1, 2, 3][1.0], [0] * 2.0)") == ["[0, 1, 2] 2 [0, 0]"]
    with pytest.raises(ProgramTypeError):
        run("range(2.5)", script=True)


def test_tensor_conditions_need_one_element():
    assert printed("x = tensor(2.)\nif x > 1:\n    print('big')\n") == ["big"]
    with pytest.raises(GradcliError, match="ambiguous") as info:
        run("x = tensor([1., 2.])\nif x > 0:\n    pass\n", script=True)
    assert info.value.span == Span(2, 4, 5) or info.value.span.line == 2


def test_assert():
    with pytest.raises(ProgramError, match="assertion failed: no"):
        run("assert 1 > 2, 'no'", script=True)


# --- graph sources -------------------------------------------------------------


def test_nodes_record_where_they_were_created():
    result = run("x = 2.0\ny = 3.0\nz = x * y + sin(x)[...]\nw = -z\nq = z.exp()\n")
    z = result.values["z"]
    assert z.grad_fn.source == Span(3, 11, 12)                           # the '+'
    mul, sub = z.grad_fn.next_functions[0][0], z.grad_fn.next_functions[1][0]
    assert mul.source == Span(3, 7, 8)                                   # the '*'
    assert sub.source == Span(3, 19, 20)                                 # the '['
    assert sub.next_functions[0][0].source == Span(3, 13, 16)            # 'sin'
    assert result.values["w"].grad_fn.source == Span(4, 5, 6)            # unary '-'
    assert result.values["q"].grad_fn.source == Span(5, 7, 10)           # 'exp'


# --- errors ----------------------------------------------------------------------


def test_unknown_name_with_hint():
    error = raises_at(NameNotFound, 2, 5, run, "x = 2.0\ny = sine(x)\n", match="unknown name 'sine'")
    assert error.hint == "did you mean 'sin'?" and error.exit_code == ExitCode.PROGRAM
    error = raises_at(NameNotFound, 2, 5, run, "value = 2.0\ny = valeu * 2\n")
    assert error.hint == "did you mean 'value'?"


def test_unknown_attribute_with_hint():
    error = raises_at(ProgramError, 2, 7, run, "x = 2.0\ny = x.gard\n",
                      match="'Tensor' object has no attribute 'gard'")
    assert error.hint == "did you mean 'grad'?"
    raises_at(ProgramError, 1, 11, run, "y = torch.sine(1.)", match="module 'torch' has no attribute 'sine'")


def test_wrong_number_of_arguments_is_exit_code_3():
    error = raises_at(ProgramTypeError, 2, 5, run, "x = 2.0\ny = sin(x, x)\n")
    assert error.exit_code == ExitCode.PROGRAM and "argument" in error.message
    error = raises_at(ProgramTypeError, 2, 1, run, "def f(a, b): return a\nf(1)\n", script=True)
    assert error.message == "f() missing 1 required positional argument: 'b'"
    error = raises_at(ProgramTypeError, 2, 1, run, "def f(a): return a\nf(1, 2)\n", script=True)
    assert error.message == "f() takes 1 positional argument but 2 were given"
    error = raises_at(ProgramTypeError, 2, 1, run, "def f(a): return a\nf(b=2)\n", script=True)
    assert error.message == "f() got an unexpected keyword argument 'b'"
    raises_at(ProgramTypeError, 1, 1, run, "len(1, 2)", script=True, match="len\\(\\)")


def test_engine_errors_get_the_operator_position():
    error = raises_at(GradcliError, 3, 7, run, "x = [1., 2.]\ny = [1., 2., 3.]\nz = x + y\n")
    assert error.exit_code == ExitCode.PROGRAM


# one row a case (like test_lang_parser's syntax errors: `duplicates` pairs the two tables
# by their rows' shape; the data differs and the test body is written once)
@pytest.mark.parametrize("source, line, col, message", [
    ("x = 1 / 0", 1, 7, "division by zero"),
    ("x = [1, 2][5]", 1, 11, "list index out of range"),
    ("x = 'a' + 1", 1, 9, "can only concatenate str"),
    ("x = 1\nx()", 2, 1, "'int' object is not callable"),
    ("x = 1\ny = x[0]", 2, 6, "'int' object is not subscriptable"),
    ("x = {'a': 1}\ny = x['b']", 2, 6, "key 'b' not found"),
    ("x = (1, 2)\nx[0] = 3", 2, 2, "does not support item assignment"),
    ("x = 1.0\nx.foo = 3", 2, 3, "cannot set attributes of a 'float' object"),
    ("x = tensor(1.)\nx.shape = 3", 2, 3, "cannot set attribute 'shape' of a Tensor"),
    ("for i in 3:\n    pass", 1, 10, "'int' object is not iterable"),
    ("with 3:\n    pass", 1, 6, "does not support the context manager protocol"),
    ("x = 0.0 ** -1", 1, 9, "division by zero"),
    ("f = lambda: 1\nf.x", 2, 3, "'function' object has no attribute 'x'"),
    ("x = print.name", 1, 11, "no attribute 'name'"),
    ("x = [0.] * 10 ** 9", 1, 10, "exceeds the limit"),
    ("x = list(range(10 ** 8))", 1, 5, "exceeds the limit"),
    ("x = '%*d' % (3, 1)", 1, 11, "'*' widths in % formatting are not supported"),
    ("x = 's' * 10 ** 8", 1, 9, "exceeds the limit"),
])
def test_python_errors_become_program_errors(source, line, col, message):
    error = raises_at(ProgramError, line, col, run, source, script=True, match=message)
    assert error.exit_code == ExitCode.PROGRAM


def test_parse_errors_come_from_compile_program():
    with pytest.raises(ParseError):
        compile_program("x = (")


# --- limits ----------------------------------------------------------------------


def test_infinite_loop_hits_the_step_limit():
    error = raises_at(LimitError, 1, 1, run, "while True:\n    pass\n", limits=Limits(max_steps=5000))
    assert "5000" in error.message and "--max-steps" in error.hint


def test_default_limits_are_the_specs():
    assert (Limits().max_steps, Limits().max_elements) == (10**6, 10**8)
    with pytest.raises(LimitError, match="more than 3000 steps") as info:
        run("n = 0\nwhile True:\n    n = n + 1\n", script=True, limits=Limits(max_steps=3000))
    assert info.value.span == Span(2, 1, 6) and "--max-steps" in info.value.hint


def test_calls_count_as_steps():
    with pytest.raises(LimitError):
        run("def f(): return 1\nfor i in range(100):\n    f()\n", script=True,
            limits=Limits(max_steps=150))
    run("def f(): return 1\nfor i in range(100):\n    f()\n", script=True, limits=Limits(max_steps=200))


def test_runaway_recursion_is_a_program_error():
    error = raises_at(ProgramError, 2, 12, run, "def f(a):\n    return f(a)\nf(1)\n", script=True,
                      match="maximum recursion depth exceeded")
    assert error.exit_code == ExitCode.PROGRAM


def test_mutual_recursion_through_lambdas():
    with pytest.raises(ProgramError, match="maximum recursion depth exceeded"):
        run("f = lambda n: g(n)\ng = lambda n: f(n)\nf(1)\n", script=True)


def test_deep_but_allowed_recursion_works():
    source = "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\nprint(depth(150))\n"
    assert printed(source) == ["150"]


def test_element_limit_is_set_for_the_run_and_restored():
    before = budget.max_elements
    with pytest.raises(LimitError, match="--max-elements|elements") as info:
        run("x = zeros(1000)\n", limits=Limits(max_elements=100))
    assert info.value.span == Span(1, 5, 10)
    assert budget.max_elements == before
    run("x = zeros(1000)\n")


def test_long_chain_evaluates_without_recursion():
    source = "x = 1.0\ny = " + " + ".join(["x"] * 20_000) + "\n"
    assert run(source).output.item() == 20_000.0
    source = "y = " + " * ".join(["1"] * 20_000) + "\n"
    assert run(source, script=True).output == 1


def _chain_source(terms: int, bad: str | None = None, at: int = -1) -> tuple:
    """`z = <terms>` mixing `+ - * /`, numbers, tensors and calls, and the column of each
    term's start (the term at index `at` replaced by `bad`)."""
    forms = ["1.5*x", "x*y", "sin(x)", "cos(y)/2", "3", "x/y*2.0", "y-1", "2*x*x"]
    parts, cols, col = [], [], len("z = ") + 1
    for i in range(terms):
        text = bad if i == at else forms[i % len(forms)]
        if i:
            parts.append(" - " if i % 3 == 0 else " + ")
            col += 3
        cols.append(col)
        parts.append(text)
        col += len(text)
    return "x = 0.5\ny = 1.5\nz = " + "".join(parts) + "\n", cols


def _graph(tensor) -> list:
    """(name, source) of every node behind `tensor`, in a fixed order, without recursion."""
    seen, order, stack = set(), [], [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order.append((node.name(), node.source))
        stack.extend(child for child, _ in node.next_functions)
    return order


def test_chain_fast_path_matches_the_generic_path(monkeypatch):
    """`+ - * /` chains on tensors and numbers skip `binary`'s checks; the value, the
    gradients, the graph (node names and sources) and the work charged must not change."""
    from gradcli.lang import binops

    source, _ = _chain_source(3000)
    fast = run(source)
    monkeypatch.setattr(binops, "_PLAIN_OPERATORS", frozenset())
    generic = run(source)
    assert fast.output.item() == generic.output.item()
    assert _graph(fast.output) == _graph(generic.output)
    assert len(_graph(fast.output)) > 6000
    assert fast.interpreter.work == generic.interpreter.work
    fast.output.backward()
    generic.output.backward()
    for name in ("x", "y"):
        assert fast.values[name].grad.item() == generic.values[name].grad.item()


@pytest.mark.parametrize("source, expected", [
    ("2 * 3 + 7 // 2 - 1", 8),                          # ints stay ints
    ("2 ** 62 * 4 + 1", float(2 ** 64 + 1)),            # an int past 63 bits becomes a float
    ("1.5 * 2 - 0.25 / 0.5 + 1", 3.5),
    ("[1] * 2 + [3]", [1, 1, 3]),                       # sequences keep their checks
    ("'a' + 'b' * 2", "abb"),
])
def test_chains_of_python_values(source, expected):
    assert value(source, script=True) == expected


def test_errors_inside_a_long_chain_are_at_their_term():
    source, cols = _chain_source(5000, "1.0 / 0", at=4321)
    raises_at(ProgramError, 3, cols[4321] + 4, run, source, script=True, match="division by zero")
    source, cols = _chain_source(5000, "sine(x)", at=2718)
    raises_at(NameNotFound, 3, cols[2718], run, source, match="unknown name 'sine'")
    source, cols = _chain_source(5000, "tensor([1., 2.]) * tensor([1., 2., 3.])", at=1234)
    raises_at(GradcliError, 3, cols[1234] + 17, run, source)
    source, cols = _chain_source(5000, "tensor([1., 2., 3.])", at=4000)
    error = raises_at(GradcliError, 3, cols[4000] - 2, run, source.replace("x = 0.5", "x = [1., 2.]"))
    assert error.span.end_col == cols[4000] - 1


# --- API -----------------------------------------------------------------------------


def test_program_attributes_and_default_stdout(capsys):
    program = compile_program("print('hi')\n", "f.py")
    assert (program.source, program.filename) == ("print('hi')\n", "f.py")
    assert program.run(script=True).printed == ["hi"]
    assert capsys.readouterr().out == "hi\n"


def test_closures_stay_callable_after_the_run():
    result = run("x = tensor([1., 2.], requires_grad=True)\ny = x * 2\n"
                 "h = y.register_hook(lambda g: print('hook', g))\nz = y.sum()\n")
    result.values["z"].backward()
    assert result.printed == ["hook tensor([1., 1.])"]


def test_namespaces_mirror_the_importable_modules():
    from gradcli.lang.builtins import make_modules
    from gradcli.lang.parser import IMPORTABLE_MODULES

    modules = make_modules()
    assert set(modules) == set(IMPORTABLE_MODULES)
    assert modules["torch"].members["nn"] is modules["torch.nn"]
    assert modules["torch.nn"].members["functional"] is modules["torch.nn.functional"]
    for name in ("SGD",):
        assert name in modules["torch.optim"].members
    for name in ("grad", "backward", "Function", "gradcheck", "functional"):
        assert name in modules["torch.autograd"].members


def test_repeated_runs_are_independent():
    program = compile_program("print(n)\nn = 1\n", "f.py")
    with pytest.raises(NameNotFound):
        program.run(script=True)
    first = compile_program("l = [0]\nl.append(1)\nprint(l)\n")
    assert first.run(script=True).printed == ["[0, 1]"]
    assert first.run(script=True).printed == ["[0, 1]"]


@pytest.mark.parametrize("expression, expected", [
    ("None or x", "tensor([1., 1., 1.])"),      # the last operand is not tested for truth
    ("1 and x", "tensor([1., 1., 1.])"),
    ("0 and x", "0"),                           # short-circuit: x is never looked at
    ("0 or None or x", "tensor([1., 1., 1.])"),
    ("'' or 0", "0"),
    ("2 or x", "2"),
])
def test_and_or_return_an_operand_as_python_does(expression, expected):
    assert printed(f"import torch\nx = torch.ones(3)\nprint({expression})\n") == [expected]


def test_a_tested_operand_of_several_elements_is_still_ambiguous():
    with pytest.raises(GradcliError, match="ambiguous"):
        run("import torch\nx = torch.ones(3)\ny = x or 1\n", script=True)
