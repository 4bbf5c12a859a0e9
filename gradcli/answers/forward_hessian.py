"""`gradcli hessian` forward over reverse: one re-run of the program with batched tangents.

Reverse over reverse (`derivatives`) costs one backward pass through the gradient's
graph per variable. Forward over reverse re-runs the program once with each `--wrt`
input batched over the n basis directions (ops/batching.py: the input expanded to n
copies, the identity's rows as their tangents), then takes one backward pass of the
output under create_graph: the gradient's tangents are the Hessian's rows, all at
once. It is taken when there are at least `MIN_VARIABLES` variables; a program that
cannot run batched (`.item()` or control flow on an input's values, a tensor index
made from it) falls back to reverse over reverse.
"""
from __future__ import annotations

import numpy as np

from ..errors import GradcliError
from .._tensor import Tensor

MIN_VARIABLES = 8   # below this, n backward passes cost less than a batched re-run


def hessian_blocks(run, name: str, out: Tensor, wrt: list, xs: list):
    """name -> name -> block (shape_k + shape_j) by forward over reverse, or None to fall back."""
    sizes = [x._data.size for x in xs]
    n = sum(sizes)
    if n < MIN_VARIABLES or out._data.size != 1 or out._data.dtype.kind != "f" \
            or any(x._data.dtype.kind != "f" for x in xs):
        return None
    try:
        return _blocks(run, name, wrt, xs, sizes, n)
    except GradcliError:
        return None


def _blocks(run, name, wrt, xs, sizes, n):
    from ..lang.runs import tensor_output
    from ..ops import batching, dual

    from ..limits import budget

    interp = run.interpreter
    budget.check_elements(n * n)   # the identity, before it is made (refused: reverse over reverse says why)
    eye = np.eye(n)
    batch = batching.enter(n)
    level = dual.enter_level(graph=False)
    start = 0
    for w, x, size in zip(wrt, xs, sizes):
        rows = eye[:, start:start + size].reshape((n,) + x._data.shape)
        dual.NAMED_TANGENTS[w] = (level, rows, batch)
        start += size
    try:
        again = interp.program.run(interp.overrides, stdout=lambda line: None, limits=interp.limits,
                                   script=interp.script)
        _, value = tensor_output(again, name if name in again.values else None)
        inputs = [again.values.get(w) for w in wrt]
        # each input must still be the batched leaf its assignment was given (not a value
        # computed from it later under the same name: that is what reverse mode differentiates)
        for t in inputs:
            found = batching.entry(t) if isinstance(t, Tensor) else None
            if found is None or found[0].grad_fn is not None or level.get(found[0]) is None:
                return None
        grads = batching.physical_grad([value], inputs, [None], create_graph=True)
        tangents = []
        for g, x in zip(grads, xs):
            if g is None:
                tangents.append(np.zeros((n,) + x._data.shape))
                continue
            t = level.get(batching.unwrap(g)[0])
            tangents.append(np.zeros((n,) + x._data.shape) if t is None else np.array(t._data))
    finally:
        dual.NAMED_TANGENTS.clear()
        dual.exit_level(level)
        batching.exit(batch)
    blocks = {}
    offsets = np.cumsum([0] + sizes)
    for k, (wk, xk) in enumerate(zip(wrt, xs)):
        blocks[wk] = {}
        for j, (wj, xj) in enumerate(zip(wrt, xs)):
            rows = tangents[k][offsets[j]:offsets[j + 1]]             # (size_j,) + shape_k
            block = np.moveaxis(rows, 0, -1).reshape(xk._data.shape + xj._data.shape)
            blocks[wk][wj] = Tensor._make(block.astype(xk._data.dtype, copy=False))
    return blocks
