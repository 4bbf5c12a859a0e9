"""Running an op: `apply`, the forward every op goes through, and the node it records.

What an op *is* (its entry, rules, node name) is in registry.py; this is what
happens when a program writes `x * y`: the inputs are unwrapped, the work is
charged to the budget before it is done, the dtypes are promoted, the numpy
forward runs, and, when an input requires grad and grad mode is on, a node is
recorded with edges to the inputs' nodes and what the rules will read saved.

`apply` is the hot path of the engine, written for speed (branches per arity,
caches, inlined helpers). reference.py holds the same semantics written plainly,
for reading first; tests/ops/test_apply_reference.py checks that the two agree on
every op's domain.
"""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import cast as _cast, get_default_dtype, promotion as _promotion, raw_key as _key
from ..dtypes import _CACHE as _PROMOTIONS   # one cache: cleared when the default dtype changes
from ..errors import ProgramTypeError
from .._tensor import MODIFICATIONS as _MODIFICATIONS, NEVER_MODIFIED as _NEVER_MODIFIED
from .._tensor import Tensor, _grad_enabled, check_elements
from ..limits import FREE_ELEMENTS as _FREE, NODE_WORK as _NODE_WORK, OP_WORK as _OP_WORK
from ..limits import budget as _budget
from ..graph import nodes as _graph
from ..graph.nodes import NOTHING_SAVED as _NOTHING, ONE_INPUT as _ONE_INPUT, OpNode, edge_to
from ..graph.nodes import accumulate_grad as _accumulator_of
from ..graph import saved_hooks as _saved_hooks
from ..graph.saved_hooks import hooks_or_inference as _saving
from .aliasing import link
from .dual import ACTIVE as _dual_levels, propagate as _propagate_tangents
from .batching import NOT_BATCHED as _NOT_BATCHED, ON as _batching, batched_apply as _batched_apply
from .shapes import broadcast as _broadcast, broadcast_shapes
from .torch_math import forward_for

ndarray = np.ndarray
_asarray = np.asarray
_generic = np.generic
_new_node = OpNode.__new__
_wrap = Tensor._make        # bound once: the hot path calls it for every result
_new_tensor = Tensor.__new__


