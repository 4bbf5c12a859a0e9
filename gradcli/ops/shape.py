"""Shape ops: reshape/view/flatten, squeeze, unsqueeze, expand, cat, stack, unbind,
split/chunk, narrow, repeat, flip, roll, tril/triu, diagonal/diag, movedim,
swapaxes, contiguous, view_as/reshape_as, unflatten. Indexing, which records
select, slice and unsqueeze from here, is in indexing.py.

Each is an op with PyTorch's node name and a backward that is itself an op of
this table (select's backward is select_backward, whose backward is select
again), so gradients through them stay differentiable at every order.
"""
from __future__ import annotations

import inspect
import math

import numpy as np


from ..errors import ProgramError, ProgramTypeError, ProgramValueError, ShapeError
from .._tensor import Tensor, _dim, _dims, as_int, check_elements, shape_str
from . import broadcast, costs
from .domains import cases
from .apply import apply
from .registry import METHODS, OPS, TENSORS, Op, defop, export, LINEAR


def _view_shape(shape, size):
    """Resolve a target shape with at most one -1, with PyTorch's error."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(as_int(s, "size") for s in size)
    numel = math.prod(shape)
    if size.count(-1) > 1:
        raise ShapeError("only one dimension can be inferred")
    known = math.prod(s for s in size if s != -1)
    if -1 in size:
        if known == 0 or numel % known:
            raise ShapeError(f"shape '{shape_str(size)}' is invalid for input of size {numel}")
        size = tuple(numel // known if s == -1 else s for s in size)
    elif known != numel:
        raise ShapeError(f"shape '{shape_str(size)}' is invalid for input of size {numel}")
    return size


def _reshape(self, shape):
    return np.reshape(self, _view_shape(np.shape(self), tuple(shape)))


reshape_op = defop(
    "reshape", "ViewBackward0", _reshape, public=False,
    rules=(lambda F, g, self_shape: F.reshape(g, self_shape),),
    formulas=("grad.reshape(self.shape)",),
    sympy=lambda sp, x, shape: _reshape(x, shape),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"shape": (3, 2)}),
                 lambda rng: ((rng.uniform(-1, 1, (3,)),), {"shape": (1, 3)}),
                 lambda rng: ((rng.uniform(-1, 1, ()),), {"shape": (1,)})), tangent=LINEAR,
)


def reshape(input, *shape):
    """The same elements in a new shape (ViewBackward0); one size may be -1."""
    return apply(reshape_op, (input,), {"shape": shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape})


export("reshape", reshape, array=lambda input, shape: _reshape(input, shape))
export("view", reshape, nn=False)


def flatten(input, start_dim=0, end_dim=-1):
    shape = tuple(np.shape(input._data if isinstance(input, Tensor) else input))
    if not shape:
        return reshape(input, (1,))
    s = _dim(start_dim, len(shape))
    e = _dim(end_dim, len(shape))
    return reshape(input, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


export("flatten", flatten)


def _unsqueeze(self, dim):
    nd = np.ndim(self) + 1
    return np.expand_dims(self, _dim(dim, nd))


unsqueeze = defop(
    "unsqueeze", "UnsqueezeBackward0", _unsqueeze,
    # PyTorch's grad.squeeze(dim): a double backward through it records SqueezeBackward1
    rules=(lambda F, g, dim, self_shape: F.squeeze(g, dim),),
    formulas=("grad.squeeze(dim)",),
    sympy=lambda sp, x, dim: _unsqueeze(x, dim),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"dim": 1}),
                 lambda rng: ((rng.uniform(-1, 1, ()),), {"dim": 0})), tangent=LINEAR,
)


class ProgramIndexError(ProgramError, IndexError):
    """An index out of range or of the wrong kind (PyTorch raises these as IndexError)."""


def _method(name, fn):
    """A Tensor method (and rule helper) that PyTorch has only as a method, not as torch.<name>."""
    METHODS[name] = fn
    setattr(TENSORS, name, fn)
    return fn


def _data(x):
    return x._data if isinstance(x, Tensor) else x


def _axis(dim, ndim):
    """A dim the public function has already checked, made non-negative."""
    return dim + ndim if dim < 0 else dim


# -- squeeze ---------------------------------------------------------------------


def _squeeze_all(self):
    return np.reshape(self, tuple(d for d in np.shape(self) if d != 1))


def _squeeze_dims(self, dim):
    shape = np.shape(self)
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    drop = {_dim(d, len(shape)) for d in dims} if shape else set()
    return np.reshape(self, tuple(s for i, s in enumerate(shape) if not (i in drop and s == 1)))


_squeeze_rule = (lambda F, g, self_shape: F.reshape(g, self_shape),)

squeeze_all = defop(
    "squeeze", "SqueezeBackward0", _squeeze_all, public=False,
    rules=_squeeze_rule, formulas=("grad.reshape(self.shape)",),
    sympy=lambda sp, x: _squeeze_all(x),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 1, 3)),), {}),
                 lambda rng: ((rng.uniform(-1, 1, (1,)),), {})), tangent=LINEAR,
)

squeeze_dim = defop(
    "squeeze_dim", "SqueezeBackward1", _squeeze_dims, public=False,
    rules=_squeeze_rule, formulas=("grad.reshape(self.shape)",),
    sympy=lambda sp, x, dim: _squeeze_dims(x, dim),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (1, 3)),), {"dim": 0}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"dim": 1}),
                 lambda rng: ((rng.uniform(-1, 1, ()),), {"dim": 0})), tangent=LINEAR,
)

squeeze_dims = defop(
    "squeeze_dims", "SqueezeBackward2", _squeeze_dims, public=False,
    rules=_squeeze_rule, formulas=("grad.reshape(self.shape)",),
    sympy=lambda sp, x, dim: _squeeze_dims(x, dim),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (1, 3, 1)),), {"dim": (0, 2)})), tangent=LINEAR,
)


def squeeze(input, dim=None):
    """Drop size-1 dims: all (SqueezeBackward0), one `dim` (SqueezeBackward1) or a tuple (SqueezeBackward2)."""
    if dim is None:
        return apply(squeeze_all, (input,))
    ndim = np.ndim(_data(input))
    if isinstance(dim, (tuple, list)):
        dims = tuple(_dim(d, ndim) for d in dim)
        return apply(squeeze_dims, (input,), {"dim": dims})
    return apply(squeeze_dim, (input,), {"dim": _dim(dim, ndim)})


export("squeeze", squeeze, array=lambda input, dim=None: (
    _squeeze_all(input) if dim is None else _squeeze_dims(input, dim)))


# -- expand -------------------------------------------------------------------------


def _sizes(sizes, what="size"):
    """Sizes given as `f(2, 3)`, `f((2, 3))`, `f([2, 3])` or `f(x.shape)`, as ints."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    return tuple(as_int(s, what) for s in sizes)


