"""The access policy (`gradcli.lang.access`): a type's reader comes from one table; a type
not in it has only what its nearest listed base allows, and most have nothing."""
from __future__ import annotations

import pytest

from gradcli.errors import ProgramError
from gradcli.lang import access, compile_program
from gradcli.lang.builtins import make_modules


def run(source: str) -> list:
    lines: list = []
    compile_program(source).run(stdout=lines.append, script=True)
    return lines


def refused(source: str) -> ProgramError:
    with pytest.raises(ProgramError) as info:
        run(source)
    assert info.value.span is not None
    return info.value


def test_a_tensor_subclass_reads_as_a_tensor():
    assert run("p = torch.nn.Parameter(torch.ones(2))\nprint(p.shape, p.requires_grad, p.sum())") \
        == ["torch.Size([2]) True tensor(2., grad_fn=<SumBackward0>)"]


@pytest.mark.parametrize("source, message", [
    ("print.fn", "'builtin_function_or_method' object has no attribute 'fn'"),
    ("m = torch.no_grad()\nm.prev", "'no_grad' object has no attribute 'prev'"),
    ("torch.ones(2).shape.count", "'Size' object has no attribute 'count'"),
    ("torch.autograd.Function.apply", "'type' object has no attribute 'apply'"),
    ("torch.float32.name", "'torch.dtype' object has no attribute 'name'"),
    ("(lambda: 1).body", "'function' object has no attribute 'body'"),
])
def test_types_without_a_reader_have_no_attributes(source, message):
    assert message in str(refused(source))


def test_a_named_tuple_reads_its_fields_only():
    assert run("r = torch.max(torch.tensor([1., 3., 2.]), 0)\nprint(r.values, r.indices)") \
        == ["tensor(3.) tensor(1)"]
    assert "did you mean 'values'?" in refused("torch.max(torch.tensor([1., 3.]), 0).value").hint


def test_remembered_types_are_bounded():
    policy = access.policy(make_modules())
    for i in range(access._MAX_RESOLVED + 10):
        with pytest.raises(ProgramError):
            policy.getattr(type(f"T{i}", (), {})(), "x", None)
    assert len(policy.resolved) <= access._MAX_RESOLVED


def test_a_slice_assignment_of_a_non_iterable_has_a_position():
    error = refused("a = [1, 2]\na[0:1] = 5")
    assert "'int' object is not iterable" in str(error) and error.span.line == 2
