"""torch.func's forward mode: jvp, jacfwd, linearize, and hessian as jacfwd(jacrev(f)).

Each jvp enters a dual level of its own (ops/dual.py), so transforms nest:
jvp of jvp, jacfwd of jacrev (forward over reverse), jacrev of jacfwd (reverse
over forward). The arguments are made dual as views of themselves, so an
enclosing grad or jacrev still differentiates through them.
"""
from __future__ import annotations

import numpy as np

from ..errors import AutogradError
from .._tensor import Tensor
from ..graph.callback import call_program
from ..ops import dual
from .forward_ad import dual_view, primal_view


def _flat(value, what: str):
    """The tensors of a Tensor or a (nested) tuple/list of Tensors, and how to rebuild it."""
    if isinstance(value, Tensor):
        return [value], lambda items: items[0]
    if isinstance(value, (tuple, list)):
        parts = [_flat(v, what) for v in value]
        sizes = [len(p[0]) for p in parts]
        kind = type(value)

        def rebuild(items, parts=parts, sizes=sizes, kind=kind):
            out, k = [], 0
            for (_, build), n in zip(parts, sizes):
                out.append(build(items[k:k + n]))
                k += n
            return kind(out)
        return [t for p in parts for t in p[0]], rebuild
    raise AutogradError(what.format(type=_class(value)))


def _class(value) -> str:
    from ..errors import type_name

    return f"<class '{type_name(value)}'>"


def _structure(value) -> str:
    """A pytree structure as PyTorch writes it in jvp's message."""
    if isinstance(value, (tuple, list)):
        kind = "tuple" if isinstance(value, tuple) else "list"
        return f"TreeSpec({kind}, None, [{', '.join(_structure(v) for v in value)}])"
    return "*"


def _same_structure(a, b) -> bool:
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same_structure(x, y) for x, y in zip(a, b))
    return not isinstance(b, (tuple, list))


_OUTPUT = "jvp(f, primals, tangents): expected f(*primals) to return only tensors, got unsupported type {type}"


def _jvp(func, primals, tangents, has_aux: bool, api: str):
    """(outputs, output tangents, aux) of `func` at `primals` along `tangents`, flat lists."""
    if not isinstance(primals, tuple):
        raise AutogradError(f"{api}(f, primals, tangents): Expected primals to be a tuple. E.g. it should be "
                            "valid to call f(*primals).")
    if not _same_structure(primals, tangents):
        raise AutogradError(f"{api}(f, primals, tangents): Expected primals and tangents to have the same "
                            "python structure. For example, if primals is a tuple of 3 tensors, tangents also "
                            f"must be. Got primals with structure {_structure(primals)} and tangents with "
                            f"structure {_structure(tangents)}")
    flat_p, rebuild = _flat(primals, "jvp(f, primals, tangents): Expected primals to be a tuple of tensors, "
                                     "got {type}")
    flat_t, _ = _flat(tangents, "jvp(f, primals, tangents): Expected tangents to be a tuple of tensors, "
                                "got {type}")
    for p, t in zip(flat_p, flat_t):
        if p._data.shape != t._data.shape:
            raise AutogradError("Trying to set a forward gradient that has a different size than that of the "
                                f"original Tensor, this is not supported. Tensor is of size "
                                f"{list(p._data.shape)} while the given forward gradient is of size "
                                f"{list(t._data.shape)}.".replace(", ", ", "))
    # a graph is kept only for an enclosing transform (an argument that required grad)
    keep = any(t.requires_grad for t in flat_p + flat_t)
    level = dual.enter_level()
    try:
        duals = [dual_view(p, t, level) for p, t in zip(flat_p, flat_t)]
        out = call_program(f"torch.func.{api}", None, func, *rebuild(duals))
        aux = None
        if has_aux:
            if not isinstance(out, tuple) or len(out) != 2:
                raise AutogradError(f"{api}(f, primals, tangents): output of function f should be a tuple: "
                                    "(output, aux) if has_aux is True")
            out, aux = out
        flat_o, rebuild_o = _flat(out, _OUTPUT)
        tangents_o = []
        for o in flat_o:
            t = level.get(o)
            tangents_o.append(t if t is not None else Tensor._make(np.zeros_like(o._data)))
        primals_o = [primal_view(o, level) for o in flat_o]
        if has_aux:
            flat_a, rebuild_a = _flat(aux, "jvp(f, primals, tangents): expected aux to be tensors, got {type}")
            aux = rebuild_a([_kept(primal_view(a, level), keep) for a in flat_a])
    finally:
        dual.exit_level(level)
    primals_o = [_kept(o, keep) for o in primals_o]
    tangents_o = [_kept(t, keep) for t in tangents_o]
    return primals_o, tangents_o, rebuild_o, aux


def _kept(t: Tensor, keep: bool) -> Tensor:
    return t if keep or not t.requires_grad else dual.detached(t)


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
            items, m = [], 0
            for i in indices:
                n = len(targets[i])
                value = args[i]
                items.append(per_input[m] if isinstance(value, Tensor) else type(value)(per_input[m:m + n]))
                m += n
            blocks.append(tuple(items) if is_tuple else items[0])
        jac = rebuild_o(blocks)
        if not any(t.requires_grad for t in flat):
            jac = _detach_all(jac)
        return (jac, aux) if has_aux else jac

    return _named(wrapper, "jacfwd")


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
