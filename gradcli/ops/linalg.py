"""Linear algebra: dot, mm, mv, bmm, addmm, matmul, outer, t, transpose, permute, .T, trace, det, inverse.

Each op keeps PyTorch's node name (DotBackward0, MmBackward0, LinalgDetBackward0,
LinalgInvExBackward0, ...) and its shape errors. `matmul` is a dispatcher, as
in PyTorch: 1-D @ 1-D is `dot`, 2-D @ 2-D `mm`, 2-D @ 1-D `mv`, 1-D @ 2-D
`mm` between an unsqueeze and a squeeze, an N-D left side against a 1-D or
2-D right side is folded into one `mm`/`mv`, and anything else is expanded to
a common batch and run through `bmm`. PyTorch's choice among these also
depends on memory layout (clones, transposed folds); gradcli has no strides,
so for batched products it always takes the plain path. `outer` is
`a.reshape(n, 1) * b` (MulBackward0), as in PyTorch.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ProgramTypeError, ProgramValueError, ShapeError
from .._tensor import Tensor, _dim, as_int, check_elements
from .broadcast import _expand_shape
from .shapes import broadcast_shapes
from .domains import cases
from .costs import cubic, matmul_flops
from .apply import apply
from .registry import PROPERTIES, TENSORS, defop, export, LINEAR, BILINEAR


def _shape(x) -> tuple:
    return tuple(np.shape(x._data if isinstance(x, Tensor) else x))


def _array(x):
    """The numpy value of a rule argument (a Tensor under create_graph, else an array)."""
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _obj(x):
    """A single SymPy expression as a 0-d numpy object array."""
    out = np.empty((), dtype=object)
    out[()] = x
    return out


def _matrix(rng, n, batch=()):
    """Well-conditioned random n x n matrices: a small perturbation of 2 I."""
    return rng.uniform(-0.5, 0.5, batch + (n, n)) + 2.0 * np.eye(n)


# -- products ----------------------------------------------------------------------


def _dot(self, tensor):
    sa, sb = np.shape(self), np.shape(tensor)
    if len(sa) != 1 or len(sb) != 1:
        raise ShapeError(f"1D tensors expected, but got {len(sa)}D and {len(sb)}D tensors")
    if sa[0] != sb[0]:
        raise ShapeError(
            f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have the same "
            f"number of elements, but got {sa[0]} and {sb[0]} elements respectively"
        )
    return np.asarray(np.dot(self, tensor))


dot = defop(
    "dot", "DotBackward0", _dot, inputs=("self", "tensor"), cost=matmul_flops,
    rules=(lambda F, g, tensor: g * tensor, lambda F, g, self: g * self),
    formulas=("grad * tensor", "grad * self"),
    sympy=lambda sp, a, b: _obj(np.dot(a, b)),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (3,)), rng.uniform(-2, 2, (3,))), {}),
                 lambda rng: ((rng.uniform(-2, 2, (1,)), rng.uniform(-2, 2, (1,))), {})), tangent=BILINEAR,
)


def _check_mm(sa, sb, first="self", second="mat2"):
    if len(sa) != 2:
        raise ShapeError(f"{first} must be a matrix")
    if len(sb) != 2:
        raise ShapeError(f"{second} must be a matrix")
    if sa[1] != sb[0]:
        raise ShapeError(
            f"mat1 and mat2 shapes cannot be multiplied ({sa[0]}x{sa[1]} and {sb[0]}x{sb[1]})"
        )
    check_elements(sa[0] * sb[1])


def _mm(self, mat2):
    _check_mm(np.shape(self), np.shape(mat2))
    return np.matmul(self, mat2)


mm = defop(
    "mm", "MmBackward0", _mm, inputs=("self", "mat2"), cost=matmul_flops,
    rules=(lambda F, g, mat2: F.mm(g, F.t(mat2)), lambda F, g, self: F.mm(F.t(self), g)),
    formulas=("grad.mm(mat2.t())", "self.t().mm(grad)"),
    sympy=lambda sp, a, b: np.matmul(a, b),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (3, 2))), {}),
                 lambda rng: ((rng.uniform(-2, 2, (1, 3)), rng.uniform(-2, 2, (3, 1))), {}),
                 lambda rng: ((rng.uniform(-2, 2, (3, 1)), rng.uniform(-2, 2, (1, 2))), {})), tangent=BILINEAR,
)


def _mv(self, vec):
    sa, sb = np.shape(self), np.shape(vec)
    if len(sa) != 2 or len(sb) != 1:
        raise ShapeError(f"vector + matrix @ vector expected, got 1, {len(sa)}, {len(sb)}")
    if sa[1] != sb[0]:
        raise ShapeError(f"size mismatch, got input ({sa[0]}), mat ({sa[0]}x{sa[1]}), vec ({sb[0]})")
    return np.matmul(self, vec)


mv = defop(
    "mv", "MvBackward0", _mv, inputs=("self", "vec"), cost=matmul_flops,
    rules=(lambda F, g, vec: F.outer(g, vec), lambda F, g, self: F.mv(F.t(self), g)),
    formulas=("grad.outer(vec)", "self.t().mv(grad)"),
    sympy=lambda sp, a, b: np.matmul(a, b),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (3,))), {}),
                 lambda rng: ((rng.uniform(-2, 2, (3, 3)), rng.uniform(-2, 2, (3,))), {})), tangent=BILINEAR,
)


def _bmm(self, mat2):
    sa, sb = np.shape(self), np.shape(mat2)
    if len(sa) != 3:
        raise ShapeError("batch1 must be a 3D tensor")
    if len(sb) != 3:
        raise ShapeError("batch2 must be a 3D tensor")
    if sb[0] != sa[0] or sb[1] != sa[2]:
        raise ShapeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{sa[0]}, {sa[2]}] but "
            f"got: [{sb[0]}, {sb[1]}]."
        )
    check_elements(sa[0] * sa[1] * sb[2])
    return np.matmul(self, mat2)


bmm = defop(
    "bmm", "BmmBackward0", _bmm, inputs=("self", "mat2"), cost=matmul_flops,
    rules=(lambda F, g, mat2: F.bmm(g, F.transpose(mat2, 1, 2)),
           lambda F, g, self: F.bmm(F.transpose(self, 1, 2), g)),
    formulas=("grad.bmm(mat2.transpose(1, 2))", "self.transpose(1, 2).bmm(grad)"),
    sympy=lambda sp, a, b: np.matmul(a, b),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (2, 2, 3)), rng.uniform(-2, 2, (2, 3, 2))), {}),
                 lambda rng: ((rng.uniform(-2, 2, (1, 3, 1)), rng.uniform(-2, 2, (1, 1, 2))), {})), tangent=BILINEAR,
)


def _addmm(self, mat1, mat2, beta=1.0, alpha=1.0):
    sa, sb = np.shape(mat1), np.shape(mat2)
    _check_mm(sa, sb, "mat1", "mat2")
    out_shape = (sa[0], sb[1])
    _expand_shape(np.shape(self), out_shape)
    product = np.matmul(mat1, mat2)
    if alpha != 1:
        product = product * alpha
    if beta == 0:  # PyTorch: with beta = 0 the input is ignored (its nan and inf too)
        return product
    return product + (self if beta == 1 else np.multiply(self, beta))


def _scaled(g, factor):
    return g if factor == 1 else g * float(factor)


addmm = defop(
    "addmm", "AddmmBackward0", _addmm, inputs=("self", "mat1", "mat2"), broadcasts=True,
    cost=matmul_flops,
    rules=(lambda F, g, beta: _scaled(g, beta),
           lambda F, g, mat2, alpha: _scaled(F.mm(g, F.t(mat2)), alpha),
           lambda F, g, mat1, alpha: _scaled(F.mm(F.t(mat1), g), alpha)),
    formulas=("grad * beta", "grad.mm(mat2.t()) * alpha", "mat1.t().mm(grad) * alpha"),
    sympy=lambda sp, c, a, b, beta=1.0, alpha=1.0: c * sp.nsimplify(beta) + np.matmul(a, b) * sp.nsimplify(alpha),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (2,)), rng.uniform(-2, 2, (3, 3)),
                               rng.uniform(-2, 2, (3, 2))), {}),
                 lambda rng: ((rng.uniform(-2, 2, (2, 2)), rng.uniform(-2, 2, (2, 3)),
                               rng.uniform(-2, 2, (3, 2))), {"beta": 0.5, "alpha": -2.0}),
                 lambda rng: ((1.5, rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (3, 1))), {})),
)


def _unsafe_view(self, shape):
    return np.reshape(self, tuple(shape))


# matmul's reshape of its result, under PyTorch's name for it.
unsafe_view = defop(
    "_unsafe_view", "UnsafeViewBackward0", _unsafe_view, public=False,
    rules=(lambda F, g, self_shape: F.reshape(g, self_shape),),
    formulas=("grad.reshape(self.shape)",),
    sympy=lambda sp, x, shape: np.reshape(x, tuple(shape)),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (4, 2)),), {"shape": (2, 2, 2)})), tangent=LINEAR,
)


def _matmul_squeeze(self, dim):
    return np.squeeze(self, axis=dim)


# The squeeze that ends 1-D @ 2-D: PyTorch's in-place squeeze_, named SqueezeBackward4.
matmul_squeeze = defop(
    "_matmul_squeeze", "SqueezeBackward4", _matmul_squeeze, public=False,
    rules=(lambda F, g, self_shape: F.reshape(g, self_shape),),
    formulas=("grad.reshape(self.shape)",),
    sympy=lambda sp, x, dim: np.squeeze(x, axis=dim),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (1, 3)),), {"dim": 0})), tangent=LINEAR,
)


def matmul(input, other):
    """The matrix product of PyTorch's matmul: dot, mv, mm, or a broadcast batched product."""
    sa, sb = _shape(input), _shape(other)
    da, db = len(sa), len(sb)
    if da == 0 or db == 0:
        raise ShapeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return apply(dot, (input, other))
    if da == 2 and db == 1:
        return apply(mv, (input, other))
    if da == 1 and db == 2:
        row = TENSORS.unsqueeze(input, 0)
        return apply(matmul_squeeze, (apply(mm, (row, other)),), {"dim": 0})
    if da == 2 and db == 2:
        return apply(mm, (input, other))
    if da >= 3 and db <= 2:
        # Fold the batch into the rows: one mm (or mv) on a (batch * n, m) matrix.
        folded = TENSORS.reshape(input, (-1, sa[-1]))
        out = apply(mv if db == 1 else mm, (folded, other))
        return apply(unsafe_view, (out,), {"shape": sa[:-1] + sb[1:]})
    # Batched: expand both to a common batch, flatten it, bmm, and view the result back.
    a = TENSORS.unsqueeze(input, 0) if da == 1 else input
    b = TENSORS.unsqueeze(other, -1) if db == 1 else other
    sa2, sb2 = _shape(a), _shape(b)
    batch = broadcast_shapes(sa2[:-2], sb2[:-2])
    n, m, k, p = sa2[-2], sa2[-1], sb2[-2], sb2[-1]
    count = math.prod(batch)
    a3 = TENSORS.reshape(TENSORS.expand(a, batch + (n, m)), (count, n, m))
    b3 = TENSORS.reshape(TENSORS.expand(b, batch + (k, p)), (count, k, p))
    out = apply(bmm, (a3, b3))
    shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    return apply(unsafe_view, (out,), {"shape": shape})


