"""Escape attempts through the real command line (CliRunner on the Typer app).

`tests/lang/test_lang_security.py` holds the library-level suite; here each attempt goes
through `gradcli run` (script mode) or `gradcli eval` (expression mode) as a user would
send it, and must give exit 3, an error located at `FILE:LINE:COL`, no traceback, and no
side effect: the attempts try to create `pwned` in the working directory, print
`started` first, and so show whether anything of the program ran at all.
"""
from __future__ import annotations

import pytest

from hardening_helpers import LOCATION, assert_clean_error, invoke

# a program with a node: the attempts below reach into y.grad_fn
GRAD_FN = "x = tensor(1., requires_grad=True)\ny = x * 2\n"

# (id, program, line:col of the error, a fragment of the message). The program's first
# line is `print('started')`, so an error on line 1 would be the marker's own. One row a
# case, on purpose: `duplicates` pairs rows of this table by their shape, and there is no
# logic in them to write once.
ATTEMPTS = [
    ("dunder_attribute", "x = tensor(1.)\ny = x.__class__", "3:7", "names that start and end with '__'"),
    ("dunder_chain", "y = ().__class__.__bases__[0].__subclasses__()", "2:8", "'__'"),
    ("dunder_globals_of_a_def", "def f():\n    pass\ng = f.__globals__", "4:7", "'__'"),
    ("dunder_builtins", "b = __builtins__", "2:5", "'__'"),
    ("dunder_import", "os = __import__('os')\nos.system('touch pwned')", "2:6", "'__'"),
    ("import_os", "import os\nos.system('touch pwned')", "2:8", "module 'os' is not supported"),
    ("from_os_import", "from os import system\nsystem('touch pwned')", "2:6", "module 'os' is not supported"),
    ("import_as_torch", "import subprocess as torch", "2:8", "module 'subprocess' is not supported"),
    ("import_torch_submodule", "import torch.utils.tensorboard", "2:8", "module 'torch.utils.tensorboard' is not supported"),
    ("open", "f = open('pwned', 'w')\nf.write('x')", "2:5", "open() is not supported in gradcli"),
    ("open_in_with", "with open('pwned', 'w') as f:\n    pass", "2:6", "open() is not supported"),
    ("eval", "eval(\"open('pwned', 'w')\")", "2:1", "eval() is not supported"),
    ("exec", "exec(\"open('pwned', 'w')\")", "2:1", "exec() is not supported"),
    ("compile", "c = compile('1', 'f', 'exec')", "2:5", "compile() is not supported"),
    ("getattr", "x = tensor(1.)\nd = getattr(x, '_data')", "3:5", "'Tensor' object has no attribute '_data'"),
    ("setattr", "x = tensor(1.)\nsetattr(x, '_data', 1)", "3:1", "cannot set attribute '_data' of a Tensor"),
    ("globals", "g = globals()", "2:5", "globals() is not supported"),
    ("locals_and_vars", "v = vars()", "2:5", "vars() is not supported"),
    ("type", "t = type(tensor(1.))\nm = t.__dict__", "3:7", "'__'"),
    ("breakpoint", "breakpoint()", "2:1", "breakpoint() is not supported"),
    ("input", "s = input()", "2:5", "input() is not supported"),
    ("fstring_dunder", "x = 1.0\ns = f\"{x.__class__}\"", "3:10", "'__'"),
    ("fstring_dunder_in_spec", "x = 1.0\ns = f\"{x:{x.__class__}}\"", "3:13", "'__'"),
    ("fstring_spec_attribute", "x = 1.5\ns = f'{x:{\".real\"}}'", "3", "Format specifier"),
    ("fstring_huge_width", "s = f'{1:999999999}'", "2:7", "too large"),
    ("str_format_attribute", "x = tensor(1.)\ns = '{0.__class__}'.format(x)", "3",
     "format field '{0.__class__}' is not supported"),
    ("str_format_field", "x = tensor(1.)\ns = '{0._data}'.format(x)", "3",
     "format field '{0._data}' is not supported"),
    ("percent_format", "s = '%999999999d' % 1", "2:19", "format width or precision 999999999 is too large"),
    ("lambda_default_dunder", "f = lambda x=().__class__: x", "2:17", "'__'"),
    ("lambda_default_builtin", "f = lambda g=print: g.fn\nf()", "2:23", "no attribute 'fn'"),
    ("lambda_default_open", "f = lambda o=open: o('pwned', 'w')", "2:14", "open() is not supported"),
    ("class_dunder_method", "class A:\n    def __getattribute__(self, n):\n        return 1", "3:9",
     "'__'"),
    ("class_dunder_attribute", "class A:\n    __slots__ = ()", "3:5", "'__'"),
    ("plain_object_dunder", "class A:\n    pass\na = A()\nd = a.__dict__", "5:7", "'__'"),
    ("plain_object_getattr_dunder", "class A:\n    pass\nd = getattr(A(), '__dict__')", "4:5",
     "names that start and end with '__' are not allowed"),
    ("plain_class_setattr_dunder", "class A:\n    pass\nsetattr(A, '__call__', print)", "4:1",
     "names that start and end with '__' are not allowed"),
    ("class_of_tensor", "class A(tensor):\n    pass", "2:7", "only subclasses of autograd.Function"),
    ("class_metaclass", "class A(Function, metaclass=type):\n    pass", "2:19", "metaclass"),
    ("class_extra_method", "class A(Function):\n    def helper(ctx):\n        return 1",
     "3:9", "only forward and backward"),
    ("function_attribute", "def f():\n    return 1\ng = f.interpreter", "4:7",
     "'function' object has no attribute 'interpreter'"),
    ("lambda_attribute", "g = (lambda: 0).scope", "2:17", "'function' object has no attribute 'scope'"),
    ("builtin_attribute", "g = print.fn", "2:11", "no attribute 'fn'"),
    ("function_class_attribute", "g = Function.apply", "2:14", "'type' object has no attribute 'apply'"),
    ("grad_fn_beyond_the_documented", GRAD_FN + "z = y.grad_fn.apply", "4:15", "no attribute 'apply'"),
    ("grad_fn_saved_values", GRAD_FN + "z = y.grad_fn.saved", "4:15", "no attribute 'saved'"),
    # `_saved_<name>` reads PyTorch's saved values (issue 13): nothing else with that prefix
    ("grad_fn_private", GRAD_FN + "z = y.grad_fn._saved_op", "4:15", "no attribute '_saved_op'"),
    ("grad_fn_hook_internals", GRAD_FN + "h = y.grad_fn._tensor_hooks", "4:15", "no attribute '_tensor_hooks'"),
    ("accumulate_grad_internals",
     GRAD_FN + "n = y.grad_fn.next_functions[0][0].op", "4:36",
     "no attribute 'op'"),
    ("tensor_private", "x = tensor(1.)\nd = x._data", "3:7", "'Tensor' object has no attribute '_data'"),
    ("tensor_numpy", "x = tensor(1.)\nd = x.numpy().tofile", "3:15", "no attribute 'tofile'"),
    ("tensor_set_private", "x = tensor(1.)\nx._data = 1", "3:3", "cannot set attribute '_data'"),
    ("namespace_escape", "m = torch.os", "2:11", "module 'torch' has no attribute 'os'"),
    ("namespace_private", "m = torch._C", "2:11", "module 'torch' has no attribute '_C'"),
    ("namespace_subscript", "m = torch['os']", "2:10", "not subscriptable"),
    ("ctx_internals",
     "class F(Function):\n    @staticmethod\n    def forward(ctx, x):\n        return ctx._cls\n"
     "    @staticmethod\n    def backward(ctx, g):\n        return g\ny = F.apply(tensor(1., requires_grad=True))",
     "5:20", "no attribute '_cls'"),
    ("hook_calls_open", "x = tensor(1., requires_grad=True)\nh = x.register_hook(open)", "3:21",
     "open() is not supported"),
    ("starred_open", "print(*open('pwned'))", "2:8", "open() is not supported"),
    ("decorator_open", "@open\ndef f():\n    pass", "2:2", "open() is not supported"),
    ("dtype_call", "d = torch.float32()", "2:11", "'torch.dtype' object is not callable"),
]