def expand(input, *sizes, size=None):
    """A broadcast view of `input` at the given sizes, -1 keeping a dim (ExpandBackward0)."""
    sizes = _sizes((size,) if size is not None else sizes)
    return apply(broadcast.expand, (input,), {"size": sizes})


export("expand", expand)
_method("expand_as", lambda input, other: expand(input, _data(other).shape))


# -- ops over a list of tensors: cat, stack --------------------------------------------


class _ListOp:
    """An op over a list of tensors, one edge and one rule per tensor.

    An Op has a fixed number of inputs, so there is one Op per list length, all
    made from one forward and one rule factory (`rule(i)` is the rule of
    tensor i). The table holds the two-tensor Op (the op-table tests check it);
    other lengths are made on first use.
    """

    def __init__(self, name, node, forward, rule, formula, params, sympy, domain):
        self.name = name
        self.node = node
        self.forward = forward
        self.rule = rule
        self.formula = formula
        self.params = params
        self.sympy = sympy
        self.table = defop(name, node, self._forward(2), inputs=self._inputs(2), public=False,
                           rules=tuple(rule(i) for i in range(2)), formulas=(formula,) * 2,
                           sympy=sympy, domain=domain, tangent=LINEAR)
        self._ops = {2: self.table}

    @staticmethod
    def _inputs(n):
        return tuple(f"tensors[{i}]" for i in range(n))

    def _forward(self, n):
        base = self.forward

        def forward(*arrays, **params):
            return base(*arrays, **params)

        P = inspect.Parameter
        forward.__signature__ = inspect.Signature(
            [P(f"t{i}", P.POSITIONAL_ONLY) for i in range(n)]
            + [P(p, P.POSITIONAL_OR_KEYWORD, default=d) for p, d in self.params]
        )
        return forward

    def __call__(self, n: int) -> Op:
        op = self._ops.get(n)
        if op is None:
            op = self._ops[n] = Op(self.name, self.node, self._forward(n), inputs=self._inputs(n),
                                   rules=tuple(self.rule(i) for i in range(n)),
                                   formulas=(self.formula,) * n, sympy=self.sympy, tangent=LINEAR)
        return op


def _tensor_list(name, tensors, empty_error, empty_message) -> tuple:
    """The `tensors` argument of cat/stack: a non-empty list or tuple of Tensors, with PyTorch's
    TypeErrors, and `empty_error(empty_message)` (each op's own) where it is empty."""
    if not isinstance(tensors, (list, tuple)):
        raise ProgramTypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                               f"not {type(tensors).__name__}")
    for k, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise ProgramTypeError(f"expected Tensor as element {k} in argument 0, but got {type(t).__name__}")
    if not tensors:
        raise empty_error(empty_message)
    return tuple(tensors)


def _cat(*tensors, dim=0, sizes=None):
    return np.concatenate(tensors, axis=dim)


def _cat_rule(i):
    def rule(F, g, dim, sizes):
        start = 0
        for s in sizes[:i]:
            start += s
        return F.narrow(g, dim, start, sizes[i])
    return rule


