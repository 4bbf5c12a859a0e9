"""Linear algebra: values against numpy, PyTorch's node names and edges, shape errors, SymPy.

Node names, edges and error messages were read off PyTorch 2.13 (float64) for
the same calls. The op table's own test (test_op_table.py) checks every op's
first and second derivatives; here the composed forms of matmul get the same
checks, and each op's SymPy counterpart is checked against its forward and
its backward.
"""
import numpy as np
import pytest

import gradcli
from gradcli.autograd import gradcheck, gradgradcheck
from gradcli.autograd.gradcheck import analytical_jacobian
from gradcli.errors import ProgramValueError, ShapeError
from gradcli.ops import OPS, apply, linalg
from gradcli._tensor import Tensor

RNG = np.random.default_rng(7)


def leaf(*shape, lo=-2.0, hi=2.0):
    return Tensor(RNG.uniform(lo, hi, shape), requires_grad=True)


def edges(t):
    """next_functions as (name, output index) pairs; None for an input that needs no grad."""
    return [(None if n is None else n.name(), i) for n, i in t.grad_fn.next_functions]


def chain(t):
    """The names along the first edge of each node, from t's grad_fn down to a leaf."""
    names, node = [], t.grad_fn
    while node is not None:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


# -- values ------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
    ((2, 2, 3), (3, 2)), ((2, 2, 3), (3,)), ((3,), (2, 3, 2)), ((4, 3), (2, 3, 2)),
    ((2, 2, 3), (2, 3, 2)), ((2, 1, 2, 3), (4, 3, 2)), ((1, 2, 3), (5, 3, 1)),
]


@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES, ids=str)
def test_matmul_values_and_gradients(sa, sb):
    a, b = leaf(*sa), leaf(*sb)
    out = a @ b
    expected = np.matmul(a._data, b._data)
    assert out.shape == expected.shape
    np.testing.assert_allclose(out._data, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gradcli.matmul(a, b)._data, expected, rtol=1e-12, atol=1e-12)
    assert gradcheck(gradcli.matmul, (a, b))
    assert gradgradcheck(gradcli.matmul, (a, b))


def test_products_match_numpy():
    a, b = leaf(3), leaf(3)
    A, B, C = leaf(2, 3), leaf(3, 4), leaf(2, 2)
    np.testing.assert_allclose(gradcli.dot(a, b)._data, a._data @ b._data)
    np.testing.assert_allclose(a.dot(b)._data, a._data @ b._data)
    np.testing.assert_allclose(A.mm(B)._data, A._data @ B._data)
    np.testing.assert_allclose(A.mv(a)._data, A._data @ a._data)
    np.testing.assert_allclose(gradcli.outer(a, b)._data, np.outer(a._data, b._data))
    P, Q = leaf(2, 2, 3), leaf(2, 3, 4)
    np.testing.assert_allclose(P.bmm(Q)._data, P._data @ Q._data)
    bias = leaf(2)
    np.testing.assert_allclose(gradcli.addmm(bias, A, A.t())._data, bias._data + A._data @ A._data.T)
    np.testing.assert_allclose(gradcli.addmm(C, A, A.t(), beta=0.5, alpha=2.0)._data,
                               0.5 * C._data + 2.0 * A._data @ A._data.T)


def test_addmm_with_beta_zero_ignores_the_input():
    A = leaf(2, 3)
    bias = Tensor([np.nan, np.inf])
    out = gradcli.addmm(bias, A, A.t(), beta=0)
    np.testing.assert_allclose(out._data, A._data @ A._data.T)


def test_transposes_match_numpy():
    A, X = leaf(2, 3), leaf(2, 3, 4)
    np.testing.assert_array_equal(A.t()._data, A._data.T)
    np.testing.assert_array_equal(A.T._data, A._data.T)
    np.testing.assert_array_equal(A.transpose(0, 1)._data, A._data.T)
    np.testing.assert_array_equal(X.transpose(-1, 0)._data, np.swapaxes(X._data, -1, 0))
    np.testing.assert_array_equal(X.permute(2, 0, 1)._data, np.transpose(X._data, (2, 0, 1)))
    np.testing.assert_array_equal(X.permute((2, 0, 1))._data, np.transpose(X._data, (2, 0, 1)))
    np.testing.assert_array_equal(gradcli.permute(X, (1, 2, 0))._data, np.transpose(X._data, (1, 2, 0)))
    np.testing.assert_array_equal(X.T._data, X._data.T)
    np.testing.assert_array_equal(X.mT._data, np.swapaxes(X._data, -1, -2))
    v, s = leaf(3), leaf()
    np.testing.assert_array_equal(v.t()._data, v._data)
    np.testing.assert_array_equal(s.t()._data, s._data)


