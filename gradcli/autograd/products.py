"""torch.autograd.functional's vector products: vjp, jvp, vhp, hvp.

vjp and vhp are compositions of `grad`; jvp is forward mode and hvp forward
over reverse (ops/dual.py). With strict=True, jvp and hvp use the double-vjp
trick PyTorch uses (the vjp with respect to a zero cotangent that requires grad
is linear in that cotangent; differentiating it by the cotangent gives the
forward product), whose intermediate results its strict-mode messages name. Return structures, `strict` and PyTorch's messages follow
torch/autograd/functional.py.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..errors import AutogradError, ProgramTypeError
from .._tensor import Tensor, _grad_enabled, enable_grad, set_grad_enabled
from ..graph.callback import call_program
from .engine import grad
from ..ops.dual import detached


def _class(value) -> str:
    from ..errors import type_name

    return f"<class '{type_name(value)}'>"


def as_tuple(value, arg_name: str, fn_name: str):
    """(is_tuple, tensors): PyTorch's check that `value` is a Tensor or a tuple of Tensors."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            which = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise ProgramTypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple "
                                   f"of Tensors but {which} has type {_class(item)}.")
    return is_tuple, items


def _alias(t: Tensor) -> Tensor:
    from .. import ops

    return ops.FUNCTIONS["reshape"](t, t._data.shape)


def grad_preprocess(inputs, create_graph: bool, need_graph: bool) -> tuple:
    """Inputs the function runs on: linked to the caller's graph only under create_graph."""
    return tuple(_alias(t) if create_graph and t.requires_grad
                 else detached(t).requires_grad_(need_graph) for t in inputs)


def postprocess(tensors, create_graph: bool) -> tuple:
    return tuple(tensors) if create_graph else tuple(detached(t) for t in tensors)


def unpack(values, is_tuple: bool):
    return values if is_tuple else values[0]


def _validate_v(v, other, other_is_tuple: bool) -> None:
    if len(other) != len(v):
        if other_is_tuple:
            raise AutogradError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise AutogradError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a._data.shape != b._data.shape:
            prefix = f"Entry {i} in " if other_is_tuple else ""
            raise AutogradError(f"{prefix}v has invalid size: should be {b.shape} but got {a.shape}.")


_REQUIRES_GRAD_MESSAGES = {
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with "
                "respect to input {i} is independent of the input. This is not allowed in strict mode. "
                "You should ensure that your function is twice differentiable and that the jacobian "
                "depends on the inputs (this would be violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of "
               "the input. This is not allowed in strict mode. You should ensure that your function is "
               "thrice differentiable and that the hessian depends on the inputs.",
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be "
               "computed in a differentiable manner from the input when running in strict mode.",
}


def check_requires_grad(tensors, kind: str, strict: bool) -> None:
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise AutogradError(f"The output of the user-provided function is independent of input {i}. "
                                "This is not allowed in strict mode.")
        if not t.requires_grad:
            raise AutogradError(_REQUIRES_GRAD_MESSAGES[kind].format(i=i))


def autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None) -> tuple:
    """grad over the outputs that require grad; all None when none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return grad([o for o, _ in kept], list(inputs), [g for _, g in kept], retain_graph=retain_graph,
                create_graph=create_graph, allow_unused=True)


_STAGE_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed "
            "in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs "
                  "when using the double backward trick to compute forward mode gradients. This is not "
                  "allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not "
                   "allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
                         "double backward trick to replace forward mode AD.",
}


def fill_in_zeros(grads, refs, strict: bool, create_graph: bool, stage: str) -> tuple:
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise AutogradError(_STAGE_MESSAGES[stage].format(i=i))
            g = Tensor._make(np.zeros_like(refs[i]._data))
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise AutogradError(f"The {what} of the user-provided function is independent of input {i}. "
                                "This is not allowed in strict mode when create_graph=True.")
        out.append(g)
    return tuple(out)


def _prepare_v(v, reference, reference_is_tuple: bool, create_graph: bool, fn_name: str,
               none_message: str, none_ok: bool):
    if v is not None:
        _, v = as_tuple(v, "v", fn_name)
        v = grad_preprocess(v, create_graph, need_graph=False)
        _validate_v(v, reference, reference_is_tuple)
        return v
    if not none_ok:
        raise AutogradError(none_message)
    return None


_V_FOR_INPUT = ("The vector v can only be None if the input to the user-provided function is a single "
                "Tensor with a single element.")


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product, shaped as the inputs."""
    with enable_grad():
        inputs_tuple, inputs = as_tuple(inputs, "inputs", "vjp")
        inputs = grad_preprocess(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = as_tuple(call_program("vjp", None, func, *inputs), "outputs of the user-provided function", "vjp")
        check_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(v, outputs, outputs_tuple, create_graph, "vjp",
                       "The vector v can only be None if the user-provided function returns a single "
                       "Tensor with a single element.",
                       len(outputs) == 1 and outputs[0]._data.size == 1)
    with set_grad_enabled(True if create_graph else _grad_enabled[0]):
        result = fill_in_zeros(autograd_grad(outputs, inputs, v, create_graph), inputs, strict,
                               create_graph, "back")
    return (unpack(postprocess(outputs, create_graph), outputs_tuple),
            unpack(postprocess(result, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, shaped as the outputs.

    By forward mode; with strict=True by the double-vjp trick, as PyTorch computes it
    (its strict-mode checks and messages are about that trick's intermediate results)."""
    if not strict:
        return _forward_jvp(func, inputs, v, create_graph)
    with enable_grad():
        inputs_tuple, inputs = as_tuple(inputs, "inputs", "jvp")
        inputs = grad_preprocess(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, create_graph, "jvp", _V_FOR_INPUT,
                       len(inputs) == 1 and inputs[0]._data.size == 1)
        outputs_tuple, outputs = as_tuple(call_program("jvp", None, func, *inputs), "outputs of the user-provided function", "jvp")
        check_requires_grad(outputs, "outputs", strict)
        cotangents = tuple(Tensor._make(np.zeros_like(o._data), requires_grad=True) for o in outputs)
        grad_inputs = autograd_grad(outputs, inputs, cotangents, create_graph=True)
        check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else _grad_enabled[0]):
        result = fill_in_zeros(autograd_grad(grad_inputs, cotangents, v, create_graph), outputs, strict,
                               create_graph, "back_trick")
    return (unpack(postprocess(outputs, create_graph), outputs_tuple),
            unpack(postprocess(result, create_graph), outputs_tuple))


@contextmanager
def _made_dual(inputs, v, create_graph: bool, name: str, need_graph: bool):
    """The inputs of functional.jvp/hvp prepared as PyTorch checks them and made dual along v
    (ones for one scalar input), in a dual level of their own: (inputs_tuple, inputs, level,
    duals). The outputs lose their tangents when the level ends; the tensors are kept."""
    from ..ops import dual
    from .forward_ad import dual_view

    inputs_tuple, inputs = as_tuple(inputs, "inputs", name)
    inputs = grad_preprocess(inputs, create_graph, need_graph=need_graph)
    v = _prepare_v(v, inputs, inputs_tuple, create_graph, name, _V_FOR_INPUT,
                   len(inputs) == 1 and inputs[0]._data.size == 1)
    if v is None:
        v = (Tensor._make(np.ones_like(inputs[0]._data)),)
    level = dual.enter_level(graph=create_graph)
    try:
        yield inputs_tuple, inputs, level, tuple(dual_view(x, t, level) for x, t in zip(inputs, v))
    finally:
        dual.exit_level(level)


def _forward_jvp(func, inputs, v, create_graph: bool):
    """functional.jvp by forward mode: one pass with the inputs made dual."""
    with enable_grad(), _made_dual(inputs, v, create_graph, "jvp", create_graph) as (_, _, level, duals):
        outputs_tuple, outputs = as_tuple(call_program("jvp", None, func, *duals),
                                          "outputs of the user-provided function", "jvp")
        tangents = tuple(level.get(o) for o in outputs)
        tangents = tuple(t if t is not None else Tensor._make(np.zeros_like(o._data))
                         for t, o in zip(tangents, outputs))
    return (unpack(postprocess(outputs, create_graph), outputs_tuple),
            unpack(postprocess(tangents, create_graph), outputs_tuple))


def _forward_hvp(func, inputs, v, create_graph: bool):
    """functional.hvp forward over reverse: H v is the tangent of the gradient along v."""
    with enable_grad(), _made_dual(inputs, v, create_graph, "hvp", True) as (inputs_tuple, inputs, level,
                                                                              duals):
        outputs = _scalar_output(func, duals, "hvp", False)
        jac = autograd_grad(outputs, duals, create_graph=True)
        result = tuple(Tensor._make(np.zeros_like(x._data)) if g is None or level.get(g) is None
                       else level.get(g) for g, x in zip(jac, inputs))
    return (postprocess(outputs, create_graph)[0],
            unpack(postprocess(result, create_graph), inputs_tuple))


def _scalar_output(func, inputs, fn_name: str, strict: bool):
    outputs_tuple, outputs = as_tuple(call_program(fn_name, None, func, *inputs), "outputs of the user-provided function", fn_name)
    check_requires_grad(outputs, "outputs", strict)
    if outputs_tuple:
        raise AutogradError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0]._data.size != 1:
        raise AutogradError(f"The Tensor returned by the function given to {fn_name} should contain a "
                            "single element")
    return outputs


def _hessian_product(func, inputs, v, create_graph, strict, fn_name):
    with enable_grad():
        inputs_tuple, inputs = as_tuple(inputs, "inputs", fn_name)
        inputs = grad_preprocess(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, create_graph, fn_name, _V_FOR_INPUT,
                       len(inputs) == 1 and inputs[0]._data.size == 1)
        outputs = _scalar_output(func, inputs, fn_name, strict)
        jac = autograd_grad(outputs, inputs, create_graph=True)
        check_requires_grad(jac, "jacobian", strict)
        if fn_name == "hvp":
            grad_jac = tuple(Tensor._make(np.zeros_like(t._data), requires_grad=True) for t in inputs)
            double_back = autograd_grad(jac, inputs, grad_jac, create_graph=True)
            check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else _grad_enabled[0]):
        if fn_name == "hvp":
            result = fill_in_zeros(autograd_grad(double_back, grad_jac, v, create_graph), inputs, strict,
                                   create_graph, "double_back_trick")
        else:
            result = fill_in_zeros(autograd_grad(jac, inputs, v, create_graph), inputs, strict,
                                   create_graph, "double_back")
    return (postprocess(outputs, create_graph)[0],
            unpack(postprocess(result, create_graph), inputs_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) of a scalar function."""
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) of a scalar function: forward over reverse; with strict=True by
    the double-vjp trick, whose strict-mode messages PyTorch gives."""
    if not strict:
        return _forward_hvp(func, inputs, v, create_graph)
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")