export("matmul", matmul, array=np.matmul)


def outer(input, vec2):
    """The outer product of two vectors: input.reshape(n, 1) * vec2, as PyTorch computes it."""
    for name, x in (("self", input), ("vec2", vec2)):
        if len(_shape(x)) != 1:
            raise ShapeError(f"outer: Expected 1-D argument {name}, but got {len(_shape(x))}-D")
    return TENSORS.mul(TENSORS.reshape(input, (_shape(input)[0], 1)), vec2)


export("outer", outer, array=np.outer)


# -- transposes --------------------------------------------------------------------


def _t(self):
    nd = np.ndim(self)
    if nd > 2:
        raise ShapeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return np.transpose(self)


t = defop(
    "t", "TBackward0", _t,
    rules=(lambda F, g: F.t(g),), formulas=("grad.t()",),
    sympy=lambda sp, x: np.transpose(x),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (2, 3)),), {}),
                 lambda rng: ((rng.uniform(-2, 2, (3,)),), {}),
                 lambda rng: ((rng.uniform(-2, 2, ()),), {})), tangent=LINEAR,
)


def _transpose(self, dim0, dim1):
    nd = np.ndim(self)
    d0, d1 = _dim(dim0, nd), _dim(dim1, nd)
    if nd == 0:
        return np.asarray(self)
    return np.swapaxes(self, d0, d1)


