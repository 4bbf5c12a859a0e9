"""Escape attempts: each must be a ProgramError with a position, and run nothing.

The language reaches only its own values: names through its scopes and the
builtin table, attributes through the interpreter's tables, calls through
Builtin/Closure. These are the classic ways out of a Python sandbox.
"""
from __future__ import annotations

import pytest

from gradcli.errors import ExitCode, NameNotFound, ParseError, ProgramError
from gradcli.lang import compile_program


def attempt(source: str, tmp_path=None, monkeypatch=None):
    """Run `source` (script mode) after a marker print; return (error, printed lines)."""
    if monkeypatch is not None:
        monkeypatch.chdir(tmp_path)
    lines: list = []
    with pytest.raises(ProgramError) as info:
        compile_program("print('started')\n" + source).run(stdout=lines.append, script=True)
    error = info.value
    assert error.span is not None, f"{error!r} has no position"
    assert error.exit_code == ExitCode.PROGRAM
    return error, lines


# Refused by the parser: nothing runs, not even the line before.
@pytest.mark.parametrize("source, col", [
    ("x = tensor(1.)\nx.__class__", 3),
    ("().__class__.__bases__", 4),
    ("__import__('os')", 1),
    ("x = tensor(1.)\nf\"{x.__class__}\"", 6),
    ("f = lambda x=().__class__: x", 17),
    ("x = tensor(1., requires_grad=True)\ny = x * 2\ny.grad_fn.__init__", 11),
    ("print.__self__", 7),
    ("__builtins__", 1),
    ("x = tensor(1.)\nx.backward.__globals__", 12),
    ("class A(Function, metaclass=type):\n    pass", 19),
])
def test_dunder_access_is_refused_before_running(source, col):
    error, lines = attempt(source)
    assert isinstance(error, ParseError)
    assert error.span.col == col, f"{error} at {error.span}"
    assert lines == []


@pytest.mark.parametrize("source", ["import os", "import pathlib as torch", "from os import system",
                                    "import subprocess", "from numpy.random import seed",
                                    "import torch.utils.tensorboard", "import shutil",
                                    "from importlib import import_module", "import pickle"])
def test_imports_other_than_torch_are_refused_before_running(source):
    error, lines = attempt(source)
    assert isinstance(error, ParseError) and error.span.line == 2
    assert lines == []


# Refused when reached: the name or attribute simply does not exist.
@pytest.mark.parametrize("source, message", [
    ("open('pwned', 'w')", "open() is not supported in gradcli"),
    ("eval('1')", "eval() is not supported in gradcli"),
    ("exec('x = 1')", "exec() is not supported in gradcli"),
    ("globals()", "globals() is not supported in gradcli"),
    ("locals()", "locals() is not supported in gradcli"),
    ("vars()", "vars() is not supported in gradcli"),
    ("compile('1', 'f', 'eval')", "compile() is not supported in gradcli"),
    ("breakpoint()", "breakpoint() is not supported in gradcli"),
    ("input()", "input() is not supported in gradcli"),
    ("memoryview(b)", "memoryview() is not supported in gradcli"),
])
def test_python_builtins_outside_the_table_do_not_exist(source, message, tmp_path, monkeypatch):
    error, lines = attempt(source, tmp_path, monkeypatch)
    assert isinstance(error, NameNotFound) and message in error.message
    assert error.span.line == 2
    assert lines == ["started"]
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("source, message", [
    ("print.fn", "'builtin_function_or_method' object has no attribute 'fn'"),
    ("(lambda: 0).interpreter", "'function' object has no attribute 'interpreter'"),
    ("f = lambda g=print: g\nf().fn('x')", "no attribute 'fn'"),
    ("torch.autograd.Function.apply", "'type' object has no attribute 'apply'"),
    ("'{0.grad}'.format(tensor(1.))", "format field '{0.grad}' is not supported"),
    ("'{0.__class__}'.format(1)", "format field '{0.__class__}' is not supported"),
    ("'{0[0]}'.format([1])", "format field '{0[0]}' is not supported"),
    ("'{:{}}'.format(1, '{0.real}')", "Invalid format specifier '{0.real}'"),
    ("'%(a)s'.format_map", "'str' object has no attribute 'format_map'"),
    ("getattr(tensor(1.), '__class__')", "names that start and end with '__' are not allowed"),
    ("getattr(1, 'real')", "'int' object has no attribute 'real'"),
    ("setattr(tensor(1.), '_data', 1)", "cannot set attribute '_data' of a Tensor"),
    ("setattr(print, 'fn', 1)", "cannot set attributes of a 'builtin_function_or_method'"),
    ("x = tensor(1.)\nx.numpy().tofile", "'ndarray' object has no attribute 'tofile'"),
    ("x = tensor(1.)\nx._data", "'Tensor' object has no attribute '_data'"),
    ("x = tensor(1., requires_grad=True)\n(x * 2).grad_fn.apply", "no attribute 'apply'"),
    ("x = tensor(1., requires_grad=True)\n(x * 2).grad_fn.op", "no attribute 'op'"),
    ("x = tensor(1.)\nx.shape.numel", "'Size' object has no attribute 'numel'"),
    ("range(3).start", "'range' object has no attribute 'start'"),
    ("torch.nn.MSELoss.mro", "no attribute 'mro'"),
    ("l = []\nl.sort", "'list' object has no attribute 'sort'"),
    ("h = tensor(1., requires_grad=True).register_hook(print)\nh._hooks", "no attribute '_hooks'"),
    ("torch.os", "module 'torch' has no attribute 'os'"),
    ("nn.Modul", "module 'torch.nn' has no attribute 'Modul'"),
])
def test_attributes_outside_the_tables_do_not_exist(source, message):
    error, lines = attempt(source)
    assert message in error.message, error.message
    assert lines == ["started"]