def test_trace_det_inverse_match_numpy():
    M = Tensor(np.array([[2.0, 0.5, -1.0], [0.25, 1.5, 0.0], [1.0, -0.5, 3.0]]), requires_grad=True)
    np.testing.assert_allclose(M.trace()._data, np.trace(M._data))
    np.testing.assert_allclose(leaf(2, 3).trace()._data.shape, ())
    np.testing.assert_allclose(M.det()._data, np.linalg.det(M._data))
    np.testing.assert_allclose(gradcli.inverse(M)._data, np.linalg.inv(M._data))
    batch = Tensor(RNG.uniform(-0.5, 0.5, (2, 3, 3)) + 2 * np.eye(3), requires_grad=True)
    np.testing.assert_allclose(gradcli.det(batch)._data, np.linalg.det(batch._data))
    np.testing.assert_allclose(gradcli.inverse(batch)._data, np.linalg.inv(batch._data))
    # d det / dA = det(A) A^{-T}; d inverse = -A^{-T} g A^{-T}
    (g,) = gradcli.autograd.grad(M.det(), M)
    np.testing.assert_allclose(g._data, np.linalg.det(M._data) * np.linalg.inv(M._data).T)
    W = RNG.uniform(-1, 1, (3, 3))
    (g,) = gradcli.autograd.grad(gradcli.inverse(M), M, Tensor(W))
    inv = np.linalg.inv(M._data)
    np.testing.assert_allclose(g._data, -inv.T @ W @ inv.T)


def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix():
    # PyTorch 2.13 returns zeros here (and fails its own gradcheck); the derivative of
    # ad - bc is [[d, -c], [-b, a]], which is what finite differences give.
    S = Tensor([[1.0, 2.0], [2.0, 4.0]], requires_grad=True)
    (g,) = gradcli.autograd.grad(S.det(), S)
    np.testing.assert_allclose(g._data, [[4.0, -2.0], [-2.0, 1.0]])
    assert gradcheck(gradcli.det, (S,))
    assert gradgradcheck(gradcli.det, (S,))
    Z = Tensor(np.zeros((3, 3)), requires_grad=True)
    assert gradcheck(gradcli.det, (Z,))
    assert gradgradcheck(gradcli.det, (Z,))


def test_composed_forms_pass_gradient_checks():
    a, b = leaf(3), leaf(4)
    assert gradcheck(gradcli.outer, (a, b))
    assert gradgradcheck(gradcli.outer, (a, b))
    X = leaf(2, 3, 4)
    assert gradgradcheck(lambda x: x.T, (X,))
    assert gradgradcheck(lambda x: x.mT, (X,))
    batch = Tensor(RNG.uniform(-0.5, 0.5, (2, 3, 3)) + 2 * np.eye(3), requires_grad=True)
    assert gradgradcheck(gradcli.det, (batch,))
    assert gradgradcheck(gradcli.inverse, (batch,))


# -- node names and edges (SPEC 3.1) ----------------------------------------------------


def test_node_names_and_edges():
    a, b = leaf(3), leaf(3)
    A, B = leaf(2, 3), leaf(3, 2)
    S = Tensor(np.eye(3) * 2.0, requires_grad=True)
    leafs = [("AccumulateGrad", 0), ("AccumulateGrad", 0)]
    cases = {
        "dot": (gradcli.dot(a, b), "DotBackward0", leafs),
        "a @ b": (a @ b, "DotBackward0", leafs),
        "A @ B": (A @ B, "MmBackward0", leafs),
        "mm": (A.mm(B), "MmBackward0", leafs),
        "A @ a": (A @ a, "MvBackward0", leafs),
        "mv": (gradcli.mv(A, a), "MvBackward0", leafs),
        "t": (A.t(), "TBackward0", leafs[:1]),
        "T": (A.T, "PermuteBackward0", leafs[:1]),
        "transpose": (A.transpose(0, 1), "TransposeBackward0", leafs[:1]),
        "trace": (S.trace(), "TraceBackward0", leafs[:1]),
        "det": (S.det(), "LinalgDetBackward0", leafs[:1]),
        "inverse": (S.inverse(), "LinalgInvExBackward0", leafs[:1]),
        "permute": (A.permute(1, 0), "PermuteBackward0", leafs[:1]),
        "outer": (gradcli.outer(a, b), "MulBackward0", [("ViewBackward0", 0), ("AccumulateGrad", 0)]),
        "1-D t": (a.t(), "TBackward0", leafs[:1]),
        "1-D T": (a.T, "PermuteBackward0", leafs[:1]),
        "mT": (leaf(2, 2, 3).mT, "TransposeBackward0", leafs[:1]),
        "bmm": (gradcli.bmm(leaf(2, 2, 3), leaf(2, 3, 1)), "BmmBackward0", leafs),
        "addmm": (gradcli.addmm(leaf(2), A, B), "AddmmBackward0", [("AccumulateGrad", 0)] * 3),
    }
    for form, (out, name, expected) in cases.items():
        assert out.grad_fn.name() == name, form
        assert edges(out) == expected, form


