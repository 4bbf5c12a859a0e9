"""nn.Module subclasses in the sandbox: no dunder or internal of a module is reachable,
a program class is never a Python class, names and hooks are checked."""
from __future__ import annotations

import pytest

from gradcli.errors import ParseError, ProgramError
from gradcli.lang import compile_program

NET = """import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc1(x)

net = Net()
"""


def fails(source: str) -> ProgramError:
    lines: list = []
    with pytest.raises(ProgramError) as info:
        compile_program("import torch\nimport torch.nn as nn\n" + source).run(
            stdout=lines.append, script=True)
    assert info.value.span is not None, f"{info.value!r} has no position"
    assert not any("unreachable" in line for line in lines)
    return info.value


def test_a_program_class_is_not_a_python_class():
    from gradcli.lang.classes import ProgramClass, ProgramModule

    result = compile_program(NET).run(stdout=lambda line: None, script=True)
    assert type(result.interpreter.module_scope.vars["Net"]) is ProgramClass
    assert type(result.modules["net"]) is ProgramModule


@pytest.mark.parametrize("source", [
    "net.__dict__",
    "net.__class__",
    "Net.__subclasses__",
    "Net.__init__",
    "net.fc1.__dict__",
    "net._parameters",
    "net._modules",
    "net.__setattr__",
    "super().__dict__",
])
def test_no_dunder_or_internal_is_reachable(source):
    error = fails(NET + source + "\nprint('unreachable')")
    assert "unreachable" not in error.message


def test_type_gives_back_the_program_class_never_a_python_class():
    from gradcli.lang.classes import ProgramClass

    result = compile_program(NET + "t = type(net)\nsame = t is Net\nk = type(3)\n").run(
        stdout=lambda line: None, script=True)
    scope = result.interpreter.module_scope.vars
    assert type(scope["t"]) is ProgramClass and scope["same"] is True
    assert not isinstance(scope["k"], type)  # the language's int, not Python's class


@pytest.mark.parametrize("method", ["__call__", "__getattr__", "__repr__", "__setattr__",
                                    "__class_getitem__"])
def test_program_dunder_methods_are_refused(method):
    error = fails(f"class M(nn.Module):\n    def {method}(self):\n        return 1\n")
    assert "'__'" in error.message


def test_super_init_outside_a_super_call_is_refused_by_the_parser():
    error = fails("x = torch.ones(1)\nx.__init__")
    assert isinstance(error, ParseError)
    error = fails("def __init__():\n    pass")
    assert isinstance(error, ParseError)


@pytest.mark.parametrize("source, message", [
    ("net.__foo = 1", "cannot set attribute '__foo' of a module"),
    ("net.fc1.__bar = 1", "cannot set attribute '__bar' of a module"),
    ("net.register_buffer('a.b', torch.ones(1))", 'buffer name can\'t contain "."'),
    ("net.register_buffer('', torch.ones(1))", "buffer name can't be empty string"),
    ("net.register_parameter('__x', nn.Parameter(torch.ones(1)))", "must not start with '__'"),
    ("net.add_module('__y', nn.ReLU())", "must not start with '__'"),
])
def test_setattr_of_non_identifier_names_is_refused(source, message):
    assert message in fails(NET + source).message


def test_a_non_callable_hook_is_a_program_error():
    error = fails(NET + "net.register_forward_hook(3)")
    assert "a forward hook must be a function, not 'int'" in error.message
    error = fails(NET + "net.register_full_backward_hook(torch.ones(1))")
    assert "must be a function" in error.message


def test_a_library_layer_cannot_be_subclassed():
    error = fails("class L(nn.Linear):\n    pass")
    assert "not from nn.Linear" in error.message


def test_module_class_body_allows_only_methods_and_attributes():
    error = fails("class M(nn.Module):\n    for i in range(2):\n        pass")
    assert "may only define methods" in error.message


def test_super_outside_a_method_is_an_error():
    error = fails("super().__init__()")
    assert "super(): no arguments" in error.message


def test_missing_forward_is_pytorchs_error():
    error = fails("class M(nn.Module):\n    pass\nM()(1)")
    assert 'Module [M] is missing the required "forward" function' in error.message