def _cat_case(shapes, dim):
    def build(rng):
        return tuple(rng.uniform(-1, 1, s) for s in shapes), {
            "dim": dim, "sizes": tuple(s[dim] for s in shapes)}
    return build


cat_ops = _ListOp(
    "cat", "CatBackward0", _cat, _cat_rule, "grad.narrow(dim, offset, sizes[i])",
    params=(("dim", 0), ("sizes", None)),
    sympy=lambda sp, *xs, dim=0, sizes=None: np.concatenate(xs, axis=dim),
    domain=cases(_cat_case([(2, 3), (1, 3)], 0), _cat_case([(2, 1), (2, 3)], 1),
                 _cat_case([(3,), (2,)], 0)),
)


def cat(tensors, dim=0):
    """Tensors joined along an existing dim (CatBackward0, one edge per tensor)."""
    tensors = _tensor_list("cat", tensors, ProgramValueError, "torch.cat(): expected a non-empty list of Tensors")
    first = tensors[0]._data.shape
    for k, t in enumerate(tensors):
        if not t._data.ndim:
            raise ShapeError(f"zero-dimensional tensor (at position {k}) cannot be concatenated")
    d = _dim(dim, len(first))
    total = 0
    for k, t in enumerate(tensors):
        shape = t._data.shape
        if len(shape) != len(first):
            raise ShapeError(f"Tensors must have same number of dimensions: got {len(first)} and {len(shape)}")
        for j, (want, got) in enumerate(zip(first, shape)):
            if j != d and want != got:
                raise ShapeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {want} but got "
                    f"size {got} for tensor number {k} in the list."
                )
        total += t._data.size
    check_elements(total)
    sizes = tuple(t._data.shape[d] for t in tensors)
    return apply(cat_ops(len(tensors)), tensors, {"dim": d, "sizes": sizes})


_cat_array = lambda tensors, dim=0: np.concatenate(tensors, axis=dim)  # noqa: E731
export("cat", cat, method=False, array=_cat_array)
export("concat", cat, method=False, array=_cat_array)
export("concatenate", cat, method=False, array=_cat_array)


def _stack(*tensors, dim=0):
    return np.stack(tensors, axis=dim)


def _stack_rule(i):
    def rule(F, g, dim):
        return F.select(g, dim, i)
    return rule


stack_ops = _ListOp(
    "stack", "StackBackward0", _stack, _stack_rule, "grad.select(dim, i)",
    params=(("dim", 0),),
    sympy=lambda sp, *xs, dim=0: np.stack(xs, axis=dim),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (2, 3))), {"dim": 1}),
                 lambda rng: ((rng.uniform(-1, 1, ()), rng.uniform(-1, 1, ())), {"dim": 0}),
                 lambda rng: ((rng.uniform(-1, 1, (3,)), rng.uniform(-1, 1, (3,))), {"dim": 0})),
)


def stack(tensors, dim=0):
    """Tensors of one shape joined along a new dim (StackBackward0, one edge per tensor)."""
    tensors = _tensor_list("stack", tensors, ShapeError, "stack expects a non-empty TensorList")
    first = tensors[0]._data.shape
    for k, t in enumerate(tensors):
        if t._data.shape != first:
            raise ShapeError(
                f"stack expects each tensor to be equal size, but got {shape_str(first)} at entry 0 and "
                f"{shape_str(t._data.shape)} at entry {k}"
            )
    d = _dim(dim, len(first) + 1)
    check_elements(len(tensors) * tensors[0]._data.size)
    return apply(stack_ops(len(tensors)), tensors, {"dim": d})


export("stack", stack, method=False, array=lambda tensors, dim=0: np.stack(tensors, axis=dim))


# -- multi-output: unbind, split, chunk -------------------------------------------------


def _unbind(self, dim=0):
    lead = (slice(None),) * dim
    return tuple(self[lead + (k, Ellipsis)] for k in range(np.shape(self)[dim]))


unbind_op = defop(
    "unbind", "UnbindBackward0", _unbind, public=False, n_outputs=None, cost=costs.slices,
    rules=(lambda F, g, dim: F.stack(g, dim),), formulas=("stack(grads, dim)",),
    sympy=lambda sp, x, dim=0: _unbind(x, dim),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (3,)),), {"dim": 0}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"dim": 1})), tangent=LINEAR,
)


def unbind(input, dim=0):
    """The slices along `dim`, as a tuple (UnbindBackward0; output k is reached with index k)."""
    shape = _data(input).shape
    if not shape:
        raise ProgramIndexError("Dimension specified as 0 but tensor has no dimensions")
    outs = apply(unbind_op, (input,), {"dim": _dim(dim, len(shape))})
    return outs


export("unbind", unbind)


def _split(self, split_sizes, dim=0):
    lead = (slice(None),) * dim
    out = []
    start = 0
    for s in split_sizes:
        out.append(self[lead + (slice(start, start + s), Ellipsis)])
        start += s
    return tuple(out)


