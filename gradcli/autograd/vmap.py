"""torch.func.vmap: a function mapped over a batch dimension, run once on the whole batch.

Each batched argument is moved to have its batch dim in front and handed to the
function as a batched tensor (ops/batching.py: it shows the per-sample shape,
and its ops run on the whole batch by their batching rules, or per sample and
stacked where an op has none); the results are moved to `out_dims`. PyTorch's
refusals are kept: `.item()` and data-dependent control flow on a batched
tensor, an in-place op writing a batched value into an unbatched tensor, and
random numbers unless `randomness=` is "different" or "same". With
randomness="different" the function is run per sample and the results stacked
(each sample draws its own numbers; a batch level of ops/dual.py marks what
depends on the batch).
"""
from __future__ import annotations

from ..errors import AutogradError, ProgramValueError
from .._tensor import Tensor
from ..graph.callback import call_program
from ..ops import batching, dual


def _name(func) -> str:
    name = getattr(func, "name", None) or getattr(func, "__name__", None) or "fn"
    return "<lambda>" if name in ("lambda", "<lambda>") else name


def _same_kind(original, items: list):
    """`items` as a tuple, list or named tuple (max(dim)'s values and indices) like `original`."""
    kind = type(original)
    return kind._make(items) if hasattr(kind, "_make") else kind(items)


def _structure(value) -> str:
    if isinstance(value, (tuple, list)):
        kind = "tuple" if isinstance(value, tuple) else "list"
        items = ",\n  ".join(_structure(v) for v in value)
        return f"TreeSpec({kind}, None, [{items}])"
    return "*"


class _RandomnessError:
    """The generator while randomness="error": any draw is PyTorch's error."""

    def __getattr__(self, name):
        raise AutogradError("vmap: called random operation while in randomness error mode. Please either use "
                            "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                            "operation out of vmap")


def _dims_for(func, in_dims, args):
    """One in_dim per argument (a nested tuple for a tuple argument), PyTorch's checks."""
    name = _name(func)
    if isinstance(in_dims, bool) or not isinstance(in_dims, (int, tuple)):
        raise ProgramValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int "
                                "or a (potentially nested) tuple matching the structure of inputs, got: "
                                f"<class '{type(in_dims).__name__ if in_dims is not None else 'NoneType'}'>.")
    if isinstance(in_dims, int):
        return [in_dims] * len(args)
    if len(in_dims) != len(args):
        raise ProgramValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
                                f"the structure of `inputs`. in_dims has structure {_structure(in_dims)} but "
                                f"inputs has structure {_structure(tuple(args))}.")
    return list(in_dims)


def _batched_leaves(func, in_dims, value, dim, out: list):
    """(tensor, normalized dim) pairs of one argument, in order."""
    name = _name(func)
    if isinstance(value, dict):
        if isinstance(dim, dict):   # in_dims given per key
            dim = [dim.get(k) for k in value]
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        dims = dim if isinstance(dim, (tuple, list)) else [dim] * len(value)
        for v, d in zip(value, dims):
            _batched_leaves(func, in_dims, v, d, out)
        return
    if dim is None:
        return
    if not isinstance(value, Tensor):
        raise ProgramValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input "
                                f"but the input is of type <class '{type(value).__name__}'>. We cannot vmap over "
                                "non-Tensor arguments, please use None as the respective in_dim")
    n = value._data.ndim
    if not -n <= dim < n:
        raise ProgramValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for some input, "
                                f"but that input is a Tensor of dimensionality {n} so expected in_dim to satisfy "
                                f"-{n} <= in_dim < {n}.")
    out.append((value, dim % n))


def _sample(value, dim, b, level, select):
    if isinstance(value, dict):
        return {k: _sample(v, dim.get(k) if isinstance(dim, dict) else dim, b, level, select)
                for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        dims = dim if isinstance(dim, (tuple, list)) else [dim] * len(value)
        return _same_kind(value, [_sample(v, d, b, level, select) for v, d in zip(value, dims)])
    if dim is None or not isinstance(value, Tensor):
        return value
    piece = select(value, dim % value._data.ndim, b)
    level.set(piece, True)
    return piece


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """`torch.func.vmap`: func mapped over dimension `in_dims` of its arguments."""
    if randomness not in ("error", "different", "same"):
        raise AutogradError(f"Only allowed values for randomness are 'error', 'different', or 'same'. "
                            f"Got {randomness}")
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(chunk_size, int)
                                   or chunk_size <= 0):
        raise ProgramValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    def wrapper(*args, **kwargs):
        from .. import ops
        from ..ops import factories

        dims = _dims_for(func, in_dims, args)
        leaves: list = []
        for value, dim in zip(args, dims):
            _batched_leaves(func, in_dims, value, dim, leaves)
        if not leaves:
            raise ProgramValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): at least one input "
                                    "must be batched (no in_dim of a Tensor was given)")
        sizes = [t._data.shape[d] for t, d in leaves]
        if len(set(sizes)) != 1:
            raise ProgramValueError("vmap: Expected all tensors to have the same size in the mapped dimension, "
                                    f"got sizes {sizes} for the mapped dimension")
        size = sizes[0]
        if randomness != "different":
            return _batched(func, args, kwargs, dims, out_dims, size, randomness)
        select = ops.METHODS["select"]
        generator = factories._generator[0]
        state = None
        if randomness == "same":
            generator = factories._rng(None)
            state = generator.bit_generator.state
        results = []
        try:
            if randomness == "error":
                factories._generator[0] = _RandomnessError()
            for b in range(size):
                if state is not None:
                    generator.bit_generator.state = state
                level = dual.enter_level(batch=size)
                try:
                    sample = [_sample(v, d, b, level, select) for v, d in zip(args, dims)]
                    results.append(call_program("torch.func.vmap", None, func, *sample, **kwargs))
                finally:
                    dual.exit_level(level)
        finally:
            if randomness == "error":
                factories._generator[0] = generator
        return _stacked(func, results, out_dims, size)

    from ..errors import Builtin

    return Builtin("vmap", wrapper)