@pytest.mark.parametrize("program, where, message",
                         [pytest.param(p, w, m, id=i) for i, p, w, m in ATTEMPTS])
@pytest.mark.parametrize("command", ["run", "eval"])
def test_escape_attempt_is_refused(command, program, where, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = "print('started')\n" + program + "\n"
    path = tmp_path / "attempt.py"
    path.write_text(source)
    result = invoke(command, str(path))
    assert result.exit_code == 3, (result.stdout, result.stderr)
    assert_clean_error(result.stderr, result.stdout)
    located = LOCATION.search(result.stderr)
    assert located.group(1) == str(path)
    assert f"{located.group(2)}:{located.group(3)}".startswith(where), result.stderr
    assert message in result.stderr, result.stderr
    assert not (tmp_path / "pwned").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["attempt.py"]


def test_refused_at_parse_time_nothing_runs(tmp_path, monkeypatch):
    """A dunder name or a foreign import stops the program before its first line runs."""
    monkeypatch.chdir(tmp_path)
    result = invoke("run", "-e", "print('started')\nimport os\nos.system('touch pwned')\n")
    assert result.exit_code == 3
    assert "started" not in result.stdout
    assert not (tmp_path / "pwned").exists()


def test_escape_attempt_with_json_gives_an_error_document(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("eval", "-e", "x = 1.0\ny = x.__class__\n", "--json")
    assert result.exit_code == 3
    doc = __import__("json").loads(result.stdout)
    assert doc["error"]["code"] == 3 and (doc["error"]["line"], doc["error"]["col"]) == (2, 7)


def test_values_printed_never_show_python_objects():
    """What a program can print of functions, modules and classes is the language's view."""
    result = invoke("run", "-e", "def f():\n    pass\nprint(f, print, torch, Function, torch.float32)\n")
    assert result.exit_code == 0
    assert result.stdout.strip() == ("<function f> <built-in function print> <module 'torch'> "
                                     "<class 'Function'> torch.float32")
    assert "0x" not in result.stdout and "gradcli" not in result.stdout


def test_python_type_names_of_language_values_in_messages():
    """Python's own messages name the program's types as a program knows them."""
    result = invoke("run", "-e", "y = 1.0 + print\n")
    assert result.exit_code == 3
    assert "'float' and 'builtin_function_or_method'" in result.stderr
    assert "Builtin" not in result.stderr
