"""SPEC 3.1, row by row: the node each form records and its next_functions, as PyTorch's.

Each row is a program (through the language, so the forms are the ones users
write) and the expected (name, edges) of its output's grad_fn, where an edge is
the next node's name with its output index, or None for (None, 0).
"""
import pytest

from gradcli.graph.nodes import accumulate_grad
from gradcli.lang import compile_program

A = "a = torch.tensor([1.5, 2.5], requires_grad=True)\n"
B = "b = torch.tensor([0.5, 3.0], requires_grad=True)\n"
M = "m = torch.tensor([[1.0, 2.0], [3.0, 4.5]], requires_grad=True)\n"
S = "s = torch.tensor(2.0, requires_grad=True)\n"
ACC = ("AccumulateGrad", 0)

ROWS = [
    ("leaf", A + "out = a", "AccumulateGrad", []),
    ("a + b", A + B + "out = a + b", "AddBackward0", [ACC, ACC]),
    ("a - b", A + B + "out = a - b", "SubBackward0", [ACC, ACC]),
    ("a * b", A + B + "out = a * b", "MulBackward0", [ACC, ACC]),
    ("a / b", A + B + "out = a / b", "DivBackward0", [ACC, ACC]),
    ("a + 2", A + "out = a + 2", "AddBackward0", [ACC, None]),
    ("a - 2", A + "out = a - 2", "SubBackward0", [ACC, None]),
    ("a * 2", A + "out = a * 2", "MulBackward0", [ACC, None]),
    ("a / 2", A + "out = a / 2", "DivBackward0", [ACC, None]),
    ("2 + a", A + "out = 2 + a", "AddBackward0", [ACC, None]),
    ("2 * a", A + "out = 2 * a", "MulBackward0", [ACC, None]),
    ("c * a", A + "c = torch.tensor([2.0, 3.0])\nout = c * a", "MulBackward0", [None, ACC]),
    ("1 - a", A + "out = 1 - a", "RsubBackward1", [ACC]),
    ("-a", A + "out = -a", "NegBackward0", [ACC]),
    ("a ** 2", A + "out = a ** 2", "PowBackward0", [ACC]),
    ("a ** b", A + B + "out = a ** b", "PowBackward1", [ACC, ACC]),
    ("2 ** a", A + "out = 2 ** a", "PowBackward2", [ACC]),
    *[(f"{fn}(a)", A + f"out = torch.{fn}(a)", node, [ACC]) for fn, node in [
        ("exp", "ExpBackward0"), ("log", "LogBackward0"), ("sin", "SinBackward0"),
        ("cos", "CosBackward0"), ("tan", "TanBackward0"), ("tanh", "TanhBackward0"),
        ("sigmoid", "SigmoidBackward0"), ("relu", "ReluBackward0"), ("abs", "AbsBackward0"),
        ("sqrt", "SqrtBackward0"), ("rsqrt", "RsqrtBackward0"), ("reciprocal", "ReciprocalBackward0"),
        ("log1p", "Log1PBackward0"), ("expm1", "Expm1Backward0"), ("erf", "ErfBackward0"),
        ("atan", "AtanBackward0"), ("softplus", "SoftplusBackward0")]],
    ("maximum", A + B + "out = torch.maximum(a, b)", "MaximumBackward0", [ACC, ACC]),
    ("minimum", A + B + "out = torch.minimum(a, b)", "MinimumBackward0", [ACC, ACC]),
    ("atan2", A + B + "out = torch.atan2(a, b)", "Atan2Backward0", [ACC, ACC]),
    ("where", A + B + "out = torch.where(a > b, a, b)", "WhereBackward0", [ACC, ACC]),
    ("clamp", A + "out = torch.clamp(a, 0.0, 2.0)", "ClampBackward1", [ACC]),
    ("a.sum()", A + "out = a.sum()", "SumBackward0", [ACC]),
    ("a.sum(dim)", A + "out = a.sum(0)", "SumBackward1", [ACC]),
    ("a.mean()", A + "out = a.mean()", "MeanBackward0", [ACC]),
    ("a.mean(dim)", A + "out = a.mean(0)", "MeanBackward1", [ACC]),
    ("a.max()", A + "out = a.max()", "MaxBackward1", [ACC]),
    ("a.max(dim)[0]", A + "out = a.max(0)[0]", "MaxBackward0", [ACC]),
    ("a.min()", A + "out = a.min()", "MinBackward1", [ACC]),
    ("a.min(dim)[0]", A + "out = a.min(0)[0]", "MinBackward0", [ACC]),
    ("prod", A + "out = a.prod()", "ProdBackward0", [ACC]),
    ("var", A + "out = a.var()", "VarBackward0", [ACC]),
    ("std", A + "out = a.std()", "StdBackward0", [ACC]),
    ("logsumexp", A + "out = torch.logsumexp(a, 0)", "LogsumexpBackward0", [ACC]),
    ("softmax", A + "out = torch.softmax(a, 0)", "SoftmaxBackward0", [ACC]),
    ("log_softmax", A + "out = torch.log_softmax(a, 0)", "LogSoftmaxBackward0", [ACC]),
    ("trace", M + "out = torch.trace(m)", "TraceBackward0", [ACC]),
    ("a.norm()", A + "out = a.norm()", "LinalgVectorNormBackward0", [ACC]),
    ("dot", A + B + "out = torch.dot(a, b)", "DotBackward0", [ACC, ACC]),
    ("1-D @", A + B + "out = a @ b", "DotBackward0", [ACC, ACC]),
    ("2-D @", M + "out = m @ m", "MmBackward0", [ACC, ACC]),
    ("mm", M + "out = torch.mm(m, m)", "MmBackward0", [ACC, ACC]),
    ("2-D @ 1-D", M + A + "out = m @ a", "MvBackward0", [ACC, ACC]),
    ("mv", M + A + "out = torch.mv(m, a)", "MvBackward0", [ACC, ACC]),
    ("a.t()", M + "out = m.t()", "TBackward0", [ACC]),
    ("a.T", M + "out = m.T", "PermuteBackward0", [ACC]),
    ("transpose", M + "out = m.transpose(0, 1)", "TransposeBackward0", [ACC]),
    ("a[0]", A + "out = a[0]", "SelectBackward0", [ACC]),
    ("a[:, 1]", M + "out = m[:, 1]", "SelectBackward0", [ACC]),
    ("a[1:3]", A + "out = a[0:1]", "SliceBackward0", [ACC]),
    ("reshape", M + "out = m.reshape(4)", "ViewBackward0", [ACC]),
    ("view", M + "out = m.view(4)", "ViewBackward0", [ACC]),
    ("flatten", M + "out = m.flatten()", "ViewBackward0", [ACC]),
    ("unsqueeze", A + "out = a.unsqueeze(0)", "UnsqueezeBackward0", [ACC]),
    ("expand", S + "out = s.expand(3)", "ExpandBackward0", [ACC]),
    ("unbind k", A + "p, q = a.unbind()\nout = q", "UnbindBackward0", [ACC]),
    ("stack", A + B + "out = torch.stack([a, b, a])", "StackBackward0", [ACC, ACC, ACC]),
    ("cat", A + B + "out = torch.cat([a, b])", "CatBackward0", [ACC, ACC]),
    ("mse_loss", A + "t = torch.tensor([1.0, 1.0])\nout = F.mse_loss(a, t)", "MseLossBackward0", [ACC, None]),
    # beyond SPEC 3.1's table: PyTorch 2.13's nodes for the ops added since
    *[(f"F.{fn}(a)", A + f"out = F.{fn}(a)", node, [ACC]) for fn, node in [
        ("gelu", "GeluBackward0"), ("silu", "SiluBackward0"), ("leaky_relu", "LeakyReluBackward0"),
        ("elu", "EluBackward0"), ("hardtanh", "HardtanhBackward0"), ("logsigmoid", "LogSigmoidBackward0")]],
    ("F.softsign(a)", A + "out = F.softsign(a)", "DivBackward0", [ACC, ("AddBackward0", 0)]),
    ("flip", M + "out = m.flip(0)", "FlipBackward0", [ACC]),
    ("roll", M + "out = torch.roll(m, 1)", "RollBackward0", [ACC]),
    ("tril", M + "out = m.tril()", "TrilBackward0", [ACC]),
    ("triu", M + "out = torch.triu(m, 1)", "TriuBackward0", [ACC]),
    ("diagonal", M + "out = m.diagonal()", "DiagonalBackward0", [ACC]),
    ("diag of a vector", A + "out = torch.diag(a)", "DiagEmbedBackward0", [ACC]),
    ("diag of a matrix", M + "out = torch.diag(m)", "DiagonalBackward0_copy", [ACC]),
    ("movedim", M + "out = torch.movedim(m, 0, 1)", "PermuteBackward0", [ACC]),
    ("moveaxis", M + "out = m.moveaxis(1, 0)", "PermuteBackward0", [ACC]),
    ("swapaxes", M + "out = m.swapaxes(0, 1)", "TransposeBackward0", [ACC]),
    ("swapdims", M + "out = torch.swapdims(m, 0, 1)", "TransposeBackward0", [ACC]),
    ("a.mT", M + "out = m.mT", "TransposeBackward0", [ACC]),
    ("contiguous of a leaf", M + "out = m.contiguous()", "AccumulateGrad", []),
    ("contiguous of a transpose", M + "out = m.t().contiguous()", "CloneBackward0", [("TBackward0", 0)]),
    ("view_as", M + "out = m.view_as(torch.zeros(4))", "ViewBackward0", [ACC]),
    ("reshape_as", M + "out = m.reshape_as(torch.zeros(4, 1))", "ViewBackward0", [ACC]),
    ("unflatten", A + "out = a.unflatten(0, (1, 2))", "ViewBackward0", [ACC]),
    ("gather", M + "out = m.gather(1, torch.tensor([[1], [0]]))", "GatherBackward0", [ACC]),
    ("masked_fill", M + "out = m.masked_fill(m > 2, 0.0)", "MaskedFillBackward0", [ACC]),
    ("masked_fill tensor value", M + "out = m.masked_fill(m > 2, torch.tensor(0.0))", "MaskedFillBackward1",
     [ACC, None]),
    ("masked_fill tensor value that requires grad", M + S + "out = m.masked_fill(m > 2, s)",
     "MaskedFillBackward1", [ACC, ACC]),
    ("cumsum", A + "out = a.cumsum(0)", "CumsumBackward0", [ACC]),
    ("cumprod", A + "out = torch.cumprod(a, 0)", "CumprodBackward0", [ACC]),
    # the second batch of ops (PyTorch 2.13's nodes and edges)
    ("round", A + "out = torch.round(a)", "RoundBackward0", [ACC]),
    ("round decimals", A + "out = torch.round(a, decimals=1)", "RoundBackward1", [ACC]),
    ("floor", A + "out = a.floor()", "FloorBackward0", [ACC]),
    ("ceil", A + "out = torch.ceil(a)", "CeilBackward0", [ACC]),
    ("trunc", A + "out = torch.trunc(a)", "TruncBackward0", [ACC]),
    ("frac", A + "out = torch.frac(a)", "FracBackward0", [ACC]),
    ("sort", A + "out = torch.sort(a).values", "SortBackward0", [ACC]),
    ("topk", A + "out = a.topk(1).values", "TopkBackward0", [ACC]),
    ("kthvalue", A + "out = torch.kthvalue(a, 1)[0]", "KthvalueBackward0", [ACC]),
    ("nansum", A + "out = torch.nansum(a)", "NansumBackward0", [ACC]),
    ("linalg.solve", M + A + "out = torch.linalg.solve(m, a)", "LinalgSolveExBackward0", [ACC, ACC]),
    ("linalg.inv", M + "out = torch.linalg.inv(m)", "LinalgInvExBackward0", [ACC]),
    ("linalg.det", M + "out = torch.linalg.det(m)", "LinalgDetBackward0", [ACC]),
    ("linalg.norm ord 1", M + "out = torch.linalg.norm(m, 1)", "AmaxBackward0", [("LinalgVectorNormBackward0", 0)]),
    ("F.normalize", M + "out = F.normalize(m)", "DivBackward0", [ACC, ("ExpandBackward0", 0)]),
    ("F.dropout", A + "out = F.dropout(a, 0.5)", "MulBackward0", [ACC, None]),
    ("nn.Parameter", "out = torch.nn.Parameter(torch.tensor([1.0]))", "AccumulateGrad", []),
    ("custom Function",
     "class Twice(torch.autograd.Function):\n"
     "    @staticmethod\n"
     "    def forward(ctx, x, y):\n"
     "        return 2 * x + y\n"
     "    @staticmethod\n"
     "    def backward(ctx, g):\n"
     "        return 2 * g, g\n" + A + B + "out = Twice.apply(a, b)", "TwiceBackward", [ACC, ACC]),
]


def _node_of(out):
    return out.grad_fn if out.grad_fn is not None else accumulate_grad(out)


@pytest.mark.parametrize("form, program, name, edges", ROWS, ids=[r[0] for r in ROWS])
def test_node_and_edges_as_pytorch(form, program, name, edges):
    out = compile_program(program).run(stdout=lambda line: None).values["out"]
    node = _node_of(out)
    assert node.name() == name
    got = [None if nxt is None else (nxt.name(), nr) for nxt, nr in node.next_functions]
    assert got == edges


def test_unbind_outputs_are_reached_with_their_index():
    run = compile_program(A.replace("[1.5, 2.5]", "[1.5, 2.5, 3.5]") + "p, q, r = a.unbind()\n").run(
        stdout=lambda line: None)
    for k, key in enumerate("pqr"):
        assert run.values[key]._output_nr == k
    assert run.values["p"].grad_fn is run.values["r"].grad_fn


def test_leaf_edges_point_at_one_accumulate_grad_per_leaf():
    out = compile_program(A + "out = a * a").run(stdout=lambda line: None).values["out"]
    (first, _), (second, _) = out.grad_fn.next_functions
    assert first is second and first.variable is not None
