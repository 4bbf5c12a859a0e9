"""Issue 13: the rest of torch.autograd as PyTorch 2 programs write it.

Every expected value was derived by hand and checked against PyTorch 2.13 while
writing (never in CI); the messages are PyTorch's.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from gradcli import _tensor
from gradcli.graph.saved_hooks import inference_mode
from gradcli.autograd import anomaly
from gradcli.graph.nodes import Node
from gradcli.errors import AutogradError, GradcliError, ProgramError, ProgramTypeError
from gradcli.lang import compile_program


def printed(source: str) -> list[str]:
    lines = []
    compile_program(source).run(stdout=lines.append, script=True)
    return lines


def fails(source: str, error=GradcliError, match: str | None = None):
    with pytest.raises(error, match=match) as info:
        compile_program(source).run(stdout=lambda line: None, script=True)
    return info.value


def custom_function(name: str, forward: str, backward: str, grads: str = "g", decorator: str = "",
                    inputs: str = "x", setup_context: str | None = None) -> str:
    """A program defining the custom Function `name` of `inputs`: `forward`, `backward` (and
    `setup_context`, PyTorch 2's form, with a forward without ctx) are their bodies, statements
    separated by "; "; `decorator` is stacked on the backward."""
    body = "\n        ".join
    stacked = f"    {decorator}\n" if decorator else ""
    setup = "" if setup_context is None else (
        f"    @staticmethod\n    def setup_context(ctx, inputs, output):\n        {body(setup_context.split('; '))}\n")
    ctx = "ctx, " if setup_context is None else ""
    return (f"\nclass {name}(torch.autograd.Function):\n    @staticmethod\n    def forward({ctx}{inputs}):\n"
            f"        {body(forward.split('; '))}\n{setup}    @staticmethod\n{stacked}"
            f"    def backward(ctx, {grads}):\n        {body(backward.split('; '))}\n")


EXP = custom_function("Exp", "r = x.exp(); ctx.save_for_backward(r); return r", "r, = ctx.saved_tensors; return g * r")


def square_function(decorator: str = "") -> str:
    """A program's Sq (x * x, saving x) and its x = 3; `decorator` is stacked on its backward."""
    return custom_function("Sq", "ctx.save_for_backward(x); return x * x",
                           "x, = ctx.saved_tensors; return 2 * x * g", decorator=decorator)[1:] + \
        "x = torch.tensor(3.0, requires_grad=True)\n"


ORDERS = """
def orders(f, x0):
    x = torch.tensor(x0, requires_grad=True)
    y = f(x)
    out = []
    for k in range(3):
        if not y.requires_grad:
            break
        g, = torch.autograd.grad(y, x, create_graph=True)
        out.append(round(g.item(), 6))
        y = g
    print(out)
"""

# --- 1. saved outputs are outputs of the node ---------------------------------

CUBE = """
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        dx = 3 * x ** 2
        ctx.save_for_backward(x, dx)
        return x ** 3, dx
    @staticmethod
    def backward(ctx, g, gdx):
        x, dx = ctx.saved_tensors
        return g * dx + gdx * 6 * x
"""


def test_the_issue_cube_program_gives_pytorchs_second_derivative():
    assert printed(CUBE + """
x = torch.tensor(2.0, requires_grad=True)
y, _ = Cube.apply(x)
g, = torch.autograd.grad(y, x, create_graph=True)
print(torch.autograd.grad(g, x))
""") == ["(tensor(12.),)"]


@pytest.mark.parametrize("function, call, x0, expected", [
    # a saved input: x^3 at 2 -> 3x^2, 6x, 6
    (custom_function("F", "ctx.save_for_backward(x); return x ** 3", "x, = ctx.saved_tensors; return g * 3 * x ** 2"),
     "F.apply", 2.0, "[12.0, 12.0, 6.0]"),
    # a saved output: e^x at 0.5, every order e^0.5
    (EXP, "Exp.apply", 0.5, "[1.648721, 1.648721, 1.648721]"),
    # a saved intermediate returned as an output (the tutorial's trick): x^3 again
    (custom_function("F", "sq = x * x; ctx.save_for_backward(x, sq); return sq * x, sq",
                     "x, sq = ctx.saved_tensors; return g * 3 * sq + gsq * 2 * x", grads="g, gsq"),
     "lambda x: F.apply(x)[0]", 2.0, "[12.0, 12.0, 6.0]"),
    # a saved intermediate kept only in ctx: a constant to a double backward, as in
    # PyTorch (x * C(x), C' = 3 sq with sq = 4 frozen): 32, 24, then no graph left
    (custom_function("F", "sq = x * x; ctx.save_for_backward(sq); return sq * x",
                     "sq, = ctx.saved_tensors; return g * 3 * sq"),
     "lambda x: F.apply(x) * x", 2.0, "[32.0, 24.0]"),
], ids=["input", "output", "intermediate-as-output", "intermediate-in-ctx"])
def test_saved_values_at_orders_one_two_three(function, call, x0, expected):
    assert printed(ORDERS + function + f"orders({call}, {x0})\n") == [expected]


# the double backward tutorial's Functions (PyTorch's docs), written with custom_function
TUTORIAL = (
    custom_function("Exp", "result = torch.exp(x); ctx.save_for_backward(result); return result",
                    "result, = ctx.saved_tensors; return grad_out * result", grads="grad_out")
    + custom_function("Sinh", "expx = torch.exp(x); expnegx = torch.exp(-x); ctx.save_for_backward(expx, expnegx); "
                              "return (expx - expnegx) / 2, expx, expnegx",
                      "expx, expnegx = ctx.saved_tensors; grad_input = grad_out * (expx + expnegx) / 2; "
                      "grad_input += _grad_out_exp * expx; grad_input -= _grad_out_negexp * expnegx; "
                      "return grad_input", grads="grad_out, _grad_out_exp, _grad_out_negexp")
    + """
def sinh(x):
    return Sinh.apply(x)[0]
"""
    + custom_function("Cube", "ctx.save_for_backward(x); return x ** 3",
                      "x, = ctx.saved_tensors; return CubeBackward.apply(grad_out, x)", grads="grad_out")
    + custom_function("CubeBackward", "ctx.save_for_backward(x, grad_out); return grad_out * 3 * x ** 2",
                      "x, sav_grad_out = ctx.saved_tensors; dx = grad_out * sav_grad_out * 6 * x; "
                      "dgrad_out = grad_out * 3 * x ** 2; return dgrad_out, dx",
                      grads="grad_out", inputs="grad_out, x")
    + """
x = torch.tensor([0.3, -0.7, 1.2], dtype=torch.double, requires_grad=True)
""")


@pytest.mark.parametrize("fn", ["Exp.apply", "sinh", "Cube.apply"])
def test_gradgradcheck_passes_on_the_double_backward_tutorials_functions(fn):
    assert printed(TUTORIAL + f"print(torch.autograd.gradcheck({fn}, x))\n"
                              f"print(torch.autograd.gradgradcheck({fn}, x))\n") == ["True", "True"]


# --- 2. Function as PyTorch 2 writes it ---------------------------------------

def test_setup_context_beside_a_forward_without_ctx():
    # PyTorch's MulConstant (tests/engine/autograd_api/extending_autograd.py), saving its output
    lines = printed(custom_function(
        "MulConstant", "return tensor * constant",
        "out, = ctx.saved_tensors; print(out.grad_fn); return grad_output * ctx.constant, None",
        grads="grad_output", inputs="tensor, constant",
        setup_context="tensor, constant = inputs; ctx.constant = constant; ctx.save_for_backward(output)")
        + """x = torch.tensor([1.0, 2.0], requires_grad=True)
MulConstant.apply(x, 5.0).sum().backward()
print(x.grad)
""")
    assert re.fullmatch(r"<torch\.autograd\.function\.MulConstantBackward object at 0x[0-9a-f]+>", lines[0])
    assert lines[1:] == ["tensor([5., 5.])"]


def test_mark_non_differentiable_output_has_no_grad_fn_and_its_gradient_is_zeros():
    assert printed("""
class NonDiff(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = (x > 1.5) * 1.0
        ctx.mark_non_differentiable(idx)
        return x * 2, idx
    @staticmethod
    def backward(ctx, g, gidx):
        print("gidx", gidx)
        return g * 2
x = torch.tensor([1.0, 2.0], requires_grad=True)
y, idx = NonDiff.apply(x)
print(idx.requires_grad, idx.grad_fn)
y.sum().backward()
print(x.grad)
""") == ["False None", "gidx tensor([0., 0.])", "tensor([2., 2.])"]


def test_set_materialize_grads_false_passes_none_for_an_unused_output():
    assert printed("""
class NoMat(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3
    @staticmethod
    def backward(ctx, g1, g2):
        print("grads", g1, g2)
        return g1 * 2
x = torch.tensor([1.0, 2.0], requires_grad=True)
a, b = NoMat.apply(x)
a.sum().backward()
print(x.grad)
""") == ["grads tensor([1., 1.]) None", "tensor([2., 2.])"]


MARK_DIRTY = """
class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 2
x = torch.tensor([1.0, 2.0], requires_grad=True)
"""


def test_mark_dirty_makes_the_input_the_output_of_the_node():
    assert printed(MARK_DIRTY + """
z = x * 1
w = Double.apply(z)
print(w is z, w, z._version)
w.sum().backward()
print(x.grad)
""") == ["True tensor([2., 4.], grad_fn=<DoubleBackward>) 2", "tensor([2., 2.])"]


def test_mark_dirty_on_a_leaf_that_requires_grad_is_pytorchs_error():
    fails(MARK_DIRTY + "Double.apply(x)\n", AutogradError,
          match="a leaf Variable that requires grad has been used in an in-place operation.")


def test_needs_input_grad_per_argument():
    assert printed("""
class Needs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, k):
        print("needs", ctx.needs_input_grad)
        return a * b * k
    @staticmethod
    def backward(ctx, g):
        return None, None, None
Needs.apply(torch.tensor(1.0, requires_grad=True), torch.tensor(2.0), 3.0)
""") == ["needs (True, False, False)"]


ONCE = "\nfrom torch.autograd.function import once_differentiable\n" + square_function("@once_differentiable")


def test_once_differentiable_first_order_works():
    assert printed(ONCE + """
g, = torch.autograd.grad(Sq.apply(x) * x, x, create_graph=True)
print(g)
print(torch.autograd.grad(Sq.apply(x), x))
""") == ["tensor(27., grad_fn=<AddBackward0>)", "(tensor(6.),)"]


def test_once_differentiable_double_backward_is_pytorchs_error():
    fails(ONCE + """
g, = torch.autograd.grad(Sq.apply(x) * x, x, create_graph=True)
g.backward()
""", AutogradError, match="^trying to differentiate twice a function that was marked with "
                         "@once_differentiable$")


def test_saved_tensors_after_the_graph_was_freed_is_pytorchs_error():
    fails(ONCE + """
y = Sq.apply(x)
y.backward()
y.grad_fn.saved_tensors
""", AutogradError, match=r"^Trying to backward through the graph a second time \(or directly access "
                         r"saved tensors after they have already been freed\)")


# --- 3. torch.autograd.functional ---------------------------------------------

def test_vjp_needs_v_for_an_output_of_several_elements():
    fails("torch.autograd.functional.vjp(lambda x: x * 2, torch.ones(2))\n", AutogradError,
          match="^The vector v can only be None if the user-provided function returns a single Tensor "
                "with a single element.$")


def test_jvp_needs_v_for_an_input_of_several_elements():
    fails("torch.autograd.functional.jvp(lambda x: x * 2, torch.ones(2))\n", AutogradError,
          match="^The vector v can only be None if the input to the user-provided function is a single "
                "Tensor with a single element.$")


@pytest.mark.parametrize("call, message", [
    ("vjp(lambda x: x * 2, torch.ones(2), torch.ones(3))",
     r"^v has invalid size: should be torch.Size\(\[2\]\) but got torch.Size\(\[3\]\).$"),
    ("vjp(lambda x, y: x * 2, (torch.ones(2), torch.ones(2)), torch.ones(2), strict=True)",
     "^The output of the user-provided function is independent of input 1. This is not allowed in "
     "strict mode.$"),
    ("jvp(lambda x: torch.ones(2), torch.ones(2), torch.ones(2), strict=True)",
     "^Output 0 of the user-provided function does not require gradients."),
    ("vhp(lambda x: x * 2, torch.ones(2), torch.ones(2))",
     "^The Tensor returned by the function given to vhp should contain a single element$"),
    ("hvp(lambda x: (x, x), torch.ones(1), torch.ones(1))",
     "^The function given to hvp should return a single Tensor$"),
    ("vhp(lambda x: (2 * x).sum(), torch.ones(2), torch.ones(2), strict=True)",
     "^While computing the hessian, found that the jacobian of the user-provided function with "
     "respect to input 0 is independent of the input."),
    ("jvp(lambda x: x, torch.ones(2), (torch.ones(2), torch.ones(2)))",
     "^The given v should contain a single Tensor.$"),
])
def test_functional_products_give_pytorchs_errors(call, message):
    fails(f"torch.autograd.functional.{call}\n", AutogradError, match=message)


def test_vjp_input_type_is_pytorchs_type_error():
    fails("torch.autograd.functional.vjp(lambda x: x, [torch.ones(1)])\n", ProgramTypeError,
          match="^The inputs given to vjp must be either a Tensor or a tuple of Tensors but the given "
                "inputs has type <class 'list'>.$")


def test_vjp_with_create_graph_is_differentiable_again():
    # d/dx of (v^T J) for f = x^3, v = 1: d(3x^2)/dx = 6x = 12 at x = 2
    assert printed("""
x = torch.tensor(2.0, requires_grad=True)
out, g = torch.autograd.functional.vjp(lambda t: t ** 3, x, create_graph=True)
print(out, g)
print(torch.autograd.grad(g, x))
""") == ["tensor(8., grad_fn=<PowBackward0>) tensor(12., grad_fn=<MulBackward0>)", "(tensor(12.),)"]


def test_jacobian_forward_mode_without_vectorize_is_pytorchs_error():
    fails("torch.autograd.functional.jacobian(lambda x: x * 2, torch.ones(2), strategy='forward-mode')\n",
          NotImplementedError, match="only implemented for `vectorize=True`")


def test_jacobian_unknown_strategy_is_pytorchs_error():
    fails("torch.autograd.functional.jacobian(lambda x: x, torch.ones(2), strategy='sideways')\n",
          AutogradError, match='^Expected strategy to be either "forward-mode" or "reverse-mode".')


def test_jacobian_and_hessian_accept_vectorize():
    assert printed("""
print(torch.autograd.functional.jacobian(lambda x: x ** 2, torch.tensor([1.0, 2.0]), vectorize=True))
print(torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]),
      vectorize=True, outer_jacobian_strategy='reverse-mode'))
""") == ["tensor([[2., 0.],", "        [0., 4.]])", "tensor([[ 6.,  0.],", "        [ 0., 12.]])"]


# --- 4. torch.func --------------------------------------------------------------

def test_jacrev_of_a_dict_result_is_a_dict_as_pytorchs():
    assert printed("print(torch.func.jacrev(lambda t: {'a': t * 2})(torch.tensor([1.0, 2.0])))\n") == [
        "{'a': tensor([[2., 0.],", "        [0., 2.]])}"]


def test_func_grad_of_a_non_scalar_is_pytorchs_error():
    fails("torch.func.grad(lambda x: x * 2)(torch.ones(2))\n", AutogradError,
          match=r"^grad_and_value\(f\)\(\*args\): Expected f\(\*args\) to return a scalar Tensor, "
                r"got tensor with 1 dims. Maybe you wanted to use the vjp or jacrev APIs instead\?$")


def test_func_grad_has_aux_needs_a_pair():
    fails("torch.func.grad(lambda x: x.sum(), has_aux=True)(torch.ones(2))\n", AutogradError,
          match=r"output of function f should be a tuple: \(output, aux\) if has_aux is True")


def test_func_grad_argnums_out_of_range():
    fails("torch.func.grad(lambda x: x.sum(), argnums=2)(torch.ones(2))\n", AutogradError,
          match="^Got argnums=2, but only 1 positional inputs$")


def test_func_grad_of_grad_and_jacrev_values():
    # d/dx x^3 = 3x^2 = 12, d2 = 6x = 12 at 2; jacrev of x*y by y = diag(x)
    assert printed("""
from torch.func import grad, jacrev
f = lambda x: x ** 3
x = torch.tensor(2.0)
print(grad(f)(x), grad(grad(f))(x), grad(grad(grad(f)))(x))
print(jacrev(lambda x, y: x * y, argnums=1)(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])))
""") == ["tensor(12.) tensor(12.) tensor(6.)", "tensor([[1., 0.],", "        [0., 2.]])"]


# --- 5. the graph as an object --------------------------------------------------

def test_grad_fn_is_a_node_and_node_prints_as_pytorchs_class():
    program = compile_program("x = torch.tensor(1.0, requires_grad=True)\ny = x * 2\n"
                              "print(torch.autograd.graph.Node)\n")
    lines = []
    result = program.run(stdout=lines.append, script=True)
    assert lines == ["<class 'torch.autograd.graph.Node'>"]
    assert isinstance(result.values["y"].grad_fn, Node)


@pytest.mark.parametrize("hook, error, message", [
    ("y.grad_fn.register_hook(lambda gi, go: 5)", ProgramTypeError, "^expected tuple, but hook returned 'int'$"),
    ("y.grad_fn.register_hook(lambda gi, go: (1, 2))", ProgramTypeError,
     "^expected Variable, but hook returned 'int'$"),
    ("y.grad_fn.register_hook(lambda gi, go: (go[0],))", AutogradError,
     r"^hook '<lambda>' has returned an incorrect number of values \(got 1, but expected 2\)$"),
    ("y.grad_fn.register_prehook(lambda go: 5)", ProgramTypeError, "^expected tuple, but hook returned 'int'$"),
    ("y.grad_fn.register_prehook(lambda go: (torch.ones(3),))", GradcliError,
     "^hook '<lambda>' has changed the size of value$"),
    ("y.grad_fn.register_prehook(lambda go: (print,))", ProgramTypeError,
     "^expected Variable, but hook returned 'builtin_function_or_method'$"),
])
def test_node_hooks_returning_the_wrong_thing_are_pytorchs_errors(hook, error, message):
    fails(f"x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 3\n{hook}\ny.sum().backward()\n",
          error, match=message)


def test_saved_names_are_pytorchs():
    assert printed("""
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0])
z = x * w
print(z.grad_fn._saved_other, z.grad_fn._saved_self)
e = x.exp()
print(e.grad_fn._saved_result)
s = (x / w).sum(dim=0, keepdim=True)
print(s.grad_fn._saved_keepdim)
""") == ["tensor([3., 4.]) None", "tensor([2.7183, 7.3891], grad_fn=<ExpBackward0>)", "True"]


def test_an_unknown_saved_name_is_an_attribute_error():
    fails("x = torch.tensor(1.0, requires_grad=True)\ny = x.exp()\nprint(y.grad_fn._saved_other)\n",
          ProgramError, match="^'ExpBackward0' object has no attribute '_saved_other'$")


def test_saved_value_after_backward_is_the_freed_error():
    fails("x = torch.tensor(1.0, requires_grad=True)\ny = x.exp()\ny.backward()\n"
          "print(y.grad_fn._saved_result)\n", AutogradError, match="^Trying to backward through the graph")


def test_unpack_hook_must_return_a_tensor():
    fails("""
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: 3):
    y = x * x
y.sum().backward()
""", ProgramTypeError, match="^Output of saved tensor unpack_hook expected to be a Tensor but got result "
                            "of type int$")


def test_saved_tensors_hooks_apply_to_a_custom_function():
    assert printed(square_function() + """with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 10, lambda p: p):
    y = Sq.apply(x)
y.backward()
print(x.grad)
""") == ["tensor(60.)"]


def test_post_accumulate_grad_hook_runs_after_grad_is_set_and_must_return_none():
    assert printed("""
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x.register_post_accumulate_grad_hook(lambda t: print("accumulated", t.grad))
(x * x).sum().backward()
h.remove()
(x * x).sum().backward()
print(x.grad)
""") == ["accumulated tensor([2., 4.])", "tensor([4., 8.])"]
    fails("x = torch.tensor([1.0], requires_grad=True)\nx.register_post_accumulate_grad_hook(lambda t: t)\n"
          "(x * x).sum().backward()\n", AutogradError)


def test_metadata_is_the_programs_own_dict_per_node():
    assert printed("""
x = torch.tensor(1.0, requires_grad=True)
y = x * 2
print(y.grad_fn.metadata)
y.grad_fn.metadata["k"] = 1
print(y.grad_fn.metadata, (x * 3).grad_fn.metadata)
""") == ["{}", "{'k': 1} {}"]


# --- 6. errors ----------------------------------------------------------------

INFERENCE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and "
    "use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)


def test_an_inference_tensor_cannot_be_saved_for_backward():
    error = fails("""
with torch.inference_mode():
    z = torch.tensor(2.0)
w = torch.tensor(2.0, requires_grad=True)
w * z
""", AutogradError)
    assert str(error) == INFERENCE_MESSAGE


def test_an_inference_tensor_that_is_not_saved_is_fine():
    # w + z saves nothing: PyTorch allows it
    assert printed("""
with torch.inference_mode():
    z = torch.tensor(2.0)
w = torch.tensor(2.0, requires_grad=True)
print(w + z)
with torch.no_grad():
    n = torch.tensor(2.0)
print(w * n)
""") == ["tensor(4., grad_fn=<AddBackward0>)", "tensor(4., grad_fn=<MulBackward0>)"]


def test_inference_mode_leaves_no_trace_on_tensor_creation():
    with inference_mode():
        pass
    assert "_make" in vars(_tensor.Tensor)
    assert vars(_tensor.Tensor)["_make"].__func__.__name__ == "_make"


def test_detect_anomaly_check_nan_false_does_not_stop():
    assert printed("""
with torch.autograd.detect_anomaly(check_nan=False):
    u = torch.tensor(-1.0, requires_grad=True)
    u.sqrt().backward()
    print(u.grad)
with torch.autograd.set_detect_anomaly(True, check_nan=True):
    print(torch.is_anomaly_enabled())
print(torch.is_anomaly_enabled())
""") == ["tensor(nan)", "True", "False"]


def test_set_detect_anomaly_stops_at_the_nan():
    try:
        fails("""
torch.autograd.set_detect_anomaly(True)
u = torch.tensor(-1.0, requires_grad=True)
u.sqrt().backward()
""", AutogradError, match="^Function 'SqrtBackward0' returned nan values in its 0th output.$")
    finally:
        anomaly.enabled[0] = False   # a switch for the whole process, as PyTorch's is


def test_backward_twice_through_packed_saved_tensors_is_the_freed_error():
    fails("""
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p):
    y = (x * x).sum()
y.backward()
y.backward()
""", AutogradError, match="^Trying to backward through the graph a second time")


def test_unpack_runs_at_each_backward_with_retain_graph():
    assert printed("""
x = torch.tensor([1.0, 2.0], requires_grad=True)
def unpack(p):
    print("unpack")
    return p
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
    y = (x.sin()).sum()
y.backward(retain_graph=True)
y.backward()
print(x.grad)
""") == ["unpack", "unpack", "tensor([ 1.0806, -0.8323])"]


def test_jacobian_strict_refuses_an_input_the_output_does_not_use():
    fails("torch.autograd.functional.jacobian(lambda x, y: x * 2, (torch.ones(2), torch.ones(2)), "
          "strict=True)\n", AutogradError,
          match="^Output 0 of the user-provided function is independent of input 1. This is not allowed "
                "in strict mode.$")
    fails("torch.autograd.functional.jacobian(lambda x: torch.ones(2), torch.ones(2), strict=True)\n",
          AutogradError, match="^Output 0 of the user-provided function does not require gradients.")


# the seed e13's backward and inputs, its forward written PyTorch 2's way (setup_context apart)
_E13_BACKWARD = (Path(__file__).resolve().parents[2] / "samples" / "e13_wrong_backward.py").read_text() \
    .split("    @staticmethod\n    def backward", 1)[1]
SETUP_CONTEXT_FUNC = '''
class Func(torch.autograd.Function):
    @staticmethod
    def forward(x, y):
        return 3 * x + 2 * y + torch.exp(x) + torch.exp(y)
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, y = inputs
        ctx.save_for_backward(torch.exp(x), torch.exp(y))
    @staticmethod
    def backward''' + _E13_BACKWARD.replace("(3 + expy)", "({dy} + expy)")


@pytest.mark.parametrize("dy, exit_code", [(2, 0), (3, 1)])
def test_gradcheck_command_checks_a_setup_context_function_symbolically_too(dy, exit_code):
    from typer.testing import CliRunner

    from gradcli.cli.app import app

    result = CliRunner().invoke(app, ["gradcheck", "-e", SETUP_CONTEXT_FUNC.format(dy=dy), "--json"],
                                catch_exceptions=False)
    assert result.exit_code == exit_code, result.output
    import json

    references = {(c["input"], c["reference"], c["ok"]) for c in json.loads(result.stdout)["checks"]}
    assert ("y", "sympy", dy == 2) in references and ("x", "sympy", True) in references


def test_saved_names_and_values_of_reductions_and_matmul_are_pytorchs():
    # checked against PyTorch 2.13's grad_fn attributes
    assert printed("""
x = torch.tensor([[0.3, 0.7], [1.2, 1.5]], requires_grad=True)
w = torch.tensor([[0.5, 0.9], [1.1, 0.4]], requires_grad=True)
a = x.sum(dim=0)
print(a.grad_fn._saved_dim, a.grad_fn._saved_keepdim, a.grad_fn._saved_self_sym_sizes)
b = x.mean()
print(b.grad_fn._saved_self_sym_numel, b.grad_fn._saved_self_sym_sizes)
c = x @ w
print(c.grad_fn._saved_self_sym_sizes, c.grad_fn._saved_mat2_sym_strides)
e = x[0]
print(e.grad_fn._saved_dim, e.grad_fn._saved_index)
g = x.max(dim=0)[0]
print(g.grad_fn._saved_dim, g.grad_fn._saved_keepdim, g.grad_fn._saved_indices)
print((x + w).grad_fn._saved_alpha)
""") == ["(0,) False (2, 2)", "4 (2, 2)", "(2, 2) (2, 1)", "0 0", "0 False tensor([1, 1])", "1"]


def test_saved_indices_of_an_index_node_are_the_languages_values():
    lines = printed("""
x = torch.tensor([[0.3, 0.7], [1.2, 1.5]], requires_grad=True)
y = x[[0, 1], 1:]
print(y.grad_fn._saved_indices)
""")
    assert lines == ["(None, (tensor([0, 1]),))"]


def test_vjp_is_pytorchs_other_name_for_backward():
    twice = custom_function("Twice", "return x * 2", "return g * 2").replace("def backward(", "def vjp(")
    assert "def vjp(ctx, g)" in twice
    assert printed(twice + """x = torch.tensor([1.0, 2.0], requires_grad=True)
Twice.apply(x).sum().backward()
print(x.grad)
""") == ["tensor([2., 2.])"]


ACCUMULATE_HOOKS = """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
acc = y.grad_fn.next_functions[0][0]
acc.register_hook(lambda gi, go: print("post", gi, go))
acc.register_prehook(lambda go: (go[0] + 1,))
"""


def test_hooks_on_accumulate_grad_run_when_it_accumulates():
    assert printed(ACCUMULATE_HOOKS + "y.sum().backward()\nprint(x.grad)\n") == [
        "post () (tensor([4., 4.]),)", "tensor([4., 4.])"]


def test_autograd_grad_does_not_run_the_accumulate_grad_node_or_its_hooks():
    assert printed(ACCUMULATE_HOOKS + "print(torch.autograd.grad(y.sum(), x))\n") == ["(tensor([3., 3.]),)"]


def test_retain_grad_sees_the_gradient_before_the_nodes_prehooks():
    # PyTorch 2.13: y.grad is the incoming gradient, the prehook's only reaches the node
    assert printed("""
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.retain_grad()
y.register_hook(lambda g: print("tensor hook", g))
y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
y.grad_fn.register_hook(lambda gi, go: print("post", gi, go))
y.sum().backward()
print(y.grad, x.grad)
""") == ["tensor hook tensor([1., 1.])", "post (tensor([30., 30.]), None) (tensor([10., 10.]),)",
         "tensor([1., 1.]) tensor([30., 30.])"]


def test_a_saved_output_changed_in_place_is_pytorchs_version_error():
    fails(EXP + """x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Exp.apply(x)
y.mul_(2)
y.sum().backward()
""", AutogradError, match=r"\[torch.DoubleTensor \[2\]\], which is output 0 of Exp, is at version 1; "
                         "expected version 0 instead.")
