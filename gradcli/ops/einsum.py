"""einsum: Einstein summation, composed from views, sums and matmul.

No op of its own: a repeated subscript within an operand is a `diagonal`, a
subscript no other operand or the output needs is summed at once, each pair
of operands is one `matmul` over the subscripts they share (permuted and
reshaped to (batch, rows, shared) @ (batch, shared, cols)), or a broadcasting
`mul` when they share none, and the output is a `permute`. Every step is a
differentiable op, so every order of derivative comes for free, and no
intermediate is larger than a pairwise product needs (the element limit is
checked by each op).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ProgramTypeError, ShapeError
from .._tensor import Tensor
from .registry import TENSORS, export


def _shape(x) -> tuple:
    return tuple(np.shape(x._data if isinstance(x, Tensor) else x))


def _einsum_error(message):
    return ShapeError(f"einsum(): {message}")


def _parse_subscripts(equation):
    """The subscripts of each operand and of the output (None: implicit), '...' as Ellipsis."""
    if not isinstance(equation, str):
        raise ProgramTypeError(f"einsum(): argument 'equation' (position 1) must be str, "
                               f"not {type(equation).__name__}")
    lhs, arrow, rhs = equation.partition("->")
    terms = [[]]
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == ",":
            terms.append([])
        elif c == ".":
            if lhs[i:i + 3] != "..." or Ellipsis in terms[-1]:
                found = "for which an ellipsis was already found" if Ellipsis in terms[-1] \
                    else "that is not part of any ellipsis"
                raise _einsum_error(f"found '.' for operand {len(terms) - 1} {found}")
            terms[-1].append(Ellipsis)
            i += 2
        elif c.isascii() and c.isalpha():
            terms[-1].append(c)
        elif c != " ":
            raise _einsum_error(f"invalid subscript given at index {i} in the equation string, "
                                "subscripts must be in [a-zA-Z]")
        i += 1
    if not arrow:
        return terms, None
    output = []
    i = 0
    while i < len(rhs):
        c = rhs[i]
        if c == ".":
            if rhs[i:i + 3] != "..." or Ellipsis in output:
                found = "but an ellipsis (...) was already found" if Ellipsis in output \
                    else "that is not part of any ellipsis"
                raise _einsum_error(f"found '.' for output {found}")
            output.append(Ellipsis)
            i += 2
        elif c.isascii() and c.isalpha():
            if c in output:
                raise _einsum_error(f"output subscript {c} appears more than once in the output")
            output.append(c)
        elif c != " ":
            raise _einsum_error(f"invalid subscript given at index {len(lhs) + 2 + i} in the equation "
                                "string, subscripts must be in [a-zA-Z]")
        i += 1
    return terms, output


def _einsum_labels(terms, operands):
    """Each operand's labels (letters; the dims under '...' as ints, aligned right) and sizes."""
    ell = []
    for k, (term, x) in enumerate(zip(terms, operands)):
        nd = len(_shape(x))
        letters = len(term) - (Ellipsis in term)
        if Ellipsis not in term and letters != nd:
            raise _einsum_error(f"the number of subscripts in the equation ({letters}) does not match the "
                                f"number of dimensions ({nd}) for operand {k} and no ellipsis was given")
        if letters > nd:
            raise _einsum_error(f"the number of subscripts in the equation ({letters}) is more than the "
                                f"number of dimensions ({nd}) for operand {k}")
        ell.append(nd - letters)
    n_ell = max(ell) if ell else 0
    labels, sizes = [], {}
    for k, (term, x, e) in enumerate(zip(terms, operands, ell)):
        own = []
        for s in term:
            own.extend(range(n_ell - e, n_ell) if s is Ellipsis else (s,))
        seen = {}
        for label, n in zip(own, _shape(x)):
            if label in seen and seen[label] != n:
                raise _einsum_error(f"subscript {label} is repeated for operand {k} but the sizes don't "
                                    f"match, {n} != {seen[label]}")
            seen[label] = n
            before = sizes.get(label, 1)
            if n != before and before != 1 and n != 1:
                what = f"subscript {label}" if isinstance(label, str) else "the dimensions under '...'"
                raise _einsum_error(f"{what} has size {n} for operand {k} which does not broadcast with "
                                    f"previously seen size {before}")
            sizes[label] = n if n != 1 else before
        labels.append(own)
    return labels, sizes, n_ell


def _einsum_output(output, labels, n_ell):
    if output is None:
        counts = {}
        for own in labels:
            for label in own:
                if isinstance(label, str):
                    counts[label] = counts.get(label, 0) + 1
        return list(range(n_ell)) + sorted(label for label, n in counts.items() if n == 1)
    out = []
    for s in output:
        out.extend(range(n_ell) if s is Ellipsis else (s,))
        if s is not Ellipsis and not any(s in own for own in labels):
            raise _einsum_error(f"output subscript {s} does not appear in the equation for any input operand")
    return out


