"""The sandbox around issue 13's names: each engine call-back into the program, and each
new object a program can hold, hands back only the language's values.

A program error (a GradcliError that is not internal) is the only acceptable outcome
for each of these; a Python exception escaping would be exit 70.
"""
from __future__ import annotations

import pytest

from gradcli.errors import ExitCode, GradcliError
from gradcli.lang import compile_program

SETUP = """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
"""


def _function(forward_args, first="", setup_context=""):
    """A custom Function program doubling x: only the named part differs between the cases."""
    return ("\nclass F(torch.autograd.Function):\n    @staticmethod\n"
            f"    def forward({forward_args}):\n"
            + (f"        {first}\n" if first else "")
            + "        return t * 2\n"
            + (f"    @staticmethod\n{setup_context}" if setup_context else "")
            + "    @staticmethod\n    def backward(ctx, g):\n        return g\nF.apply(x)")


REFUSED = {
    # the Node class
    "Node()": "torch.autograd.graph.Node()",
    "Node.__subclasses__": "print(torch.autograd.graph.Node.__subclasses__)",
    "Node.mro": "print(torch.autograd.graph.Node.mro)",
    # grad_fn and what it gives
    "metadata.__class__": "print(y.grad_fn.metadata.__class__)",
    "metadata.__setitem__": "y.grad_fn.metadata.__setitem__('a', 1)",
    "_saved___dict__": "print(y.grad_fn._saved___dict__)",
    "_saved_ on a private name": "print(y.grad_fn._saved_op)",
    "grad_fn.op": "print(y.grad_fn.op)",
    "grad_fn.saved_value": "print(y.grad_fn.saved_value('_saved_self'))",
    "handle._hooks": "h = y.grad_fn.register_hook(lambda a, b: None)\nprint(h._hooks)",
    "prehook handle._hook": "h = y.grad_fn.register_prehook(lambda a: None)\nprint(h._hook)",
    # hooks that hand back Python objects
    "hook returns a builtin": "y.grad_fn.register_hook(lambda gi, go: (print, None))\ny.sum().backward()",
    "hook returns a module": "y.grad_fn.register_hook(lambda gi, go: torch)\ny.sum().backward()",
    "prehook returns a list": "y.grad_fn.register_prehook(lambda go: [go[0]])\ny.sum().backward()",
    "prehook returns a dict": "y.grad_fn.register_prehook(lambda go: {'a': go[0]})\ny.sum().backward()",
    "leaf node hook returns a string": (
        "y.grad_fn.next_functions[0][0].register_prehook(lambda go: ('a',))\ny.sum().backward()"),
    "post-accumulate hook returns a value": (
        "x.register_post_accumulate_grad_hook(lambda t: t)\ny.sum().backward()"),
    # saved_tensors_hooks
    "unpack gives a builtin": (
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: print, lambda p: p):\n    z = x * x\n"
        "z.sum().backward()"),
    "unpack gives a module": (
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: torch):\n    z = x * x\n"
        "print(z.grad_fn._saved_self)"),
    "hooks object attribute": "m = torch.autograd.graph.saved_tensors_hooks(None, None)\nprint(m.pack_hook)",
    "save_on_cpu attribute": "print(torch.autograd.graph.save_on_cpu().pin_memory)",
    "disable hooks": (
        "with torch.autograd.graph.disable_saved_tensors_hooks('no saving here'):\n    z = x * x"),
    # anomaly switches
    "detect_anomaly attribute": "print(torch.autograd.detect_anomaly().prev)",
    "set_detect_anomaly attribute": "print(torch.autograd.set_detect_anomaly(False).prev)",
    # functional and func: what the program's function returns, what they return
    "vjp of a function returning a builtin": "torch.autograd.functional.vjp(lambda t: print, x)",
    "jvp of a function returning a list": "torch.autograd.functional.jvp(lambda t: [t], x, x)",
    "hvp of a function returning a module": "torch.autograd.functional.hvp(lambda t: torch, x, x)",
    "func.grad of a builtin result": "torch.func.grad(lambda t: print)(torch.tensor(1.0))",
    "func.grad result .fn": "print(torch.func.grad(lambda t: t.sum()).fn)",
    "func.vjp_fn .fn": "o, f = torch.func.vjp(lambda t: t * 2, x)\nprint(f.fn)",
    "vjp_fn of a builtin": "o, f = torch.func.vjp(lambda t: t * 2, x)\nf(print)",
    "jacrev of a module argument": "torch.func.jacrev(lambda t: t)(torch)",
    "func.grad argnums a builtin": "torch.func.grad(lambda t: t.sum(), argnums=print)(x)",
    # the Function API
    "once_differentiable .fn": "print(torch.autograd.function.once_differentiable(print).fn)",
    "ctx private state": _function(
        "t", setup_context="    def setup_context(ctx, inputs, output):\n        print(ctx._saved)\n"),
    "mark_dirty of a non-tensor": _function("ctx, t", first="ctx.mark_dirty(print)"),
    "mark_non_differentiable of a module": _function("ctx, t", first="ctx.mark_non_differentiable(torch)"),
    "setup_context not callable": _function(
        "t", setup_context="    @torch.ones_like\n    def setup_context(ctx, inputs, output):\n        pass\n"),
}


@pytest.mark.parametrize("program", REFUSED.values(), ids=list(REFUSED))
def test_refused_as_a_program_error(program):
    with pytest.raises(GradcliError) as info:
        compile_program(SETUP + program + "\n").run(stdout=lambda line: None, script=True)
    assert info.value.exit_code != ExitCode.INTERNAL
    assert "gradcli." not in str(info.value)


def test_metadata_holds_only_what_the_program_put_there():
    lines = []
    compile_program(SETUP + "y.grad_fn.metadata['f'] = print\nprint(list(y.grad_fn.metadata.keys()))\n"
                    "print(y.grad_fn.metadata.get('f'))\n").run(stdout=lines.append, script=True)
    assert lines == ["['f']", "<built-in function print>"]