transpose = defop(
    "transpose", "TransposeBackward0", _transpose,
    rules=(lambda F, g, dim0, dim1: F.transpose(g, dim0, dim1),),
    formulas=("grad.transpose(dim0, dim1)",),
    sympy=lambda sp, x, dim0, dim1: _transpose(x, dim0, dim1),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (2, 3)),), {"dim0": 0, "dim1": 1}),
                 lambda rng: ((rng.uniform(-2, 2, (2, 3, 2)),), {"dim0": -1, "dim1": 0}),
                 lambda rng: ((rng.uniform(-2, 2, (3,)),), {"dim0": 0, "dim1": -1})), tangent=LINEAR,
)


def _permutation(dims, nd) -> tuple:
    """`dims` (a tuple, a list, or the varargs of x.permute(1, 0)) checked against `nd` dims."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    dims = tuple(as_int(d, "dim") for d in dims)
    if len(dims) != nd:
        raise ShapeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length "
            f"of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to "
            f"len(dims) = {len(dims)}"
        )
    dims = tuple(_dim(d, nd) for d in dims) if nd else dims
    if len(set(dims)) != len(dims):
        raise ShapeError("permute(): duplicate dims are not allowed.")
    return dims


def _permute(self, dims):
    return np.transpose(self, _permutation(tuple(dims), np.ndim(self)))


def _permute_grad(F, g, dims):
    return F.permute(g, tuple(int(i) for i in np.argsort(dims)))


permute_op = defop(
    "permute", "PermuteBackward0", _permute, public=False,
    rules=(_permute_grad,), formulas=("grad.permute(argsort(dims))",),
    sympy=lambda sp, x, dims: _permute(x, dims),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (2, 3, 4)),), {"dims": (2, 0, 1)}),
                 lambda rng: ((rng.uniform(-2, 2, (2, 3)),), {"dims": (1, 0)}),
                 lambda rng: ((rng.uniform(-2, 2, ()),), {"dims": ()})), tangent=LINEAR,
)


def permute(input, *dims):
    """The dims of `input` reordered (PermuteBackward0): permute(x, (1, 0)) or x.permute(1, 0)."""
    return apply(permute_op, (input,), {"dims": _permutation(dims, len(_shape(input)))})


export("permute", permute, array=lambda input, *dims: _permute(input, _permutation(dims, np.ndim(input))))


def _T(self):
    """x.T: the dims reversed (PermuteBackward0), as PyTorch does for every ndim."""
    return permute(self, tuple(range(self.ndim - 1, -1, -1)))


def _mT(self):
    """x.mT: the last two dims swapped (TransposeBackward0)."""
    if self.ndim < 2:
        raise ShapeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
    return apply(transpose, (self,), {"dim0": -2, "dim1": -1})


PROPERTIES["T"] = _T
PROPERTIES["mT"] = _mT


# -- trace, det, inverse ---------------------------------------------------------


def _trace(self):
    nd = np.ndim(self)
    if nd != 2:
        raise ShapeError(f"trace: expected a matrix, but got tensor with dim {nd}")
    return np.asarray(np.trace(self))


trace = defop(
    "trace", "TraceBackward0", _trace,
    rules=(lambda F, g, self_shape: g * np.eye(*self_shape),),
    formulas=("grad * eye(*self.shape)",),
    sympy=lambda sp, x: _obj(sum((x[i, i] for i in range(min(x.shape))), sp.Integer(0))),
    domain=cases(lambda rng: ((rng.uniform(-2, 2, (3, 3)),), {}),
                 lambda rng: ((rng.uniform(-2, 2, (2, 3)),), {})), tangent=LINEAR,
)


def _check_square(name, shape):
    if len(shape) < 2:
        raise ShapeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if shape[-1] != shape[-2]:
        raise ShapeError(
            f"linalg.{name}: A must be batches of square matrices, but they are {shape[-2]} by "
            f"{shape[-1]} matrices"
        )


# Up to this size LAPACK's getrf factors without blocking, so gradcli can follow its
# order of operations; beyond it the rounding differs anyway and numpy's det is faster.
_LU_DET_MAX = 64


def _det(self):
    """The determinant as PyTorch computes it: the product of the diagonal of the LU factors.

    numpy's det is exp(sum(log|u_ii|)) (its slogdet), which rounds differently:
    det([[1, 2], [3, 4]]) is -2.0000000000000004 there and -2.0 in PyTorch.
    """
    shape = np.shape(self)
    _check_square("det", shape)
    if not 0 < shape[-1] <= _LU_DET_MAX:
        return np.asarray(np.linalg.det(self), dtype=np.float64)
    return _lu_det(np.array(self, dtype=np.float64, copy=True))


def _lu_det(a):
    """det by getf2's elimination with partial pivoting, on every matrix of `a` at once."""
    n = a.shape[-1]
    batch = a.shape[:-2]
    a = a.reshape((-1, n, n))
    rows = np.arange(len(a))
    sign = np.ones(len(a))
    with np.errstate(all="ignore"):
        for k in range(n):
            p = k + np.argmax(np.abs(a[:, k:, k]), axis=1)
            swap = p != k
            if swap.any():
                top = a[rows, k].copy()
                a[rows, k] = a[rows, p]
                a[rows, p] = top
                sign = np.where(swap, -sign, sign)
            pivot = a[:, k, k]
            # getf2 scales the column by the pivot's reciprocal; a zero pivot leaves it as it is
            scale = np.where(pivot != 0, 1.0 / np.where(pivot != 0, pivot, 1.0), 1.0)
            a[:, k + 1:, k] *= scale[:, None]
            a[:, k + 1:, k + 1:] -= a[:, k + 1:, k, None] * a[:, k, None, k + 1:]
    diagonal = np.diagonal(a, axis1=1, axis2=2)
    out = sign * np.prod(diagonal, axis=1)
    return out.reshape(batch)