def test_a_constant_operand_is_a_none_edge():
    a, c = leaf(3), Tensor([1.0, 2.0, 3.0])
    assert edges(gradcli.dot(a, c)) == [("AccumulateGrad", 0), (None, 0)]
    assert edges(gradcli.dot(c, a)) == [(None, 0), ("AccumulateGrad", 0)]
    assert edges(Tensor(np.ones((2, 3))) @ a) == [(None, 0), ("AccumulateGrad", 0)]


def test_matmul_graphs_follow_pytorch():
    a, B, C = leaf(3), leaf(3, 2), leaf(2, 2, 3)
    # 1-D @ 2-D: the vector as a row, mm, and PyTorch's squeeze_ of the row.
    out = a @ B
    assert out.shape == (2,)
    assert out.grad_fn.name() == "SqueezeBackward4"
    assert edges(out) == [("MmBackward0", 0)]
    assert edges_of(out.grad_fn.next_functions[0][0]) == [("UnsqueezeBackward0", 0), ("AccumulateGrad", 0)]
    # N-D @ 2-D and N-D @ 1-D: folded into one mm / mv.
    assert chain(C @ B) == ["UnsafeViewBackward0", "MmBackward0", "ViewBackward0", "AccumulateGrad"]
    assert chain(C @ leaf(3)) == ["UnsafeViewBackward0", "MvBackward0", "ViewBackward0", "AccumulateGrad"]
    # batched: expand to the common batch, flatten it, bmm.
    D = leaf(2, 3, 2)
    out = C @ D
    assert chain(out) == ["UnsafeViewBackward0", "BmmBackward0", "ViewBackward0", "ExpandBackward0",
                          "AccumulateGrad"]
    assert [n for n, _ in edges_of(out.grad_fn.next_functions[0][0])] == ["ViewBackward0", "ViewBackward0"]


def edges_of(node):
    return [(None if n is None else n.name(), i) for n, i in node.next_functions]


def test_grad_flows_through_the_at_operator_from_the_right():
    a = leaf(3)
    out = Tensor(np.ones((2, 3))) @ a
    out.sum().backward()
    np.testing.assert_allclose(a.grad._data, [2.0, 2.0, 2.0])
    b = leaf(3)
    out = b.__rmatmul__(Tensor(np.ones(3)))
    out.backward()
    np.testing.assert_allclose(b.grad._data, np.ones(3))


# -- errors ----------------------------------------------------------------------------

T = lambda *shape: Tensor(np.ones(shape))  # noqa: E731

