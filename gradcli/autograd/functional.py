"""torch.autograd.functional: whole Jacobians and Hessians, built on `grad`.

An input the output does not depend on gets zeros (the mathematical answer),
as PyTorch's functional API gives it.
"""
from __future__ import annotations

import numpy as np

from ..errors import AutogradError, ProgramError, ProgramTypeError
from .._tensor import Tensor, check_elements, enable_grad
from ..graph.callback import call_program
from .engine import grad
from ..ops.dual import detached


def _as_tuple(x):
    return (tuple(x), True) if isinstance(x, (tuple, list)) else ((x,), False)


def _class(value) -> str:
    from ..errors import type_name

    return f"<class '{type_name(value)}'>"


def _checked_inputs(inputs, api: str):
    """PyTorch's check of the inputs: a Tensor or a tuple of Tensors."""
    given = inputs
    inputs, multi = _as_tuple(inputs)
    for k, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            which = f"the value at index {k}" if multi else "the given inputs"
            raise ProgramTypeError(f"The inputs given to {api} must be either a Tensor or a tuple of Tensors "
                                   f"but {which} has type {_class(x if multi else given)}.")
    return inputs, multi


def _checked_outputs(outputs, api: str):
    """PyTorch's check of what the function returned: a Tensor or a tuple of Tensors."""
    if isinstance(outputs, Tensor):
        return (outputs,), False
    if isinstance(outputs, tuple) and all(isinstance(o, Tensor) for o in outputs):
        return outputs, True
    raise ProgramTypeError(f"The outputs of the user-provided function given to {api} must be either a "
                           "Tensor or a tuple of Tensors but the given outputs of the user-provided "
                           f"function has type {_class(outputs)}.")


def _rows(output: Tensor, inputs, create_graph: bool, strict_index=None):
    """d output / d inputs as one tensor per input of shape output.shape + input.shape."""
    n = output._data.size
    for x in inputs:  # the block's size, before n backward passes build it
        check_elements(n * x._data.size)
    return jacobian_blocks(output, inputs, create_graph, strict_index)


def jacobian_blocks(output: Tensor, inputs, create_graph: bool = False, strict_index=None) -> list:
    """The one-hot loop of every Jacobian (this API's and gradcheck's): one backward per
    element of `output`, zeros for an input it does not use; one tensor per input, of
    shape output.shape + input.shape. With `strict_index` (the output's index), an input
    the output does not use is PyTorch's strict-mode error instead."""
    from .. import ops

    blocks = [[] for _ in inputs]
    n = output._data.size
    for r in range(n):
        seed = np.zeros(n, dtype=output._data.dtype)   # the output's dtype: a float32 Jacobian stays float32
        seed[r] = 1.0
        if output.requires_grad:
            grads = grad(output, inputs, Tensor._make(seed.reshape(output._data.shape)),
                         retain_graph=True, create_graph=create_graph, allow_unused=True)
        else:
            grads = (None,) * len(inputs)
        for k, (g, x) in enumerate(zip(grads, inputs)):
            if g is None and strict_index is not None:
                raise AutogradError(f"Output {strict_index} of the user-provided function is independent "
                                    f"of input {k}. This is not allowed in strict mode.")
            blocks[k].append(g if g is not None else Tensor._make(np.zeros_like(x._data)))
    result = []
    for k, x in enumerate(inputs):
        if create_graph:
            stacked = ops.FUNCTIONS["stack"](blocks[k]) if n else Tensor._make(np.zeros((0,) + x._data.shape))
            result.append(ops.FUNCTIONS["reshape"](stacked, output._data.shape + x._data.shape))
        else:
            data = np.stack([b._data for b in blocks[k]]) if n else np.zeros((0,) + x._data.shape)
            result.append(Tensor._make(data.reshape(output._data.shape + x._data.shape)))
    return result


class _NotImplemented(ProgramError, NotImplementedError):
    """PyTorch's NotImplementedError (a program may catch it as such)."""