def _invertible(a) -> bool:
    """Whether every matrix of `a` is far enough from singular for the inverse formula.

    det (LU, as PyTorch) and inverse round differently, so det * inverse loses
    about cond(a) ulps: beyond 1e6 the cofactors (exact) are used instead.
    """
    if not np.all(np.isfinite(a)):
        return False
    with np.errstate(all="ignore"):
        return bool(np.all(np.linalg.cond(a) < 1e6)) if a.shape[-1] else True


def _cofactors(F, a, shape):
    """The cofactor matrix of `a` from its minors: exact, and differentiable, at singular matrices."""
    n = shape[-1]
    eye = np.eye(n)
    total = None
    for i in range(n):
        rows = np.delete(eye, i, axis=0)
        for j in range(n):
            cols = np.delete(eye, j, axis=1)
            minor = F.det(F.matmul(F.matmul(rows, a), cols)) if n > 1 else F.sum(a * 0.0, (-2, -1)) + 1.0
            unit = np.zeros((n, n))
            unit[i, j] = -1.0 if (i + j) % 2 else 1.0
            term = F.unsqueeze(F.unsqueeze(minor, -1), -1) * unit
            total = term if total is None else total + term
    return total


def _det_grad(F, g, self, result, self_shape):
    # d det(A) / dA = det(A) A^{-T}; at (near-)singular A, the cofactor matrix from minors.
    g2 = F.unsqueeze(F.unsqueeze(g, -1), -1)
    if _invertible(_array(self)):
        return g2 * F.unsqueeze(F.unsqueeze(result, -1), -1) * F.transpose(F.inverse(self), -2, -1)
    return g2 * _cofactors(F, self, self_shape)


