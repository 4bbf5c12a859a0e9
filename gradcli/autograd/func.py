"""torch.func, reverse mode: grad, grad_and_value, vjp, jacrev (forward mode: func_forward.py).

Built on `grad` with create_graph: the arguments being differentiated are
fresh leaves (or aliases, when they already require grad, so a `grad` nested
in another stays differentiable by the outer one); the results keep a graph
only when some differentiated argument required grad, which is the case
inside an enclosing transform.
"""
from __future__ import annotations

from contextlib import nullcontext

import numpy as np

from ..errors import AutogradError, ProgramError, ProgramTypeError
from .._tensor import Tensor, enable_grad
from ..graph.callback import call_program
from ..graph.nodes import AccumulateGrad
from ..limits import budget as _budget
from .engine import grad as _grad
from .functional import _rows
from .products import _alias
from ..ops import batching
from ..ops.dual import detached


def _argnums(argnums, n_args: int, api: str):
    """(indices, is_tuple), with PyTorch's checks."""
    is_tuple = isinstance(argnums, tuple)
    nums = argnums if is_tuple else (argnums,)
    if is_tuple and not nums:
        raise AutogradError("argnums must be non-empty")
    for num in nums:
        if isinstance(num, bool) or not isinstance(num, int):
            raise ProgramTypeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums).__name__}")
        if not -n_args <= num < n_args:
            raise AutogradError(f"Got argnums={num}, but only {n_args} positional inputs")
    indices = tuple(num % n_args for num in nums)
    if len(set(indices)) != len(indices):
        raise AutogradError(f"argnums must be unique, got {argnums}")
    return indices, is_tuple