ERRORS = [
    (lambda: gradcli.mm(T(2, 3), T(2, 3)), "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    (lambda: gradcli.mm(T(3), T(3, 2)), "self must be a matrix"),
    (lambda: gradcli.mm(T(2, 3), T(3)), "mat2 must be a matrix"),
    (lambda: gradcli.mv(T(2, 3), T(2)), "size mismatch, got input (2), mat (2x3), vec (2)"),
    (lambda: gradcli.mv(T(3), T(3)), "vector + matrix @ vector expected, got 1, 1, 1"),
    (lambda: gradcli.dot(T(3), T(4)),
     "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, "
     "but got 3 and 4 elements respectively"),
    (lambda: gradcli.dot(T(3, 1), T(3)), "1D tensors expected, but got 2D and 1D tensors"),
    (lambda: T(3) @ T(4),
     "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, "
     "but got 3 and 4 elements respectively"),
    (lambda: T(2, 3) @ T(2), "size mismatch, got input (2), mat (2x3), vec (2)"),
    (lambda: T(3) @ T(2, 3), "mat1 and mat2 shapes cannot be multiplied (1x3 and 2x3)"),
    (lambda: T(2, 3) @ T(2, 3), "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    (lambda: T() @ T(3), "both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
    (lambda: T(3) @ T(), "both arguments to matmul need to be at least 1D, but they are 1D and 0D"),
    (lambda: T(2, 2, 3) @ T(2), "size mismatch, got input (4), mat (4x3), vec (2)"),
    (lambda: T(2, 2, 3) @ T(2, 2), "mat1 and mat2 shapes cannot be multiplied (4x3 and 2x2)"),
    (lambda: T(4) @ T(2, 3, 2),
     "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3]."),
    (lambda: T(2, 2, 3) @ T(2, 4, 2),
     "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
    (lambda: T(2, 2, 3) @ T(3, 3, 2),
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda: gradcli.bmm(T(2, 3), T(3, 2)), "batch1 must be a 3D tensor"),
    (lambda: T(2, 2, 2).t(), "t() expects a tensor with <= 2 dimensions, but self is 3D"),
    (lambda: T(2, 3).transpose(0, 2), "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: T(2, 3).permute(0),
     "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
     "desired ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 1"),
    (lambda: T(2, 3).permute(0, 0), "permute(): duplicate dims are not allowed."),
    (lambda: T(2, 2, 2).trace(), "trace: expected a matrix, but got tensor with dim 3"),
    (lambda: gradcli.det(T(2, 3)), "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda: gradcli.det(T(3)), "linalg.det: The input tensor A must have at least 2 dimensions."),
    (lambda: gradcli.inverse(T(2, 3)),
     "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda: gradcli.outer(T(2, 3), T(3)), "outer: Expected 1-D argument self, but got 2-D"),
    (lambda: gradcli.addmm(T(3), T(2, 3), T(3, 4)),
     "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  "
     "Target sizes: [2, 4].  Tensor sizes: [3]"),
]


@pytest.mark.parametrize("call, message", ERRORS, ids=[m[:40] for _, m in ERRORS])
def test_shape_errors_have_pytorchs_messages(call, message):
    with pytest.raises(ShapeError) as info:
        call()
    assert str(info.value) == message


def test_inverse_of_a_singular_matrix():
    with pytest.raises(ProgramValueError) as info:
        gradcli.inverse(T(2, 2))
    assert str(info.value) == ("linalg.inv: The diagonal element 2 is zero, the inversion could not be "
                               "completed because the input matrix is singular.")
    with pytest.raises(ProgramValueError) as info:
        gradcli.inverse(T(3, 2, 2))
    assert str(info.value).startswith("linalg.inv: (Batch element 0): The diagonal element 2 is zero")


# -- SymPy counterparts ----------------------------------------------------------------


def sympy_cases(module):
    for op in OPS.values():
        if op.differentiable and op.forward.__module__ == module.__name__:
            rng = np.random.default_rng(sum(map(ord, op.name)))
            for k, (inputs, params) in enumerate(op.domain(rng)):
                yield pytest.param(op, inputs, params, id=f"{op.name}-{k}")


def check_sympy(op, inputs, params):
    """The SymPy counterpart gives the forward's value and, by sp.diff, the backward's Jacobian."""
    sp = pytest.importorskip("sympy")
    symbols, values, sym_inputs = [], {}, []
    for n, x in enumerate(inputs):
        if isinstance(x, np.ndarray):
            syms = np.array([sp.Symbol(f"x{n}_{j}") for j in range(x.size)], dtype=object).reshape(x.shape)
            values.update(zip(syms.reshape(-1).tolist(), x.reshape(-1).tolist()))
            symbols.append(syms.reshape(-1).tolist())
            sym_inputs.append(syms)
        else:
            sym_inputs.append(x)
    expr = np.asarray(op.sympy(sp, *sym_inputs, **params), dtype=object)
    tensors = tuple(Tensor(x.copy(), requires_grad=True) if isinstance(x, np.ndarray) else x for x in inputs)
    out = apply(op, tensors, params)
    assert expr.shape == out.shape
    flat = expr.reshape(-1).tolist()
    got = np.array([float(sp.sympify(e).subs(values)) for e in flat]).reshape(expr.shape)
    np.testing.assert_allclose(got, out._data, rtol=1e-9, atol=1e-9)
    jac = analytical_jacobian(lambda *xs: apply(op, xs, params), tensors)[0]
    for k, syms in enumerate(symbols):
        expected = np.array([[float(sp.diff(e, s).subs(values)) for s in syms] for e in flat])
        np.testing.assert_allclose(jac[k], expected.reshape(jac[k].shape), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("op, inputs, params", list(sympy_cases(linalg)))
def test_sympy_counterpart(op, inputs, params):
    check_sympy(op, inputs, params)