def _split_case(shape, sizes, dim):
    return lambda rng: ((rng.uniform(-1, 1, shape),), {"split_sizes": sizes, "dim": dim})


# PyTorch names the equal-pieces form SplitBackward0 and the explicit one
# SplitWithSizesBackward0; both are the same op on resolved sizes here.
split_op = defop(
    "split", "SplitBackward0", _split, public=False, n_outputs=None,
    rules=(lambda F, g, dim: F.cat(g, dim),), formulas=("cat(grads, dim)",),
    sympy=lambda sp, x, split_sizes, dim=0: _split(x, split_sizes, dim),
    domain=cases(_split_case((3,), (2, 1), 0), _split_case((2, 3), (1, 1, 1), 1)), tangent=LINEAR,
)

split_with_sizes_op = defop(
    "split_with_sizes", "SplitWithSizesBackward0", _split, public=False, n_outputs=None,
    rules=(lambda F, g, dim: F.cat(g, dim),), formulas=("cat(grads, dim)",),
    sympy=lambda sp, x, split_sizes, dim=0: _split(x, split_sizes, dim),
    domain=cases(_split_case((3, 2), (1, 2), 0)), tangent=LINEAR,
)


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of `split_size` along `dim` (the last may be smaller), or pieces of the listed sizes."""
    shape = _data(tensor).shape
    if not shape:
        raise ProgramIndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _dim(dim, len(shape))
    n = shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = tuple(as_int(s, "split size") for s in split_size_or_sections)
        if any(s < 0 for s in sizes) or sum(sizes) != n:
            raise ShapeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                f"dimension {d}), but got split_sizes={shape_str(sizes)}"
            )
        op = split_with_sizes_op
    else:
        size = as_int(split_size_or_sections, "split_size")
        if size < 0 or (size == 0 and n != 0):
            raise ShapeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
                             if size == 0 else f"split expects split_size be non-negative, but got split_size={size}")
        sizes = tuple(min(size, n - start) for start in range(0, n, size)) if n else (0,)
        op = split_op
    outs = apply(op, (tensor,), {"split_sizes": sizes, "dim": d})
    return outs


export("split", split)


def chunk(input, chunks, dim=0):
    """At most `chunks` pieces of equal size along `dim` (SplitBackward0)."""
    chunks = as_int(chunks, "chunks")
    if chunks <= 0:
        raise ProgramValueError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    shape = _data(input).shape
    if not shape:
        raise ProgramIndexError("chunk expects at least a 1-dimensional tensor")
    n = shape[_dim(dim, len(shape))]
    return split(input, max(-(-n // chunks), 1), dim)


export("chunk", chunk)


# -- repeat -------------------------------------------------------------------------


def _repeat(self, repeats):
    return np.tile(self, repeats)


def _repeat_grad(F, g, self_shape, repeats):
    if not repeats:
        return g
    padded = (1,) * (len(repeats) - len(self_shape)) + tuple(self_shape)
    pairs = []
    for r, s in zip(repeats, padded):
        pairs += [r, s]
    g = F.sum(F.reshape(g, tuple(pairs)), dim=tuple(range(0, 2 * len(repeats), 2)))
    return F.reshape(g, tuple(self_shape))


repeat_op = defop(
    "repeat", "RepeatBackward0", _repeat, public=False,
    rules=(_repeat_grad,), formulas=("grad summed over the repeated copies",),
    sympy=lambda sp, x, repeats: np.tile(x, repeats),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"repeats": (2, 1)}),
                 lambda rng: ((rng.uniform(-1, 1, (3,)),), {"repeats": (2, 2)}),
                 lambda rng: ((rng.uniform(-1, 1, ()),), {"repeats": (3,)})), tangent=LINEAR,
)


def repeat(input, *sizes):
    """The tensor tiled `sizes` times along each dim (RepeatBackward0)."""
    repeats = _sizes(sizes, "repeats")
    shape = _data(input).shape
    if len(repeats) < len(shape):
        raise ShapeError("Number of dimensions of repeat dims can not be smaller than number of "
                         "dimensions of tensor")
    if any(r < 0 for r in repeats):
        raise ShapeError(f"Trying to create tensor with negative dimension {min(repeats)}: {shape_str(repeats)}")
    check_elements(_data(input).size * math.prod(repeats))
    return apply(repeat_op, (input,), {"repeats": repeats})


_method("repeat", repeat)


# -- select, slice, narrow and their backwards ------------------------------------------


def _select(self, dim, index):
    dim = _axis(dim, np.ndim(self))
    return self[(slice(None),) * dim + (index, Ellipsis)]


def _select_backward(grad_output, input_sizes, dim, index):
    out = np.zeros(input_sizes, dtype=np.asarray(grad_output).dtype)
    out[(slice(None),) * _axis(dim, len(input_sizes)) + (index, Ellipsis)] = grad_output
    return out


select_op = defop(
    "select", "SelectBackward0", _select, public=False,
    rules=(lambda F, g, self_shape, dim, index: F.select_backward(g, self_shape, dim, index),),
    formulas=("select_backward(grad, self.shape, dim, index)",),
    sympy=lambda sp, x, dim, index: _select(x, dim, index),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"dim": 1, "index": 2}),
                 lambda rng: ((rng.uniform(-1, 1, (3,)),), {"dim": 0, "index": -1}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"dim": 0, "index": 0})), tangent=LINEAR,
)

select_backward = defop(
    "select_backward", "SelectBackwardBackward0", _select_backward, inputs=("grad_output",),
    public=False,
    rules=(lambda F, g, dim, index: F.select(g, dim, index),),
    formulas=("grad.select(dim, index)",),
    sympy=lambda sp, g, input_sizes, dim, index: _select_backward(g, input_sizes, dim, index),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (3,)),), {"input_sizes": (2, 3), "dim": 0, "index": 1}),
                 lambda rng: ((rng.uniform(-1, 1, ()),), {"input_sizes": (3,), "dim": 0, "index": 2})), tangent=LINEAR,
)


def select(input, dim, index):
    """The slice at `index` along `dim`, without that dim (SelectBackward0)."""
    shape = _data(input).shape
    if not shape:
        raise ProgramIndexError("select() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, len(shape))
    i = as_int(index, "index")
    if not -shape[d] <= i < shape[d]:
        raise ProgramIndexError(
            f"select(): index {i} out of range for tensor of size {shape_str(shape)} at dimension {d}")
    return apply(select_op, (input,), {"dim": d, "index": i % shape[d]})


_method("select", select)


def _slice(self, dim, start, end, step):
    dim = _axis(dim, np.ndim(self))
    return self[(slice(None),) * dim + (slice(start, end, step), Ellipsis)]


def _slice_backward(grad_output, input_sizes, dim, start, end, step):
    out = np.zeros(input_sizes, dtype=np.asarray(grad_output).dtype)
    out[(slice(None),) * _axis(dim, len(input_sizes)) + (slice(start, end, step), Ellipsis)] = grad_output
    return out


slice_op = defop(
    "slice", "SliceBackward0", _slice, public=False,
    rules=(lambda F, g, self_shape, dim, start, end, step:
           F.slice_backward(g, self_shape, dim, start, end, step),),
    formulas=("slice_backward(grad, self.shape, dim, start, end, step)",),
    sympy=lambda sp, x, dim, start, end, step: _slice(x, dim, start, end, step),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (3,)),), {"dim": 0, "start": 1, "end": 3, "step": 1}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"dim": 1, "start": 0, "end": 3, "step": 2})), tangent=LINEAR,
)

slice_backward = defop(
    "slice_backward", "SliceBackwardBackward0", _slice_backward, inputs=("grad_output",),
    public=False,
    rules=(lambda F, g, dim, start, end, step: F.slice(g, dim, start, end, step),),
    formulas=("grad.slice(dim, start, end, step)",),
    sympy=lambda sp, g, input_sizes, dim, start, end, step: _slice_backward(
        g, input_sizes, dim, start, end, step),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2,)),),
                              {"input_sizes": (3,), "dim": 0, "start": 1, "end": 3, "step": 1}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 2)),),
                              {"input_sizes": (2, 3), "dim": 1, "start": 0, "end": 3, "step": 2})), tangent=LINEAR,
)


def narrow(input, dim, start, length):
    """`length` elements from `start` along `dim` (SliceBackward0)."""
    shape = _data(input).shape
    if not shape:
        raise ProgramIndexError("narrow() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, len(shape))
    start = as_int(start, "start")
    length = as_int(length, "length")
    size = shape[d]
    if not -size <= start <= size:
        raise ProgramIndexError(
            f"Dimension out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise ShapeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise ShapeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return apply(slice_op, (input,), {"dim": d, "start": start, "end": start + length, "step": 1})


export("narrow", narrow, array=lambda input, dim, start, length: _slice(input, dim, start, start + length, 1))


def _alias(self):
    return self[...]


alias = defop(
    "alias", "AliasBackward0", _alias, public=False,
    rules=(lambda F, g: g,), formulas=("grad",),
    sympy=lambda sp, x: x,
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {})), tangent=LINEAR,
)


# -- flip, roll, tril, triu: copies ---------------------------------------------------
#
# PyTorch's flip and roll copy (a view would need negative strides, which
# PyTorch has not): their forwards return fresh arrays, never numpy views, so
# that an in-place op on the result cannot reach the input.


def _dims_list(name, dims, ndim, position=2):
    """A tuple of dims (PyTorch's `int[]` argument), each checked, none repeated."""
    if not isinstance(dims, (tuple, list)):
        raise ProgramTypeError(f"{name}(): argument 'dims' (position {position}) must be tuple of ints, "
                               f"not {type(dims).__name__}")
    return _dims(dims, ndim)


def _flip(self, dims):
    x = np.asarray(self)
    return np.flip(x, axis=dims).copy() if x.ndim else x.copy()


flip_op = defop(
    "flip", "FlipBackward0", _flip, public=False,
    rules=(lambda F, g, dims: F.flip(g, dims),), formulas=("grad.flip(dims)",),
    sympy=lambda sp, x, dims: _flip(x, dims),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"dims": (0,)}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"dims": (1, 0)}),
                 lambda rng: ((rng.uniform(-1, 1, (3,)),), {"dims": (0,)}),
                 lambda rng: ((rng.uniform(-1, 1, ()),), {"dims": ()})), tangent=LINEAR,
)