def _leaves(value, api: str):
    """A differentiated argument: a Tensor, or a tuple/list/dict of Tensors (one level; a dict
    is how functional_call's parameters come)."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)) and all(isinstance(v, Tensor) for v in value):
        return list(value)
    if isinstance(value, dict) and all(isinstance(v, Tensor) for v in value.values()):
        return list(value.values())
    from ..errors import type_name

    raise ProgramTypeError(f"{api}: Expected the differentiated argument to be a Tensor or a tuple of "
                           f"Tensors, got {type_name(value)}")


def _prepare(value):
    """The argument the function runs on, and the tensors to differentiate by."""
    def one(t):
        if batching.ON[0]:   # inside vmap: a leaf batched at every level (per-sample gradients)
            return batching.leaf(t)
        return _alias(t) if t.requires_grad else detached(t)._set_requires_grad()
    if isinstance(value, Tensor):
        t = one(value)
        return t, [t]
    if isinstance(value, dict):
        items = [one(t) for t in value.values()]
        return dict(zip(value, items)), items
    items = [one(t) for t in value]
    return (tuple(items) if isinstance(value, tuple) else items), items


def _rebuild(original, grads):
    if isinstance(original, Tensor):
        return grads[0]
    if isinstance(original, dict):
        return dict(zip(original, grads))
    return tuple(grads) if isinstance(original, tuple) else list(grads)


def _detach_unless(keep: bool, value):
    if value is None:
        return value
    if isinstance(value, Tensor):
        if keep:   # back at vmap's level, a batched tensor shows no grad_fn (batching.tracked)
            return batching.rewrap(value) if batching.ON[0] else value
        return detached(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_detach_unless(keep, v) for v in value)
    if isinstance(value, dict):
        return {k: _detach_unless(keep, v) for k, v in value.items()}
    return value


def _reaches_outside(value, fresh) -> bool:
    """Whether `value`'s graph reaches a leaf that requires grad other than the `fresh` leaves a
    transform made (a module's parameters used inside): PyTorch's transforms then keep the
    results' graph for the level outside, as they keep it for a differentiated argument that
    requires grad."""
    mine = {id(batching.unwrap(t)[0]) for t in fresh}
    todo = []
    _grad_fns(value, todo)
    seen = set()
    try:
        while todo:
            node = todo.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if node.__class__ is AccumulateGrad:
                if id(node.variable) not in mine:
                    return True
                continue
            todo.extend(n for n, _ in node.next_functions)
        return False
    finally:
        _budget.charge(len(seen))   # a walk over the graph, as the engine's are charged


def _grad_fns(value, out: list) -> None:
    if isinstance(value, Tensor):
        p = batching.unwrap(value)[0]
        if p.grad_fn is not None:
            out.append(p.grad_fn)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _grad_fns(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _grad_fns(v, out)


def _split_aux(out, has_aux: bool, api: str):
    if not has_aux:
        return out, None
    if not isinstance(out, tuple) or len(out) != 2:
        raise AutogradError(f"{api}(f)(*args): output of function f should be a tuple: (output, aux) "
                            "if has_aux is True")
    return out


def _inside():
    """Inside vmap, the function of a grad/vjp/jacrev runs with grad as the innermost transform
    (its batched tensors show requires_grad and grad_fn, ops/batching.py `tracked`)."""
    return batching.grad_inside() if batching.ON[0] else nullcontext()


def _prepared_call(func, args, kwargs, argnums, api):
    indices, is_tuple = _argnums(argnums, len(args), api)
    args = list(args)
    originals = {}
    targets = {}
    keep = False
    with _inside():
        for i in indices:
            leaves = _leaves(args[i], api)
            keep = keep or any(batching.requires_grad(t) for t in leaves)
            originals[i] = args[i]
            args[i], targets[i] = _prepare(args[i])
    with enable_grad(), _inside():
        out = call_program("torch.func", None, func, *args, **kwargs)
    keep = keep or _reaches_outside(out, [t for i in indices for t in targets[i]])
    return out, indices, is_tuple, originals, targets, keep


def grad_and_value(func, argnums=0, has_aux=False):
    """`torch.func.grad_and_value`: a function giving (gradient, value) (value=(output, aux) with has_aux)."""
    def wrapper(*args, **kwargs):
        api = "grad_and_value"
        out, indices, is_tuple, originals, targets, keep = _prepared_call(func, args, kwargs, argnums, api)
        output, aux = _split_aux(out, has_aux, api)
        if not isinstance(output, Tensor):
            from ..errors import type_name

            raise ProgramTypeError(f"{api}(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type_name(output)}")
        if output._data.ndim != 0:
            raise AutogradError(f"{api}(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                f"tensor with {output._data.ndim} dims. Maybe you wanted to use the vjp "
                                "or jacrev APIs instead?")
        flat = [t for i in indices for t in targets[i]]
        if batching.ON[0]:
            grads = batching.physical_grad([output], flat, [None], create_graph=True)
        elif output.requires_grad:
            grads = _grad(output, flat, create_graph=True, allow_unused=True)
        else:
            grads = (None,) * len(flat)
        grads = [g if g is not None else Tensor._make(np.zeros_like(t._data)) for g, t in zip(grads, flat)]
        results = []
        k = 0
        for i in indices:
            n = len(targets[i])
            results.append(_rebuild(originals[i], grads[k:k + n]))
            k += n
        gradient = _detach_unless(keep, tuple(results) if is_tuple else results[0])
        value = _detach_unless(keep, output)
        if has_aux:
            return gradient, (value, _detach_unless(keep, aux))
        return gradient, value

    return _named(wrapper, "grad_and_value")


def grad(func, argnums=0, has_aux=False):
    """`torch.func.grad`: a function giving the gradient of scalar `func` (and aux with has_aux)."""
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        gradient, value = inner(*args, **kwargs)
        if has_aux:
            return gradient, value[1]
        return gradient

    return _named(wrapper, "grad")


def vjp(func, *primals, has_aux=False):
    """`torch.func.vjp`: (func(*primals), vjp_fn) (and aux with has_aux); vjp_fn(cotangents)
    gives one gradient per primal, as a tuple."""
    if not primals:
        raise AutogradError("vjp(f, *primals): primals must be non-empty")
    keep = any(batching.requires_grad(t) for p in primals for t in _leaves(p, "vjp"))
    with _inside():
        prepared = [_prepare(p) for p in primals]
    with enable_grad(), _inside():
        out = call_program("torch.func.vjp", None, func, *[p for p, _ in prepared])
    output, aux = _split_aux(out, has_aux, "vjp")
    outputs = _leaves(output, "vjp")
    flat = [t for _, ts in prepared for t in ts]
    keep = keep or _reaches_outside(out, flat)

    def vjp_fn(cotangents):
        cots = _leaves(cotangents, "vjp_fn")
        if len(cots) != len(outputs):
            raise AutogradError(f"Expected pytree structure of cotangents to be the same as pytree "
                                f"structure of outputs to the function. cotangents: {len(cots)} tensors, "
                                f"primal output: {len(outputs)} tensors")
        for c, o in zip(cots, outputs):
            if c._data.shape != o._data.shape:
                raise AutogradError(f"Mismatch in shape: grad_output[0] has a shape of {c.shape} and "
                                    f"output[0] has a shape of {o.shape}.")
        kept = [(o, c) for o, c in zip(outputs, cots) if o.requires_grad]
        if batching.ON[0]:   # inside vmap: on physical tensors, per sample
            grads = batching.physical_grad(outputs, flat, cots, retain_graph=True, create_graph=True)
        elif kept:
            grads = _grad([o for o, _ in kept], flat, [c for _, c in kept], retain_graph=True,
                          create_graph=True, allow_unused=True)
        else:
            grads = (None,) * len(flat)
        grads = [g if g is not None else Tensor._make(np.zeros_like(t._data)) for g, t in zip(grads, flat)]
        results, k = [], 0
        for p, (_, ts) in zip(primals, prepared):
            results.append(_rebuild(p, grads[k:k + len(ts)]))
            k += len(ts)
        return _detach_unless(keep or any(batching.requires_grad(c) for c in cots), tuple(results))

    value = _detach_unless(keep, output)
    fn = _named(vjp_fn, "vjp_fn")
    if has_aux:
        return value, fn, _detach_unless(keep, aux)
    return value, fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """`torch.func.jacrev`: a function giving the Jacobian by reverse mode (out.shape + in.shape)."""
    def wrapper(*args, **kwargs):
        api = "jacrev"
        out, indices, is_tuple, originals, targets, keep = _prepared_call(func, args, kwargs, argnums, api)
        output, aux = _split_aux(out, has_aux, api)
        outputs = _leaves(output, api)
        per_output = []
        for o in outputs:
            flat = [t for i in indices for t in targets[i]]
            rows = batching.one_hot_rows(o, flat) if batching.ON[0] else _rows(o, flat, create_graph=True)
            results, k = [], 0
            for i in indices:
                n = len(targets[i])
                results.append(_rebuild(originals[i], rows[k:k + n]))
                k += n
            per_output.append(tuple(results) if is_tuple else results[0])
        jac = per_output[0] if isinstance(output, Tensor) else (
            dict(zip(output, per_output)) if isinstance(output, dict) else type(output)(per_output))
        jac = _detach_unless(keep, jac)
        if has_aux:
            return jac, _detach_unless(keep, aux)
        return jac

    return _named(wrapper, "jacrev")


def _named(fn, name: str):
    """A returned function as the language's value (a Builtin the program can call)."""
    from ..errors import Builtin

    return Builtin(name, fn)