def _sympy_batched(fn, x):
    """Apply a SymPy matrix function to each matrix of an object array (...., n, n)."""
    if x.ndim == 2:
        return fn(x)
    return np.stack([_sympy_batched(fn, m) for m in x]) if len(x) else x


def _sympy_det(sp, x):
    return _sympy_batched(lambda m: _obj(sp.Matrix(m.tolist()).det()), x)


def _sympy_inverse(sp, x):
    return _sympy_batched(lambda m: np.array(sp.Matrix(m.tolist()).inv().tolist(), dtype=object), x)


det = defop(
    "det", "LinalgDetBackward0", _det, cost=cubic,
    rules=(_det_grad,), formulas=("grad * result * self.inverse().mT (cofactors if singular)",),
    sympy=_sympy_det,
    domain=cases(lambda rng: ((_matrix(rng, 2),), {}),
                 lambda rng: ((_matrix(rng, 3),), {}),
                 lambda rng: ((_matrix(rng, 2, (2,)),), {}),
                 lambda rng: ((np.array([[1.0, 2.0], [2.0, 4.0]]),), {}),
                 lambda rng: ((np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 1.5]]),), {})),
)


def _singular_pivot(a) -> int:
    """The 1-based index of LAPACK getrf's first zero pivot (for PyTorch's message)."""
    a = np.array(a, dtype=np.float64)
    n = a.shape[0]
    first = 0
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        a[[k, p]] = a[[p, k]]
        if a[k, k] == 0:
            first = first or k + 1
            continue
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return first or n


