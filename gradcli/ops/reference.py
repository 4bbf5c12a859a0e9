"""`apply` written plainly: read this first, then apply.py.

`reference_apply(op, inputs, params)` does what `apply.apply` does, step by step,
with no branch per arity, no cache and nothing inlined. The fast version is
the one every op goes through; this one is the specification it is tested
against (tests/ops/test_apply_reference.py runs both on every op's domain and
compares values, dtypes, node names, saved values and gradients).
"""
from __future__ import annotations

import numpy as np

from ..dtypes import get_default_dtype, promotion, raw_key
from ..limits import OP_WORK, budget
from .._tensor import MODIFICATIONS, NEVER_MODIFIED, Tensor, check_elements, is_grad_enabled
from ..graph import nodes, saved_hooks
from ..graph.nodes import NOTHING_SAVED, OpNode, edge_to
from .aliasing import link
from .apply import _check_broadcast, _plain, _wrap_outputs, charge


def reference_apply(op, inputs: tuple, params: dict | None = None):
    """Run `op` on `inputs` (Tensors or numbers) and record its node when one is needed."""
    params = dict(params or {})
    # 1. the arrays the forward runs on; anything that is neither a Tensor nor a number is refused
    arrays = [t._data if isinstance(t, Tensor) else _plain(t, op, i) for i, t in enumerate(inputs)]
    # 2. shapes that must broadcast are checked, then the work is charged, before it is done
    if op.broadcasts and len(arrays) == 2:
        _check_broadcast(*arrays)
    charge(op, arrays, params)
    # 3. type promotion: the dtype to compute in, the dtype of the result, a preparation
    want = None
    if op.promote is not None:
        numbers = [params[p] for p in op.number_params or ()]
        compute, want, prep = promotion(op.promote, tuple(raw_key(v) for v in arrays + numbers))
        if compute is not None:
            arrays = [v.astype(compute) if isinstance(v, np.ndarray) and v.dtype != compute else v
                      for v in arrays]
        if isinstance(prep, tuple):                      # one preparation per operand
            arrays = [p(v, compute) for p, v in zip(prep, arrays)]
        elif prep is not None:
            arrays = [prep(v, compute) for v in arrays]
            params.update({p: prep(params[p], compute) for p in op.number_params or ()})
    # 4. the forward, on numpy arrays
    out = op.forward(*arrays, **params)
    mask = sum(1 << i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad)
    record = bool(mask) and is_grad_enabled() and op.differentiable
    if op.n_outputs != 1:
        return _wrap_outputs(op, inputs, params, out, mask if record else 0)
    if not isinstance(out, np.ndarray):
        out = np.asarray(out) if isinstance(out, np.generic) else np.asarray(out, dtype=get_default_dtype().np)
    check_elements(out.size)
    if want is not None and out.dtype != want:
        out = out.astype(want)
    # 5. the result; a node when an input requires grad and grad mode is on
    if not record:
        budget.charge(OP_WORK)   # the op's own time: it makes no node to be charged for
        result = Tensor._make(out)
    else:
        node = _node(op, inputs, params, mask, out, want is not None)
        result = Tensor._make(out, node, True, 0, node._result_counter or NEVER_MODIFIED)
    # 6. a result whose array is a view of its input's is a view of it (shares its version counter)
    if out.base is not None or (arrays and out is arrays[0]):
        return link(result, inputs[0])
    return result


def _node(op, inputs, params, mask: int, out: np.ndarray, promoted: bool) -> OpNode:
    """The node of one op: its edges, what its rules will read, and the input shapes they undo."""
    budget.node_made()
    node = OpNode.__new__(OpNode)
    node.op = op
    node.made_at = MODIFICATIONS[0]
    node.next_functions = [edge_to(t) if mask >> i & 1 else (None, 0) for i, t in enumerate(inputs)]
    node.source = nodes._current_source[0]
    node._tensor_hooks = None
    node.params = params
    node.released = False
    node.result_version = 0
    node.out_shapes = None
    node.n_outputs = 1
    # what the rules of the inputs that require grad read: some inputs, maybe the result
    save_inputs, save_result, _, _ = op.save_plan(mask)
    if save_inputs is None:
        node.saved = node.versions = NOTHING_SAVED
    else:
        node.saved = tuple(t if keep or not isinstance(t, Tensor) else None
                           for t, keep in zip(inputs, save_inputs))
        # a version per saved input (0 for a number: it cannot change), None where not saved
        node.versions = tuple((t._counter[0] if isinstance(t, Tensor) else 0) if keep else None
                              for t, keep in zip(inputs, save_inputs))
    node.result = out if save_result else None
    node._result_counter = [0] if save_result else None
    # the shapes of the inputs, when a rule reads them or a gradient must be summed back
    shapes = tuple(np.shape(t._data if isinstance(t, Tensor) else t) for t in inputs)
    node.shapes = shapes if op.reads_shapes or op.broadcasts and any(s != out.shape for s in shapes) else None
    # the dtypes of inputs that differ from the result's (a gradient is cast back at the edge)
    node.in_dtypes = None
    if promoted and any(isinstance(t, Tensor) and t._data.dtype != out.dtype for t in inputs):
        node.in_dtypes = tuple(t._data.dtype if isinstance(t, Tensor) and t._data.dtype != out.dtype
                               else None for t in inputs)
    if saved_hooks.hooks_or_inference[0]:
        if save_inputs is not None:
            saved_hooks.on_save(node)
        if save_result:
            saved_hooks.on_save_result(node)
    if nodes._node_observer[0] is not None:
        nodes._node_observer[0](node, inputs)
    return node
