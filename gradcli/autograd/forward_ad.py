"""torch.autograd.forward_ad: dual levels, make_dual, unpack_dual.

A thin layer over ops/dual.py, with PyTorch's checks and messages: one level
at a time (PyTorch's forward_ad does not nest; torch.func.jvp does, through the
same levels), a dual tensor is a view of its primal with a tangent of its size.
"""
from __future__ import annotations

import numpy as np

from ..errors import AutogradError, ProgramTypeError, ProgramValueError
from .._tensor import Tensor, shape_str
from ..graph.callback import call_program
from ..ops import batching, dual

_OWN: list = []   # the levels this API entered (torch.func's are not its to see or exit)


class UnpackedDualTensor(tuple):
    """(primal, tangent), a named tuple as PyTorch's: `.primal`, `.tangent`, or by index."""

    __slots__ = ()

    def __new__(cls, primal, tangent):
        return tuple.__new__(cls, (primal, tangent))

    @property
    def primal(self):
        return self[0]

    @property
    def tangent(self):
        return self[1]

    def __repr__(self) -> str:
        return f"UnpackedDualTensor(primal={self[0]!r}, tangent={self[1]!r})"

    __str__ = __repr__


def _prune() -> None:
    """Forget levels that were left another way (a run's end leaves what its program entered)."""
    _OWN[:] = [level for level in _OWN if level in dual.LEVELS]


def enter_dual_level() -> int:
    """Enter a new level; PyTorch allows one at a time."""
    _prune()
    if _OWN:
        raise AutogradError("Nested forward mode AD is not supported at the moment")
    _OWN.append(dual.enter_level())
    return len(_OWN) - 1


def exit_dual_level(*, level=None) -> None:
    _prune()
    if not _OWN or level not in (None, len(_OWN) - 1):
        raise AutogradError("Trying to exit a forward AD level that was not the last one that was created. "
                            "This is not supported.")
    level = _OWN.pop()
    dual.stash(level)   # for `graph --values`, which shows a dual tensor's tangent after the run
    dual.exit_level(level)


class dual_level:
    """`with dual_level():` tangents live inside; every dual tensor loses its tangent at the exit."""

    __slots__ = ("_level",)

    def __enter__(self):
        self._level = enter_dual_level()
        return self._level

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def _level(level):
    _prune()
    if not _OWN:
        return None
    if level not in (None, 0):
        raise AutogradError(f"Trying to access a forward AD level ({level}) that does not exist")
    return _OWN[-1]


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` whose tangent is `tangent`, at the current level."""
    for name, value in (("tensor", tensor), ("tangent", tangent)):
        if not isinstance(value, Tensor):
            raise ProgramTypeError(f"make_dual(): argument '{name}' must be Tensor, not {type(value).__name__}")
    found = _level(level)
    if found is None:
        raise AutogradError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                            "enter_dual_level() first.")
    if tensor._data.dtype.kind not in "fc":
        raise ProgramValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if tangent._data.dtype.kind not in "fc":
        raise ProgramValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent._data.shape != tensor._data.shape:
        raise AutogradError("Trying to set a forward gradient that has a different size than that of the "
                            f"original Tensor, this is not supported. Tensor is of size "
                            f"{shape_str(tensor._data.shape)} while the given forward gradient is of size "
                            f"{shape_str(tangent._data.shape)}.")
    return _dual_view(tensor, tangent, found)


def dual_view(tensor: Tensor, tangent: Tensor, level) -> Tensor:
    """A view of `tensor` (its gradient flows back to it) with `tangent` at `level`."""
    from .. import ops

    depth = dual.ACTIVE[0]
    dual.ACTIVE[0] = level.index   # the view takes no tangent of its own at this level or inner ones
    try:
        view = ops.FUNCTIONS["reshape"](tensor, tensor._data.shape)
    finally:
        dual.ACTIVE[0] = depth
    if tangent._data.dtype != tensor._data.dtype:
        tangent = ops.METHODS["to"](tangent, tensor.dtype)
    level.set(view, tangent)
    return view


def unpack_dual(tensor, *, level=None) -> UnpackedDualTensor:
    """(a view of the primal without the tangent, the tangent or None)."""
    if not isinstance(tensor, Tensor):
        raise ProgramTypeError(f"unpack_dual(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")
    found = _level(level)
    if found is None:
        return UnpackedDualTensor(tensor, None)
    tangent = _tangent(tensor, found)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(primal_view(tensor, found), tangent)


def primal_view(tensor: Tensor, level) -> Tensor:
    """A view of `tensor` without its tangent at `level` (outer levels' tangents kept)."""
    from .. import ops

    depth = dual.ACTIVE[0]
    dual.ACTIVE[0] = level.index
    try:
        return ops.FUNCTIONS["reshape"](tensor, tensor._data.shape)
    finally:
        dual.ACTIVE[0] = depth


# -- the one forward-mode pass of torch.func.jvp, jacfwd and functional.jacobian ------------


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
    level = dual.enter_level(graph=keep)   # tangents need a graph only for a transform outside
    try:
        duals = [_dual_view(p, t, level) for p, t in zip(flat_p, flat_t)]
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
            t = _tangent(o, level)
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


def _dual_view(primal: Tensor, tangent: Tensor, level) -> Tensor:
    """dual_view, inside vmap too: the pair made physical and batched alike (ops/batching.py)."""
    if batching.ON[0] and (batching.is_batched(primal) or batching.is_batched(tangent)):
        p, t, levels = batching.dual_pair(primal, tangent)
        with batching.off():
            view = dual_view(p, t, level)
        return batching.wrap(view, levels)
    return dual_view(primal, tangent, level)


def _tangent(t: Tensor, level):
    """The tangent of `t` at `level`: a batched tensor's is its physical tensor's."""
    found = batching.entry(t) if batching.ON[0] else None
    if found is None:
        return level.get(t)
    tangent = level.get(found[0])
    return None if tangent is None else batching.wrap(tangent, found[1])


def _kept(t: Tensor, keep: bool) -> Tensor:
    return t if keep or not t.requires_grad else dual.detached(t)


NAMESPACE = {
    "dual_level": dual_level, "make_dual": make_dual, "unpack_dual": unpack_dual,
    "enter_dual_level": enter_dual_level, "exit_dual_level": exit_dual_level,
    "UnpackedDualTensor": UnpackedDualTensor,
}