def _inverse(self):
    shape = np.shape(self)
    _check_square("inv", shape)
    try:
        return np.linalg.inv(self)
    except np.linalg.LinAlgError:
        pass
    flat = np.reshape(self, (-1,) + shape[-2:])
    for b, m in enumerate(flat):
        try:
            np.linalg.inv(m)
        except np.linalg.LinAlgError:
            where = f"(Batch element {b}): " if len(shape) > 2 else ""
            raise ProgramValueError(
                f"linalg.inv: {where}The diagonal element {_singular_pivot(m)} is zero, the inversion "
                "could not be completed because the input matrix is singular."
            ) from None
    raise ProgramValueError("linalg.inv: the input matrix is singular.")


def _inverse_grad(F, g, result):
    rt = F.transpose(result, -2, -1)
    return -F.matmul(F.matmul(rt, g), rt)


inverse = defop(
    "inverse", "LinalgInvExBackward0", _inverse, cost=cubic,
    rules=(_inverse_grad,), formulas=("-result.mT @ grad @ result.mT",),
    sympy=_sympy_inverse,
    domain=cases(lambda rng: ((_matrix(rng, 2),), {}),
                 lambda rng: ((_matrix(rng, 3),), {}),
                 lambda rng: ((_matrix(rng, 2, (2,)),), {})),
)


# -- torch.linalg: solve, and the namespace ----------------------------------------------------


def _solve(self, other, vector=False):
    try:
        if vector:
            return np.linalg.solve(self, np.asarray(other)[..., None])[..., 0]
        return np.linalg.solve(self, other)
    except np.linalg.LinAlgError:
        raise ProgramValueError("torch.linalg.solve: The solver failed because the input matrix is "
                                "singular.") from None


def _solve_other_grad(F, g, self, vector):
    return F.linalg_solve(F.transpose(self, -2, -1), g, vector)


def _solve_self_grad(F, g, self, result, vector):
    g_other = _solve_other_grad(F, g, self, vector)
    if vector:
        return -(F.unsqueeze(g_other, -1) * F.unsqueeze(result, -2))
    return -F.matmul(g_other, F.transpose(result, -2, -1))


def _sympy_solve(sp, a, b, vector=False):
    a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    if a.ndim > 2:
        return np.stack([_sympy_solve(sp, x, y, vector) for x, y in zip(a, b)])
    rhs = sp.Matrix(b.tolist()) if vector else sp.Matrix(b.tolist())
    out = np.array((sp.Matrix(a.tolist()).inv() * rhs).tolist(), dtype=object)
    return out[:, 0] if vector else out


linalg_solve = defop(
    "linalg_solve", "LinalgSolveExBackward0", _solve, inputs=("self", "other"), public=False,
    cost=cubic,
    rules=(_solve_self_grad, _solve_other_grad),
    formulas=("-solve(self.mT, grad) @ result.mT", "solve(self.mT, grad)"),
    sympy=_sympy_solve,
    domain=cases(lambda rng: ((_matrix(rng, 2), rng.uniform(-2, 2, (2,))), {"vector": True}),
                 lambda rng: ((_matrix(rng, 3), rng.uniform(-2, 2, (3, 2))), {}),
                 lambda rng: ((_matrix(rng, 2, (2,)), rng.uniform(-2, 2, (2, 2, 1))), {})),
)


