"""torch.func's forward mode: jvp, jacfwd, linearize, and hessian as jacfwd(jacrev(f)).

Each jvp enters a dual level of its own (ops/dual.py), so transforms nest:
jvp of jvp, jacfwd of jacrev (forward over reverse), jacrev of jacfwd (reverse
over forward). The arguments are made dual as views of themselves, so an
enclosing grad or jacrev still differentiates through them.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..graph.callback import call_program
from .forward_ad import _jvp, _kept
from ..ops import batching


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """`torch.func.jvp`: (func(*primals), J tangents) (and aux with has_aux), by forward mode."""
    outs, touts, rebuild, aux = _jvp(func, primals, tangents, has_aux, "jvp")
    if has_aux:
        return rebuild(outs), rebuild(touts), aux
    return rebuild(outs), rebuild(touts)


def linearize(func, *primals):
    """`torch.func.linearize`: (func(*primals), jvp_fn); jvp_fn(*tangents) is J tangents at the
    primals (re-running func forward with the tangents; PyTorch traces it once)."""
    outs, _, rebuild, _ = _jvp(func, primals, tuple(_zeros_like(p) for p in primals), False, "jvp")

    def jvp_fn(*tangents):
        _, touts, rebuild_t, _ = _jvp(func, primals, tuple(tangents), False, "jvp")
        return rebuild_t(touts)

    return rebuild(outs), _named(jvp_fn, "jvp_fn")


def _zeros_like(value):
    if isinstance(value, Tensor):
        return Tensor._make(np.zeros_like(value._data))
    return type(value)(_zeros_like(v) for v in value)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """`torch.func.jacfwd`: the Jacobian by forward mode, one jvp per input element
    (out.shape + in.shape per output and differentiated argument)."""
    from .. import ops
    from .func import _argnums, _leaves

    def wrapper(*args, **kwargs):
        indices, is_tuple = _argnums(argnums, len(args), "jacfwd")
        targets = {i: _leaves(args[i], "jacfwd") for i in indices}
        flat = [t for i in indices for t in targets[i]]
        if not has_aux and sum(t._data.size for t in flat) > 1:
            return _vectorized(func, args, kwargs, indices, is_tuple, targets, flat, randomness)
        columns = []      # per input element: the flat output tangents
        outputs = aux = rebuild_o = None
        for k, x in enumerate(flat):
            for j in range(x._data.size):
                basis = np.zeros(x._data.size, dtype=x._data.dtype)
                basis[j] = 1.0
                vs = [Tensor._make(basis.reshape(x._data.shape)) if m == k else Tensor._make(np.zeros_like(y._data))
                      for m, y in enumerate(flat)]
                outputs, touts, rebuild_o, aux = _jvp_args(func, args, kwargs, indices, targets, vs, has_aux)
                columns.append((k, touts))
        if outputs is None:   # every input empty: run once for the outputs' shapes
            outputs, _, rebuild_o, aux = _jvp_args(func, args, kwargs, indices, targets,
                                                   [_zeros_like(t) for t in flat], has_aux)
        blocks = []
        for o_index, o in enumerate(outputs):
            per_input = []
            for k, x in enumerate(flat):
                cols = [touts[o_index] for kk, touts in columns if kk == k]
                if cols:
                    stacked = ops.FUNCTIONS["stack"](cols, -1)
                    per_input.append(ops.FUNCTIONS["reshape"](stacked, o._data.shape + x._data.shape))
                else:
                    per_input.append(Tensor._make(np.zeros(o._data.shape + x._data.shape, dtype=o._data.dtype)))
            blocks.append(_per_argument(per_input, args, indices, targets, is_tuple))
        jac = rebuild_o(blocks)
        if not any(batching.requires_grad(t) for t in flat):   # a batched one's physical
            jac = _detach_all(jac)
        return (jac, aux) if has_aux else jac

    return _named(wrapper, "jacfwd")


def _vectorized(func, args, kwargs, indices, is_tuple, targets, flat, randomness):
    """jacfwd as PyTorch computes it: one jvp vmapped over the basis of the inputs' space (the
    tangents are the identity's rows, batched), so every column comes from one pass."""
    from .. import ops
    from .vmap import vmap

    sizes = [t._data.size for t in flat]
    total = sum(sizes)
    dtype = np.result_type(*[t._data.dtype for t in flat])
    eye = np.eye(total, dtype=dtype)
    basis, start = [], 0
    for t, n in zip(flat, sizes):
        basis.append(Tensor._make(np.ascontiguousarray(eye[:, start:start + n]).reshape((total,) + t._data.shape)))
        start += n
    shape: dict = {}

    def column(*vs):
        outs, touts, rebuild, _ = _jvp_args(func, args, kwargs, indices, targets, list(vs), False)
        shape["rebuild"] = rebuild
        shape["n"] = len(outs)
        return tuple(touts) + tuple(outs)

    results = vmap(column, 0, 0, randomness)(*basis)
    n_out = shape["n"]
    touts, outs = results[:n_out], results[n_out:]
    outputs = [ops.METHODS["select"](o, 0, 0) for o in outs]
    blocks = []
    for tout, o in zip(touts, outputs):
        moved = ops.FUNCTIONS["movedim"](tout, 0, -1)   # out.shape + (total,)
        # split per input and unflattened, as PyTorch's jacfwd (SplitWithSizesBackward0, ViewBackward0)
        parts = ops.FUNCTIONS["split"](moved, sizes, -1)
        per_input = [ops.FUNCTIONS["reshape"](part, o._data.shape + x._data.shape) for x, part in zip(flat, parts)]
        blocks.append(_per_argument(per_input, args, indices, targets, is_tuple))
    jac = shape["rebuild"](blocks)
    if not any(batching.requires_grad(t) for t in flat):   # a batched one's physical
        jac = _detach_all(jac)
    return jac


def _per_argument(per_input: list, args, indices, targets, is_tuple: bool):
    """One output's Jacobian blocks (one per flat input) grouped back as the differentiated
    arguments were given: a tensor's block alone, a tuple or list of tensors' blocks as one."""
    items, m = [], 0
    for i in indices:
        n = len(targets[i])
        value = args[i]
        items.append(per_input[m] if isinstance(value, Tensor) else type(value)(per_input[m:m + n]))
        m += n
    return tuple(items) if is_tuple else items[0]


def _detach_all(value):
    if isinstance(value, Tensor):
        return _kept(value, False)
    return type(value)(_detach_all(v) for v in value)


def _jvp_args(func, args, kwargs, indices, targets, vs, has_aux):
    """One jvp of func(*args, **kwargs) along `vs`, the differentiated arguments' flat tangents."""
    primals, tangents, k = [], [], 0
    for i in indices:
        n = len(targets[i])
        primals.append(args[i])
        tangents.append(vs[k] if isinstance(args[i], Tensor) else type(args[i])(vs[k:k + n]))
        k += n

    def call(*chosen):
        full = list(args)
        for i, value in zip(indices, chosen):
            full[i] = value
        return call_program("torch.func.jacfwd", None, func, *full, **kwargs)

    outs, touts, rebuild, aux = _jvp(call, tuple(primals), tuple(tangents), has_aux, "jvp")
    return outs, touts, rebuild, aux


def hessian(func, argnums=0):
    """`torch.func.hessian`: jacfwd(jacrev(f)), forward over reverse, as PyTorch composes it."""
    from .func import jacrev

    return _named(jacfwd(jacrev(func, argnums), argnums), "hessian")


def _named(fn, name: str):
    from ..errors import Builtin

    return Builtin(name, fn)