def flip(input, dims):
    """The elements in reverse order along each of `dims`, copied (FlipBackward0)."""
    ndim = _data(input).ndim
    return apply(flip_op, (input,), {"dims": () if not ndim else _dims_list("flip", dims, ndim)})


def _flip_method(input, *args, dims=None):
    """x.flip(0, 1), x.flip((0, 1)) or x.flip(dims=(0, 1))."""
    if dims is not None:
        if args:
            raise ProgramTypeError("flip() got multiple values for argument 'dims'")
        return flip(input, dims)
    return flip(input, args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args)


export("flip", flip, method=False, array=_flip)
_method("flip", _flip_method)


def _roll(self, shifts, dims=None):
    x = np.asarray(self)
    out = np.roll(x, shifts, axis=dims) if dims else np.roll(x, shifts[0])
    return out if out.base is None else out.copy()  # np.roll of a flattened array is a reshape


roll_op = defop(
    "roll", "RollBackward0", _roll, public=False,
    rules=(lambda F, g, shifts, dims: F.roll(g, tuple(-s for s in shifts), dims),),
    formulas=("grad.roll(-shifts, dims)",),
    sympy=lambda sp, x, shifts, dims=None: _roll(x, shifts, dims),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"shifts": (1,), "dims": (1,)}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"shifts": (1, -4), "dims": (0, 1)}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"shifts": (2,), "dims": None}),
                 lambda rng: ((rng.uniform(-1, 1, ()),), {"shifts": (1,), "dims": None})), tangent=LINEAR,
)