def apply(op, inputs: tuple, params: dict | None = None):
    """Run `op` forward on `inputs` (Tensors or numbers) and record a node if needed.

    The hot path of the engine: one and two inputs have their own branches, and a
    node allocates as few objects as it can (each one is work for the cyclic
    garbage collector as the graph grows).
    """
    if _batching[0]:   # inside vmap (ops/batching.py): the one check it costs when off
        out = _batched_apply(op, inputs, params)
        if out is not _NOT_BATCHED:
            return out
    n = len(inputs)
    note = False   # whether an input's dtype differs from the result's (see `_promoted`)
    if n == 2:
        a, b = inputs
        mask = 0
        if a.__class__ is Tensor or isinstance(a, Tensor):
            x = a._data
            if a.requires_grad:
                mask = 1
        else:
            x = _plain(a, op, 0)
        cb = b.__class__
        if cb is float or cb is int:   # `y * 2.0`: a number, the most common second operand
            y = b
        elif cb is Tensor or isinstance(b, Tensor):
            y = b._data
            if b.requires_grad:
                mask |= 2
        else:
            y = _plain(b, op, 1)
        cx = x.__class__
        cy = y.__class__
        if cx is ndarray and cy is ndarray:
            if op.broadcasts:
                sx = x.shape
                sy = y.shape
                if sx != sy and sx and sy:
                    _check_shapes(sx, sy)
                if op.cost is not None or (sx or sy) and (x.size >= _FREE or y.size >= _FREE):
                    charge(op, (x, y), params)   # (two 0-d arrays are free: their shapes are read)
            elif op.cost is not None or x.size >= _FREE or y.size >= _FREE:
                charge(op, (x, y), params)
        else:
            if op.broadcasts and cx is not float and cy is not float:
                _check_broadcast(x, y)
            if op.cost is not None or cx is ndarray and x.size >= _FREE or cy is ndarray and y.size >= _FREE:
                charge(op, (x, y), params)
        want = None
        if op.promote is None:
            forward = op.forward
        elif cx is ndarray and x.dtype is op.float_dtype and (
                cy is float or cy is ndarray and y.dtype is op.float_dtype or cy is int):
            compute, want, prep, note, forward = op.float_hit   # (x, y of x's dtype: nothing to cast)
            if prep is not None:
                x, y = prep(x, compute), prep(y, compute)
        else:
            forward = op.forward
            # the promotion, cached by a flat key (cheaper to hash than `dtypes.raw_key`s)
            key = (op.promote, x.dtype if cx is ndarray else cx, cx is ndarray and x.ndim != 0,
                   y.dtype if cy is ndarray else cy, cy is ndarray and y.ndim != 0)
            hit = _PROMOTIONS.get(key)
            if hit is None:
                hit = _PROMOTIONS[key] = _promoted(op.promote, (x, y), ())
            if cx is ndarray and x.dtype.kind == "f" and hit[0] == x.dtype and (
                    cy is float or cy is ndarray and y.dtype is x.dtype or cy is int):
                op.float_dtype = x.dtype
                op.float_hit = hit + (forward_for(forward, x.dtype, hit[2]),)
            compute, want, prep, note = hit
            if compute is not None:
                if cx is ndarray and x.dtype is not compute and x.dtype != compute:
                    x = _cast(x, compute)
                if cy is ndarray and y.dtype is not compute and y.dtype != compute:
                    y = _cast(y, compute)
                if prep is not None:
                    if prep.__class__ is tuple:   # one preparation per operand (`dtypes.promotion`)
                        x, y = prep[0](x, compute), prep[1](y, compute)
                    else:
                        x, y = prep(x, compute), prep(y, compute)
        out = forward(x, y, **params) if params else forward(x, y)
    elif n == 1:
        a = inputs[0]
        if a.__class__ is Tensor or isinstance(a, Tensor):
            x = a._data
            mask = 1 if a.requires_grad else 0
        else:
            x = _plain(a, op, 0)
            mask = 0
        cx = x.__class__
        if op.cost is not None or cx is ndarray and x.size >= _FREE:
            charge(op, (x,), params)
        want = None
        numbers = op.number_params
        if op.promote is None:
            forward = op.forward
        elif cx is ndarray and x.dtype is op.float_dtype and numbers is None:
            compute, want, prep, note, forward = op.float_hit
            if prep is not None:
                x = prep(x, compute)
        else:
            forward = op.forward
            key = (op.promote, x.dtype if cx is ndarray else cx)   # one operand: its dims do not matter
            if numbers is not None:
                key += tuple([params[p].__class__ for p in numbers])
            hit = _PROMOTIONS.get(key)
            if hit is None:
                hit = _PROMOTIONS[key] = _promoted(
                    op.promote, (x,), () if numbers is None else tuple([params[p] for p in numbers]))
            if cx is ndarray and numbers is None and x.dtype.kind == "f" and hit[0] == x.dtype:
                op.float_dtype = x.dtype
                op.float_hit = hit + (forward_for(forward, x.dtype, hit[2]),)
            compute, want, prep, note = hit
            if compute is not None and cx is ndarray and x.dtype is not compute and x.dtype != compute:
                x = _cast(x, compute)
            if prep is not None:
                x = prep(x, compute)
                if numbers is not None:
                    params = {**params, **{p: prep(params[p], compute) for p in numbers}}
        out = forward(x, **params) if params else forward(x)
    else:
        arrays = []
        mask = 0
        bit = 1
        for i, t in enumerate(inputs):
            if isinstance(t, Tensor):
                arrays.append(t._data)
                if t.requires_grad:
                    mask |= bit
            else:
                arrays.append(_plain(t, op, i))
            bit <<= 1
        charge(op, arrays, params)
        want = None
        if op.promote is not None:
            compute, want, prep = _promotion(op.promote, tuple([_key(v) for v in arrays]))
            note = want is not None
            if compute is not None:
                arrays = [_cast(v, compute) if v.__class__ is ndarray and v.dtype != compute else v
                          for v in arrays]
                if prep is not None:
                    arrays = [prep(v, compute) for v in arrays]
        out = op.forward(*arrays, **params) if params else op.forward(*arrays)
        x = arrays[0] if arrays else None
    if op.n_outputs != 1:
        outs = _wrap_outputs(op, inputs, params, out, mask if mask and _grad_enabled[0] and op.differentiable else 0)
        return _propagate_tangents(op, inputs, params, outs) if _dual_levels[0] else outs
    if out.__class__ is not ndarray:
        # a numpy scalar (0-d results): keep its dtype (a comparison's bool, an index's int64)
        out = _asarray(out) if isinstance(out, _generic) else _asarray(out, dtype=_default_np())
    elif out.size > _budget.max_elements:
        check_elements(out.size)
    if want is not None and out.dtype is not want and out.dtype != want:
        out = _cast(out, want)   # a forward that computed wider (float64 inside) or narrower
    if not mask or not _grad_enabled[0] or not op.differentiable:
        _budget.work += _OP_WORK   # no node to charge: the op's own time (checked at the next charge)
        result = _wrap(out)
    else:
        node = _make_node(op, inputs, params, mask, out.shape)
        if note:
            _note_input_dtypes(node, inputs, out.dtype)
        version = _NEVER_MODIFIED
        if node.result is not None:   # the node checks the result's own counter at backward
            version = [0]
            node.result = out
            node._result_counter = version
            if _saving[0]:
                _saved_hooks.on_save_result(node)
        # Tensor._make(out, node, True, 0, version), inlined: the hot path
        # (tests/engine/test_promotion_cache.py checks it sets what _make sets)
        result = _new_tensor(Tensor)
        result._data = out
        result._grad = None
        result.grad_fn = node
        result.requires_grad = True
        result._output_nr = 0
        result._counter = version
        result._hooks = None
        result._accumulator = None
        result._retains_grad = False
        result._base = None
        result._views = None
    if out.base is not None or out is x:
        result = link(result, inputs[0])  # maybe a view of its input (select, reshape...)
    if _dual_levels[0]:   # forward mode (ops/dual.py): the one check it costs when off
        return _propagate_tangents(op, inputs, params, result)
    return result