def _check_strategy(strategy, vectorize, strict: bool = False) -> bool:
    """PyTorch's checks of the strategy; whether it is forward mode (as PyTorch reads it,
    only with vectorize=True and strict=False)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AutogradError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If '
                            'your function has more outputs than inputs, "forward-mode" tends to be more '
                            'performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if strict:
            raise AutogradError("torch.autograd.functional.jacobian: `strict=True` and "
                                "`strategy=\"forward-mode\"` are not supported together (yet). Please either "
                                "set `strict=False` or `strategy=\"reverse-mode\"`.")
        if not vectorize:
            raise _NotImplemented("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                               "only implemented for `vectorize=True`.")
        return True
    return False


def _forward_jacobian(func, inputs, multi_in: bool, create_graph: bool):
    """The Jacobian column by column: one forward-mode pass per input element."""
    from .. import ops
    from .forward_ad import _jvp

    columns = []
    outputs = multi_out = None
    for k, x in enumerate(inputs):
        for j in range(x._data.size):
            basis = np.zeros(x._data.size, dtype=x._data.dtype)
            basis[j] = 1.0
            vs = tuple(Tensor._make(basis.reshape(x._data.shape)) if m == k else Tensor._make(np.zeros_like(y._data))
                       for m, y in enumerate(inputs))
            outs, touts, rebuild, _ = _jvp(lambda *xs: func(*xs), tuple(inputs), vs, False, "jacobian")
            if multi_out is None:
                multi_out = _checked_outputs(rebuild(outs), "jacobian")[1]
            outputs = outs
            columns.append((k, touts))
    if outputs is None:
        outputs, multi_out = _checked_outputs(call_program("jacobian", None, func, *inputs), "jacobian")
    rows = []
    for o_index, o in enumerate(outputs):
        per_input = []
        for k, x in enumerate(inputs):
            cols = [touts[o_index] for kk, touts in columns if kk == k]
            check_elements(o._data.size * x._data.size)
            if cols:
                block = ops.FUNCTIONS["reshape"](ops.FUNCTIONS["stack"](cols, -1), o._data.shape + x._data.shape)
            else:
                block = Tensor._make(np.zeros(o._data.shape + x._data.shape, dtype=o._data.dtype))
            per_input.append(block if create_graph else block.detach())
        rows.append(per_input)
    # lists where reverse mode has tuples, as PyTorch's forward-mode jacobian returns them
    if not multi_out:
        return list(rows[0]) if multi_in else rows[0][0]
    return [list(r) for r in rows] if multi_in else tuple(r[0] for r in rows)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of `func` at `inputs`: J[i][j] has shape out_i.shape + in_j.shape.

    By rows (reverse mode), or by columns with strategy="forward-mode" (which PyTorch
    allows only with vectorize=True; gradcli computes the columns one by one)."""
    forward = _check_strategy(strategy, vectorize, strict)
    inputs, multi_in = _checked_inputs(inputs, "jacobian")
    if forward:
        inputs = tuple(x if create_graph and x.requires_grad else x.detach() for x in inputs)
        with enable_grad():
            return _forward_jacobian(func, inputs, multi_in, create_graph)
    inputs = tuple(detached(x).requires_grad_() if not x.requires_grad or not create_graph else x
                   for x in inputs)
    with enable_grad():
        outputs, multi_out = _checked_outputs(call_program("jacobian", None, func, *inputs),
                                              "jacobian")
        if strict:
            from .products import check_requires_grad

            check_requires_grad(outputs, "outputs", strict)
        rows = [_rows(o, inputs, create_graph, i if strict else None) for i, o in enumerate(outputs)]
    if not multi_out:
        return tuple(rows[0]) if multi_in else rows[0][0]
    return tuple(tuple(r) if multi_in else r[0] for r in rows)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar `func`: H[i][j] has shape in_i.shape + in_j.shape."""
    inputs, multi_in = _checked_inputs(inputs, "hessian")
    forward = _check_strategy(outer_jacobian_strategy, vectorize, strict)

    def gradient(*xs):
        # leaves to differentiate by (forward over reverse passes inputs that need none; their
        # tangents carry over)
        xs = tuple(x if x.requires_grad else detached(x).requires_grad_() for x in xs)
        outs, _ = _checked_outputs(call_program("hessian", None, func, *xs), "hessian")
        if len(outs) != 1:
            raise AutogradError("The function given to hessian should return a single Tensor")
        out = outs[0]
        if out._data.size != 1:
            raise AutogradError("The Tensor returned by the function given to hessian should contain a "
                                "single element")
        grads = grad(out, xs, create_graph=True, allow_unused=True)
        return tuple(g if g is not None else Tensor._make(np.zeros_like(x._data)) for g, x in zip(grads, xs))

    if forward:   # forward over reverse: the tangents of the gradient, column by column
        result = jacobian(gradient, inputs if multi_in else inputs[0], create_graph=create_graph,
                          vectorize=True, strategy="forward-mode")
    else:
        result = jacobian(gradient, inputs if multi_in else inputs[0], create_graph=create_graph)
    if not multi_in:
        return result[0] if isinstance(result, (tuple, list)) else result
    return result