def roll(input, shifts, dims=None):
    """The elements shifted cyclically along `dims` (the flattened tensor if None), copied (RollBackward0)."""
    shifts = tuple(as_int(s, "shifts") for s in shifts) if isinstance(shifts, (tuple, list)) else (
        as_int(shifts, "shifts"),)
    if dims is None:
        dims = ()
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(shifts) != len(dims) and not (not dims and len(shifts) == 1):
        raise ShapeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    ndim = _data(input).ndim
    if dims and not ndim:
        raise ProgramIndexError(
            f"Dimension specified as {as_int(dims[0], 'dim')} but tensor has no dimensions")
    dims = tuple(_dim(d, ndim) for d in dims)
    return apply(roll_op, (input,), {"shifts": shifts, "dims": dims or None})


export("roll", roll, array=_roll)


def _triangle(name, fn):
    def forward(self, diagonal=0):
        return fn(self, diagonal)
    forward.__name__ = f"_{name}"
    return forward


def _triangle_sympy(fn):
    def counterpart(sp, x, diagonal=0):
        keep = fn(np.ones(x.shape, dtype=bool), diagonal)
        return np.where(keep, x, sp.Integer(0))
    return counterpart


_triangle_cases = cases(lambda rng: ((rng.uniform(-1, 1, (3, 3)),), {"diagonal": 0}),
                        lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"diagonal": 1}),
                        lambda rng: ((rng.uniform(-1, 1, (2, 2, 3)),), {"diagonal": -1}))

tril_op = defop(
    "tril", "TrilBackward0", _triangle("tril", np.tril), public=False,
    rules=(lambda F, g, diagonal: F.tril(g, diagonal),), formulas=("grad.tril(diagonal)",),
    sympy=_triangle_sympy(np.tril), domain=_triangle_cases, tangent=LINEAR,
)

triu_op = defop(
    "triu", "TriuBackward0", _triangle("triu", np.triu), public=False,
    rules=(lambda F, g, diagonal: F.triu(g, diagonal),), formulas=("grad.triu(diagonal)",),
    sympy=_triangle_sympy(np.triu), domain=_triangle_cases, tangent=LINEAR,
)


def _check_matrices(name, input):
    if _data(input).ndim < 2:
        raise ShapeError(f"{name}: input tensor must have at least 2 dimensions")


def tril(input, diagonal=0):
    """The lower triangle of the last two dims (on and below `diagonal`), the rest zero (TrilBackward0)."""
    _check_matrices("tril", input)
    return apply(tril_op, (input,), {"diagonal": as_int(diagonal, "diagonal")})


def triu(input, diagonal=0):
    """The upper triangle of the last two dims (on and above `diagonal`), the rest zero (TriuBackward0)."""
    _check_matrices("triu", input)
    return apply(triu_op, (input,), {"diagonal": as_int(diagonal, "diagonal")})