def _promoted(kind: str, operands: tuple, numbers: tuple) -> tuple:
    """A promotion (`dtypes.promotion`) and whether an array operand's dtype differs from
    the result's: only then does a node keep its inputs' dtypes (`_note_input_dtypes`)."""
    compute, want, prep = _promotion(kind, tuple([_key(v) for v in operands + numbers]))
    note = want is not None and any(v.__class__ is ndarray and v.dtype != want for v in operands)
    return compute, want, prep, note


def charge(op, arrays, params) -> None:
    """Charge the budget for an op before it runs: its cost function's estimate, else
    its inputs' elements times its weight (ops/costs.py; a broadcast's output is charged
    by `_check_broadcast`)."""
    cost = op.cost
    if cost is None:
        count = 0
        for a in arrays:
            count += getattr(a, "size", 1)
        count *= op.weight
    else:
        count = cost(*arrays, **params) if params else cost(*arrays)
    _budget.charge_elements(count)


def _make_node(op, inputs: tuple, params, mask: int, out_shape) -> OpNode:
    budget = _budget  # charge the node (WorkBudget.node_made, inlined: the hot path)
    budget.work += _NODE_WORK
    if budget.work > budget.max_work:
        raise budget.exhausted()
    node = _new_node(OpNode)
    node.op = op
    node.made_at = _MODIFICATIONS[0]
    n = len(inputs)
    # the edges: bit i of `mask` is set exactly when input i is a Tensor that requires grad.
    # The one- and two-input branches repeat each other on purpose (`duplicates` lists them):
    # the hot path of every op, where a helper call per input costs more than the copy.
    if n == 2:
        a, b = inputs
        na = nb = None
        ra = rb = 0
        if mask & 1:
            na = a.grad_fn
            if na is None:
                na = a._accumulator   # a leaf's AccumulateGrad (`_accumulate_grad`, inlined)
                na = na() if na is not None else None
                if na is None:
                    na = _accumulator_of(a)
            else:
                ra = a._output_nr
        if mask & 2:
            nb = b.grad_fn
            if nb is None:
                nb = b._accumulator
                nb = nb() if nb is not None else None
                if nb is None:
                    nb = _accumulator_of(b)
            else:
                rb = b._output_nr
        node.next0 = na
        node.next1 = nb
        node.next_nrs = (ra, rb) if ra or rb else (0, 0)   # a constant: one shared tuple
    elif n == 1:
        a = inputs[0]
        na = None
        ra = 0
        if mask:
            na = a.grad_fn
            if na is None:
                na = a._accumulator   # a leaf's AccumulateGrad (`_accumulate_grad`, inlined)
                na = na() if na is not None else None
                if na is None:
                    na = _accumulator_of(a)
            else:
                ra = a._output_nr
        node.next0 = na
        node.next1 = _ONE_INPUT
        node.next_nrs = (ra,) if ra else (0,)
    else:
        node.next_functions = [edge_to(t) for t in inputs]
    node.source = _graph._current_source[0]
    node._tensor_hooks = None
    node.params = params
    node.released = False
    node._result_counter = None
    node.result_version = 0
    plan = op._save_cache.get(mask)
    save_inputs, save_result, unchanged, partial = plan if plan is not None else op.save_plan(mask)
    if save_inputs is None:
        node.saved = node.versions = _NOTHING
    else:
        # `saved` is aligned with the inputs (a None version marks an unsaved one): the inputs
        # tuple itself when every input is saved; else a tensor not saved is None there, so
        # that the node does not keep it alive (`y * 2.0` saves only the 2.0: a tuple of
        # untracked objects, which the collector stops walking, and y can go)
        if n == 2:
            keep_a, keep_b = save_inputs
        if not partial:
            node.saved = inputs
        elif n == 2:
            node.saved = (a if keep_a or a.__class__ is not Tensor else None,
                          b if keep_b or b.__class__ is not Tensor else None)
        else:
            node.saved = tuple([t if keep or t.__class__ is not Tensor else None
                                for t, keep in zip(inputs, save_inputs)])
        # the versions at save time: `unchanged` (all 0) unless a saved tensor was modified
        if n == 1:
            modified = a.__class__ is Tensor and a._counter[0]
        elif n == 2:
            modified = (keep_a and a.__class__ is Tensor and a._counter[0]
                        or keep_b and b.__class__ is Tensor and b._counter[0])
        else:
            modified = any(keep and t.__class__ is Tensor and t._counter[0]
                           for t, keep in zip(inputs, save_inputs))
        node.versions = unchanged if not modified else tuple([
            (t._counter[0] if isinstance(t, Tensor) else 0) if keep else None
            for t, keep in zip(inputs, save_inputs)
        ])
    node.result = True if save_result else None
    shapes = None
    if op.needs_shapes:   # (shapes None: nothing was broadcast, nothing to sum back)
        if n == 2:   # compared one by one, not by a loop over a tuple: every binary op's path
            cb = b.__class__
            sa = a._data.shape if a.__class__ is Tensor else _shape(a)
            sb = b._data.shape if cb is Tensor else () if cb is float or cb is int else _shape(b)
            if op.reads_shapes or sa != out_shape or sb != out_shape:
                shapes = (sa, sb)
        else:
            shapes = tuple([_shape(t) for t in inputs])
            if not op.reads_shapes:
                for shape in shapes:
                    if shape != out_shape:
                        break
                else:
                    shapes = None
    node.shapes = shapes
    node.out_shapes = None
    node.n_outputs = 1
    node.in_dtypes = None
    if _saving[0] and save_inputs is not None:
        _saved_hooks.on_save(node)   # saved_tensors_hooks, inference tensors
    observer = _graph._node_observer[0]
    if observer is not None:
        observer(node, inputs)
    return node