def _einsum_diagonals(x, own):
    """An operand with each repeated label reduced to its diagonal (a view), and its labels."""
    own = list(own)
    while len(set(own)) != len(own):
        label = next(l for l in own if own.count(l) > 1)
        d1 = own.index(label)
        d2 = own.index(label, d1 + 1)
        x = TENSORS.diagonal(x, 0, d1, d2)
        own = [l for k, l in enumerate(own) if k not in (d1, d2)] + [label]
    return x, own


def _einsum_sum(x, own, drop):
    dims = tuple(k for k, l in enumerate(own) if l in drop)
    if not dims:
        return x, own
    return TENSORS.sum(x, dims), [l for l in own if l not in drop]


def _einsum_permute(x, own, order):
    if own == order:
        return x
    return TENSORS.permute(x, tuple(own.index(l) for l in order))


def _einsum_reshape(x, shape):
    return x if _shape(x) == tuple(shape) else TENSORS.reshape(x, tuple(shape))


def _einsum_pair(a, la, b, lb, keep, sizes):
    """The product of two operands summed over the labels they share that `keep` lacks."""
    a, la = _einsum_sum(a, la, {l for l in la if l not in lb and l not in keep})
    b, lb = _einsum_sum(b, lb, {l for l in lb if l not in la and l not in keep})
    batch = [l for l in la if l in lb and l in keep]
    shared = [l for l in la if l in lb and l not in keep]
    left = [l for l in la if l not in lb]
    right = [l for l in lb if l not in la]
    sa, sb = dict(zip(la, _shape(a))), dict(zip(lb, _shape(b)))
    if not shared:
        a = _einsum_permute(a, la, batch + left)
        b = _einsum_permute(b, lb, batch + right)
        a = _einsum_reshape(a, [sa[l] for l in batch + left] + [1] * len(right))
        b = _einsum_reshape(b, [sb[l] for l in batch] + [1] * len(left) + [sb[l] for l in right])
        return TENSORS.mul(a, b), batch + left + right
    a = _einsum_permute(a, la, batch + left + shared)
    b = _einsum_permute(b, lb, batch + shared + right)
    if any(sa[l] != sb[l] for l in shared):   # a size-1 dim broadcast against the other's
        a = TENSORS.expand(a, [sa[l] for l in batch + left] + [sizes[l] for l in shared])
        b = TENSORS.expand(b, [sb[l] for l in batch] + [sizes[l] for l in shared + right])
    rows = math.prod([sa[l] for l in left])
    cols = math.prod([sb[l] for l in right])
    inner = math.prod([sizes[l] for l in shared])
    a = _einsum_reshape(a, [sa[l] for l in batch] + [rows, inner])
    b = _einsum_reshape(b, [sb[l] for l in batch] + [inner, cols])
    out = TENSORS.matmul(a, b)
    batch_shape = _shape(out)[:len(batch)]
    out = _einsum_reshape(out, list(batch_shape) + [sa[l] for l in left] + [sb[l] for l in right])
    return out, batch + left + right


def einsum(equation, *operands):
    """Einstein summation: einsum('ij,jk->ik', a, b) is a @ b (composed of diagonal, sum,
    permute, reshape, mul and matmul; `...` broadcasts)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for k, x in enumerate(operands):
        if not isinstance(x, Tensor):
            raise ProgramTypeError(f"expected Tensor as element {k} in argument 1, but got "
                                   f"{type(x).__name__}")
    terms, output = _parse_subscripts(equation)
    if not operands:
        raise _einsum_error("must provide at least one operand")
    if len(terms) > len(operands):
        raise _einsum_error("fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise _einsum_error("more operands were provided than specified in the equation")
    labels, sizes, n_ell = _einsum_labels(terms, operands)
    out_labels = _einsum_output(output, labels, n_ell)
    parts = [_einsum_diagonals(x, own) for x, own in zip(operands, labels)]
    result, own = parts[0]
    for k in range(1, len(parts)):
        keep = set(out_labels).union(*(p[1] for p in parts[k + 1:]))
        result, own = _einsum_pair(result, own, parts[k][0], parts[k][1], keep, sizes)
    result, own = _einsum_sum(result, own, {l for l in own if l not in out_labels})
    missing = [l for l in out_labels if l not in own]   # a '...' of no operand's dims
    if missing:
        raise _einsum_error("output subscripts do not match the operands")
    return _einsum_permute(result, own, out_labels)


export("einsum", einsum, method=False)