def solve(A, B, *, left=True, out=None):
    """X with A @ X = B (LinalgSolveExBackward0); B is a vector when it is 1-D or A's shape
    without its last dim. left=False solves X @ A = B, as solve(A.mT, B.mT).mT."""
    sa, sb = _shape(A), _shape(B)
    _check_square("solve", sa)
    if not left:
        return TENSORS.transpose(solve(TENSORS.transpose(A, -2, -1), TENSORS.transpose(B, -2, -1)), -2, -1)
    vector = len(sb) == 1 or (len(sb) == len(sa) - 1 and sb == sa[:-1])
    rows = sb[-1] if vector else (sb[-2] if len(sb) >= 2 else None)
    if rows != sa[-1]:
        cols = 1 if vector else (sb[-1] if sb else 1)
        raise ShapeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                         f"({sa[-2]}x{sa[-1]} and {rows}x{cols})")
    core = 1 if vector else 2
    batch = broadcast_shapes(sa[:-2], sb[:-core])
    if sa[:-2] != batch:
        A = TENSORS.expand(A, batch + sa[-2:])
    if sb[:-core] != batch:
        B = TENSORS.expand(B, batch + sb[-core:])
    return apply(linalg_solve, (A, B), {"vector": vector})


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The vector ord-norm over `dim` (all elements by default) (LinalgVectorNormBackward0)."""
    if isinstance(ord, str) or not isinstance(ord, (int, float, np.number, Tensor)):
        raise ProgramTypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, "
                               f"not {type(ord).__name__}")
    return TENSORS.norm(x, float(ord), dim, keepdim)


_MATRIX_ORDS = ("fro", 1, -1, np.inf, -np.inf)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """The Frobenius norm (a vector norm over both dims), or the largest (ord 1, inf) or
    smallest (-1, -inf) column or row sum of |A|, as PyTorch composes them."""
    shape = _shape(A)
    if len(shape) < 2:
        raise ShapeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if isinstance(ord, Tensor):
        ord = ord.item()
    if ord in ("nuc", 2, -2):
        raise ProgramValueError(f"linalg.matrix_norm: ord={ord!r} needs singular values, which gradcli "
                                "does not compute; 'fro', 1, -1, inf and -inf are supported")
    if not any(ord == o and type(ord) is not bool for o in _MATRIX_ORDS):
        raise ProgramValueError(f"linalg.matrix_norm: Order {ord} not supported.")
    d0, d1 = (_dim(d, len(shape)) for d in dim)
    if ord == "fro":
        return TENSORS.norm(A, 2.0, (d0, d1), keepdim)
    if abs(ord) == np.inf:
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    sums = TENSORS.norm(A, 1.0, d0, keepdim)
    return (TENSORS.amax if ord > 0 else TENSORS.amin)(sums, d1, keepdim)


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """torch.linalg.norm: a vector norm (ord None: 2 over everything), or a matrix norm for a
    2-D input or a pair of dims."""
    shape = _shape(A)
    if dim is not None and not isinstance(dim, (tuple, list)):
        dim = (dim,)
    if ord is None:
        return TENSORS.norm(A, 2.0, None if dim is None else tuple(dim), keepdim)
    if dim is None:
        if len(shape) not in (1, 2):
            raise ShapeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                             f"Got {len(shape)}D.")
        dim = tuple(range(len(shape)))
    if len(dim) == 2:
        return matrix_norm(A, ord, tuple(dim), keepdim)
    if isinstance(ord, str):
        raise ShapeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    return vector_norm(A, ord, tuple(dim), keepdim)


# torch.linalg.<name> (the language's `torch.linalg` namespace is made from this table)
LINALG_FUNCTIONS = {
    "norm": linalg_norm, "vector_norm": vector_norm, "matrix_norm": matrix_norm,
    "inv": TENSORS.inverse, "det": TENSORS.det, "solve": solve,
}