def _note_input_dtypes(node: OpNode, inputs, dtype) -> None:
    """Keep the dtype of each input whose dtype the result does not have (a promoted op)."""
    for t in inputs:  # a loop, not any(genexpr): this runs for every node recorded
        if t.__class__ is Tensor and t._data.dtype is not dtype and t._data.dtype != dtype:
            node.in_dtypes = tuple(u._data.dtype if isinstance(u, Tensor) and u._data.dtype != dtype
                                   else None for u in inputs)
            return


def _wrap_outputs(op, inputs, params, outs, mask):
    """Tensors for a multi-output op (unbind, max(dim)): output k is reached with index k."""
    node = _make_node(op, inputs, params, mask, None) if mask else None
    if node is None:
        _budget.work += _OP_WORK
    else:
        node.result = None
        node.out_shapes = tuple(np.shape(o) for o in outs)
        node.n_outputs = len(outs)
    results = []
    for k, out in enumerate(outs):
        out = np.asarray(out)
        differentiable = node is not None and out.dtype != np.int64
        result = Tensor._make(out, node if differentiable else None, differentiable, k)
        results.append(result if out.base is None else link(result, inputs[0], k))
    return tuple(results)


_NUMBERS = (float, int, np.number, np.bool_)


def _default_np():
    return get_default_dtype().np


def _plain(value, op, position: int):
    """An input that is not a Tensor: a number (or an array from the engine itself).

    Anything else (a list, a range) is PyTorch's TypeError, before numpy would
    try to make an array of it, however large.
    """
    if value is None or isinstance(value, _NUMBERS) or value.__class__ is ndarray:
        return value  # None: an optional tensor input left out (clamp's max)
    name = op.inputs[position] if position < len(op.inputs) else f"input {position}"
    raise ProgramTypeError(
        f"{op.name}(): argument '{'input' if name == 'self' else name}' (position {position + 1}) "
        f"must be Tensor, not {type(value).__name__}"
    )


def _shape(t) -> tuple:
    """The shape of an op input: a Tensor's, () for a number (np.shape is slow on those)."""
    if t.__class__ is Tensor or isinstance(t, Tensor):
        return t._data.shape
    if t.__class__ is ndarray:
        return t.shape
    return () if isinstance(t, (float, int)) else np.shape(t)


def _check_broadcast(a, b) -> None:
    if a.__class__ is not ndarray or b.__class__ is not ndarray:
        if isinstance(a, (float, int)) or isinstance(b, (float, int)):
            return  # a number broadcasts with anything
    sa = np.shape(a)
    sb = np.shape(b)
    if sa != sb and sa and sb:
        _check_shapes(sa, sb)


def _check_shapes(sa: tuple, sb: tuple) -> None:
    """Two shapes that differ, neither (): PyTorch's error if they do not broadcast, else
    the broadcast output's size checked against the element limit."""
    try:
        shape = _broadcast(sa, sb)
    except ValueError:
        broadcast_shapes(sa, sb)   # raises PyTorch's error
        raise
    check_elements(math.prod(shape))