export("tril", tril, array=np.tril)
export("triu", triu, array=np.triu)


# -- diagonal (a view), diag ---------------------------------------------------------------


def _diagonal(self, offset=0, dim1=0, dim2=1):
    out = np.diagonal(self, offset, dim1, dim2)
    # numpy's diagonal is a read-only view of the input's storage; PyTorch's is a
    # writable view (in-place through it reaches the base), so it is made writable
    if isinstance(self, np.ndarray) and self.flags.writeable:
        out.flags.writeable = True
    return out


def _diagonal_backward(grad_output, input_sizes, offset, dim1, dim2):
    out = np.zeros(input_sizes, dtype=np.asarray(grad_output).dtype)
    region = np.diagonal(out, offset, dim1, dim2)
    region.flags.writeable = True
    region[...] = grad_output
    return out


diagonal_op = defop(
    "diagonal", "DiagonalBackward0", _diagonal, public=False,
    rules=(lambda F, g, self_shape, offset, dim1, dim2:
           F.diagonal_backward(g, self_shape, offset, dim1, dim2),),
    formulas=("diagonal_backward(grad, self.shape, offset, dim1, dim2)",),
    sympy=lambda sp, x, offset=0, dim1=0, dim2=1: np.diagonal(x, offset, dim1, dim2),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (3, 3)),), {"offset": 0, "dim1": 0, "dim2": 1}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {"offset": 1, "dim1": 1, "dim2": 0}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 3, 2)),), {"offset": -1, "dim1": 0, "dim2": 2})), tangent=LINEAR,
)

diagonal_backward = defop(
    "diagonal_backward", "DiagonalBackwardBackward0", _diagonal_backward, inputs=("grad_output",),
    public=False,
    rules=(lambda F, g, offset, dim1, dim2: F.diagonal(g, offset, dim1, dim2),),
    formulas=("grad.diagonal(offset, dim1, dim2)",),
    sympy=lambda sp, g, input_sizes, offset, dim1, dim2: _diagonal_backward(
        g, input_sizes, offset, dim1, dim2),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2,)),),
                              {"input_sizes": (2, 3), "offset": 1, "dim1": 0, "dim2": 1}),
                 lambda rng: ((rng.uniform(-1, 1, (2, 2)),),
                              {"input_sizes": (3, 2, 2), "offset": 1, "dim1": 2, "dim2": 0})), tangent=LINEAR,
)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the `dim1`, `dim2` planes, as a new last dim: a view (DiagonalBackward0)."""
    ndim = _data(input).ndim
    d1, d2 = _dim(dim1, ndim), _dim(dim2, ndim)
    if d1 == d2:
        raise ShapeError(f"diagonal dimensions cannot be identical {as_int(dim1)}, {as_int(dim2)}")
    return apply(diagonal_op, (input,), {"offset": as_int(offset, "offset"), "dim1": d1, "dim2": d2})


export("diagonal", diagonal, array=np.diagonal)


def _diag_embed(self, offset=0):
    n = np.shape(self)[0]
    size = n + abs(offset)
    out = np.zeros((size, size), dtype=np.asarray(self).dtype)
    k = np.arange(n)
    out[k + max(-offset, 0), k + max(offset, 0)] = self
    return out


def _diag_embed_sympy(sp, x, offset=0):
    out = _diag_embed(np.zeros(x.shape), offset).astype(object)
    k = np.arange(x.shape[0])
    out[k + max(-offset, 0), k + max(offset, 0)] = x
    return out


# torch.diag of a vector (PyTorch's diag_embed, for the one case diag needs).
diag_embed = defop(
    "diag_embed", "DiagEmbedBackward0", _diag_embed, public=False,
    rules=(lambda F, g, offset: F.diagonal(g, offset, 0, 1),), formulas=("grad.diagonal(offset)",),
    sympy=_diag_embed_sympy,
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (3,)),), {"offset": 0}),
                 lambda rng: ((rng.uniform(-1, 1, (2,)),), {"offset": -1}),
                 lambda rng: ((rng.uniform(-1, 1, (2,)),), {"offset": 2})), tangent=LINEAR,
)

# torch.diag of a matrix: a copy of its diagonal, which PyTorch records as
# DiagonalBackward0_copy. That name has no <Op>Backward<k> form, so the op lives
# outside the table (tests/ops/test_activations_scans_and_gather.py checks its gradients).
diag_copy = Op(
    "diag_copy", "DiagonalBackward0_copy", lambda self, offset=0: np.diagonal(self, offset).copy(),
    rules=(lambda F, g, self_shape, offset: F.diagonal_backward(g, self_shape, offset, 0, 1),),
    formulas=("diagonal_backward(grad, self.shape, offset, 0, 1)",),
    sympy=lambda sp, x, offset=0: np.diagonal(x, offset),
)


def diag(input, diagonal=0):
    """A vector's diagonal matrix (DiagEmbedBackward0), or a copy of a matrix's diagonal
    (DiagonalBackward0_copy), as torch.diag records them."""
    ndim = _data(input).ndim
    offset = as_int(diagonal, "diagonal")
    if ndim == 1:
        size = _data(input).shape[0] + abs(offset)
        check_elements(size * size)
        return apply(diag_embed, (input,), {"offset": offset})
    if ndim == 2:
        return apply(diag_copy, (input,), {"offset": offset})
    raise ShapeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")


export("diag", diag)


# -- movedim, swapaxes: permute and transpose under other names ---------------------------


def _movedim_order(source, destination, ndim):
    src = tuple(source) if isinstance(source, (tuple, list)) else (source,)
    dst = tuple(destination) if isinstance(destination, (tuple, list)) else (destination,)
    if len(src) != len(dst):
        raise ShapeError(
            f"movedim: Invalid source or destination dims: source ({shape_str(src)} dims) should contain "
            f"the same number of dims as destination ({shape_str(dst)} dims)")
    s = [_dim(d, ndim) for d in src]
    d = [_dim(x, ndim) for x in dst]
    if len(set(s)) != len(s):
        raise ShapeError(f"movedim: repeated dim in `source` ({shape_str(src)})")
    if len(set(d)) != len(d):
        raise ShapeError(f"movedim: repeated dim in `destination` ({shape_str(dst)})")
    if not ndim:
        return ()
    order = [None] * ndim
    for a, b in zip(s, d):
        order[b] = a
    rest = iter(a for a in range(ndim) if a not in s)
    return tuple(a if a is not None else next(rest) for a in order)


def movedim(input, source, destination):
    """The dims `source` moved to `destination`, the others in order: a permute (PermuteBackward0)."""
    order = _movedim_order(source, destination, _data(input).ndim)
    return apply(OPS["permute"], (input,), {"dims": order})


def swapaxes(input, axis0, axis1):
    """transpose under numpy's name (TransposeBackward0)."""
    return apply(OPS["transpose"], (input,), {"dim0": axis0, "dim1": axis1})