def test_engine_internals_of_ctx_are_out_of_reach():
    source = """
class F(Function):
    @staticmethod
    def forward(ctx, x):
        return ctx._cls
    @staticmethod
    def backward(ctx, g):
        return g
F.apply(tensor(1., requires_grad=True))
"""
    error, _ = attempt(source)
    assert "has no attribute '_cls'" in error.message and error.span.line == 6


def test_ctx_engine_attributes_cannot_be_overwritten():
    source = """
class F(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.next_functions = ()
        return x
    @staticmethod
    def backward(ctx, g):
        return g
F.apply(tensor(1., requires_grad=True))
"""
    error, _ = attempt(source)
    assert "cannot set attribute 'next_functions'" in error.message


@pytest.mark.parametrize("source, message", [
    ("class A:\n    def __add__(self, o): pass", "names that start and end with"),
    ("class A(tensor):\n    pass", "only subclasses of autograd.Function may be defined"),
    ("class A(Function):\n    forward = print", "may only define forward and backward"),
    ("class A(Function):\n    def __init__(self): pass", "defines only forward and backward"),
])
def test_only_function_subclasses(source, message):
    error, _ = attempt(source)
    assert message in error.message and error.span.line in (2, 3)


def test_calling_a_non_function_is_refused():
    error, _ = attempt("d = torch.float32\nd()")
    assert "'torch.dtype' object is not callable" in error.message


def test_format_specs_cannot_reach_attributes():
    error, _ = attempt("x = 1.5\nf'{x:{\".real\"}}'")
    assert error.message == "Format specifier missing precision" and error.span.line == 3


def test_hooks_run_only_program_functions():
    lines: list = []
    result = compile_program("x = tensor(1., requires_grad=True)\nh = x.register_hook(print)\n"
                             "(x * 2).backward()\n").run(stdout=lines.append)
    assert lines == ["tensor(2.)"] and result.values["x"].grad.item() == 2.0


def test_values_reaching_a_program_are_the_languages():
    lines: list = []
    compile_program("print(print, torch, torch.sin, lambda: 1, torch.float64, Function)\n").run(
        stdout=lines.append, script=True)
    assert lines == ["<built-in function print> <module 'torch'> <built-in function sin> "
                     "<function <lambda>> torch.float64 <class 'Function'>"]


def test_the_language_never_uses_pythons_own_evaluation():
    import re
    from pathlib import Path

    import gradcli.lang

    forbidden = re.compile(r"(?<![.\w])(eval|exec|compile|__import__)\(|\bast\.parse\b|^\s*import ast\b"
                           r"|^\s*from ast\b")
    for path in Path(gradcli.lang.__file__).parent.glob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if code.strip().startswith("def "):
                continue
            assert not forbidden.search(code), f"{path.name}:{number}: {line.strip()}"