def _stacked(func, results, out_dims, size):
    """The per-sample outputs stacked at out_dims, in the structure func returned."""
    from .. import ops

    first = results[0] if results else None
    if isinstance(first, dict):
        return {k: _stacked(func, [r[k] for r in results], out_dims, size) for k in first}
    if isinstance(first, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else [out_dims] * len(first)
        return _same_kind(first, [_stacked(func, [r[k] for r in results], dims[k], size) for k in range(len(first))])
    if not isinstance(first, Tensor):
        raise ProgramValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                                f"<class '{type(first).__name__}'>. Did you mean to set out_dims= to None for "
                                "output?")
    if out_dims is None:
        return first
    n = first._data.ndim + 1
    if not -n <= out_dims < n:
        raise ProgramValueError(f"vmap: out_dims={out_dims} is out of range for an output of "
                                f"{first._data.ndim} dimensions (expected -{n} <= out_dim < {n})")
    return ops.FUNCTIONS["stack"](results, out_dims % n)


def _batched(func, args, kwargs, dims, out_dims, size, randomness):
    """func run once on batched tensors (ops/batching.py), its outputs moved to out_dims."""
    from ..ops import factories

    level = batching.enter(size)
    generator = factories._generator[0]
    try:
        if randomness == "error":
            factories._generator[0] = _RandomnessError()
        batched = [_batched_arg(v, d, level) for v, d in zip(args, dims)]
        out = call_program("torch.func.vmap", None, func, *batched, **kwargs)
        return _unbatched(func, out, out_dims, level)
    finally:
        factories._generator[0] = generator
        batching.exit(level)


def _batched_arg(value, dim, level):
    """An argument with its batch dim (`dim`, per its in_dims) made the batched tensor's."""
    if isinstance(value, dict):
        return {k: _batched_arg(v, dim.get(k) if isinstance(dim, dict) else dim, level) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        dims = dim if isinstance(dim, (tuple, list)) else [dim] * len(value)
        return _same_kind(value, [_batched_arg(v, d, level) for v, d in zip(value, dims)])
    if dim is None or not isinstance(value, Tensor):
        return value
    from .. import ops

    p, lv = batching.unwrap(value)
    k = len(lv)
    d = dim % value._data.ndim
    with batching.off():   # the new level is the innermost: its dim after the outer levels'
        moved = p if d == 0 else ops.FUNCTIONS["movedim"](p, k + d, k)
    return batching.wrap(moved, lv + (level,), batching.bdims(value) + (d,))


def _unbatched(func, out, out_dims, level):
    if isinstance(out, dict):
        return {k: _unbatched(func, v, out_dims, level) for k, v in out.items()}
    if isinstance(out, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else [out_dims] * len(out)
        if len(dims) != len(out):
            raise ProgramValueError(f"vmap({_name(func)}, ...): out_dims is not compatible with the structure "
                                    f"of `outputs`. out_dims has structure {_structure(tuple(dims))} but "
                                    f"outputs has structure {_structure(tuple(out))}.")
        return _same_kind(out, [_unbatched(func, v, d, level) for v, d in zip(out, dims)])
    if not isinstance(out, Tensor):
        raise ProgramValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                                f"<class '{type(out).__name__}'>. Did you mean to set out_dims= to None for "
                                "output?")
    from .. import ops

    p, lv = batching.unwrap(out)
    if out_dims is None:
        if level in lv:
            raise ProgramValueError(f"vmap({_name(func)}, ...): `{_name(func)}` can not return a BatchedTensor "
                                    "when out_dim is None")
        return out
    n = out._data.ndim + 1
    if isinstance(out_dims, bool) or not isinstance(out_dims, int) or not -n <= out_dims < n:
        raise ProgramValueError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got "
                                f"{out_dims})")
    od = out_dims % n
    rest = tuple(x for x in lv if x is not level)
    k = len(rest)
    with batching.off():
        if level in lv:
            moved = p if od == 0 else ops.FUNCTIONS["movedim"](p, k, k + od)
        else:   # not batched at this level: the same value for every sample
            shape = p._data.shape
            moved = ops.FUNCTIONS["unsqueeze"](p, k + od)
            moved = ops.FUNCTIONS["expand"](moved, shape[:k + od] + (level.size,) + shape[k + od:])
    return batching.wrap(moved, rest)