def swapdims(input, dim0, dim1):
    """transpose under another name (TransposeBackward0)."""
    return apply(OPS["transpose"], (input,), {"dim0": dim0, "dim1": dim1})


export("movedim", movedim)
export("moveaxis", movedim)
export("swapaxes", swapaxes)
export("swapdims", swapdims)


# -- contiguous, view_as, reshape_as, unflatten -------------------------------------------


def _contiguous(self):
    return np.array(self, order="C", copy=True)


# x.contiguous() of a strided tensor: PyTorch's clone(memory_format=contiguous_format).
contiguous_op = defop(
    "contiguous", "CloneBackward0", _contiguous, public=False,
    rules=(lambda F, g: g,), formulas=("grad",),
    sympy=lambda sp, x: np.array(x, copy=True),
    domain=cases(lambda rng: ((rng.uniform(-1, 1, (2, 3)),), {})), tangent=LINEAR,
)


def contiguous(input, memory_format=None):
    """The tensor itself if its storage is in row-major order; else a row-major copy (CloneBackward0).

    The layout is numpy's: transposes, permutes, expands and strided slices are
    not contiguous, as in PyTorch.
    """
    if input._data.flags.c_contiguous:
        return input
    return apply(contiguous_op, (input,))


def _other(name, other):
    if not isinstance(other, Tensor):
        raise ProgramTypeError(f"{name}(): argument 'other' (position 1) must be Tensor, "
                               f"not {type(other).__name__}")
    return other._data.shape


_method("contiguous", contiguous)
_method("view_as", lambda input, other: reshape(input, _other("view_as", other)))
_method("reshape_as", lambda input, other: reshape(input, _other("reshape_as", other)))


def unflatten(input, dim, sizes):
    """Dim `dim` split into `sizes` (one may be -1): a view (ViewBackward0)."""
    if not isinstance(sizes, (tuple, list)):
        raise ProgramTypeError(f"unflatten(): argument 'sizes' (position 2) must be tuple of ints, "
                               f"not {type(sizes).__name__}")
    shape = _data(input).shape
    if not shape:
        raise ShapeError("unflatten got an unexpected error:\n"
                         f"Dimension specified as {as_int(dim, 'dim')} but tensor has no dimensions")
    d = _dim(dim, len(shape))
    sizes = tuple(as_int(s, "sizes") for s in sizes)
    if not sizes:
        raise ShapeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise ShapeError("unflatten got an unexpected error:\nonly one dimension can be inferred")
    known = math.prod(s for s in sizes if s != -1)
    if (known != shape[d]) if -1 not in sizes else (known == 0 or shape[d] % known):
        raise ShapeError(f"unflatten: Provided sizes {shape_str(sizes)} don't multiply up to the size of "
                         f"dim {d} ({shape[d]}) in the input tensor")
    return reshape(input, shape[:d] + sizes + shape[d + 1:])


export("unflatten", unflatten)
