"""Layers from the language: hand-derived values, PyTorch's reprs and default initialisation."""
from __future__ import annotations

import pytest

from gradcli.ops import FUNCTIONS, NN_FUNCTIONS
from nn_helpers import fails, run


def needs(*names):
    """Skip until nn-ops' F functions exist (the layers look them up when called)."""
    missing = [name for name in names if name not in NN_FUNCTIONS and name not in FUNCTIONS]
    return pytest.mark.skipif(bool(missing), reason=f"F.{', F.'.join(missing)} not defined yet")


@pytest.mark.parametrize("layer, expected", [
    ("nn.ReLU()", "[0.0, 0.0, 2.0]"),
    ("nn.LeakyReLU(0.5)", "[-1.0, 0.0, 2.0]"),
    ("nn.Identity()", "[-2.0, 0.0, 2.0]"),
    ("nn.Tanh()", "[-0.964028, 0.0, 0.964028]"),          # tanh(2) = 0.9640276
    ("nn.Sigmoid()", "[0.119203, 0.5, 0.880797]"),         # 1 / (1 + e^2)
    ("nn.SiLU()", "[-0.238406, 0.0, 1.761594]"),           # x * sigmoid(x)
    ("nn.ELU()", "[-0.864665, 0.0, 2.0]"),                  # e^-2 - 1
    ("nn.Softplus()", "[0.126928, 0.693147, 2.126928]"),    # log(1 + e^x)
    ("nn.Softmax(dim=0)", "[0.015876, 0.117310, 0.866813]"),
    ("nn.LogSoftmax(dim=0)", "[-4.142931, -2.142931, -0.142931]"),
])
def test_activation_values(layer, expected):
    lines = run(f"print({layer}(torch.tensor([-2.0, 0.0, 2.0])).tolist())")
    assert [float(v) for v in lines[0][1:-1].split(", ")] == pytest.approx(
        [float(v) for v in expected[1:-1].split(", ")], abs=1e-6)


def test_linear_forward_backward_by_hand():
    lines = run("""
lin = nn.Linear(2, 2)
nn.init.eye_(lin.weight)
nn.init.constant_(lin.bias, 1.0)
x = torch.tensor([[3.0, 4.0]])
y = lin(x)
print(y.tolist(), y.grad_fn.name())
(y * torch.tensor([[1.0, 2.0]])).sum().backward()
print(lin.weight.grad.tolist(), lin.bias.grad.tolist())
""")
    # y = x I + 1; dL/dW = g^T x = [[3, 4], [6, 8]]; dL/db = g
    assert lines == ["[[4.0, 5.0]] AddmmBackward0", "[[3.0, 4.0], [6.0, 8.0]] [1.0, 2.0]"]


def test_linear_without_bias_and_its_repr():
    lines = run("lin = nn.Linear(3, 1, bias=False)\nprint(lin, lin.bias, lin.in_features)\n"
                "print([n for n, p in lin.named_parameters()])")
    assert lines == ["Linear(in_features=3, out_features=1, bias=False) None 3", "['weight']"]


def test_bilinear_by_hand():
    lines = run("""
b = nn.Bilinear(2, 2, 1)
nn.init.ones_(b.weight)
nn.init.zeros_(b.bias)
x1 = torch.tensor([[1.0, 2.0]], requires_grad=True)
y = b(x1, torch.tensor([[3.0, 4.0]]))
y.sum().backward()
print(y.tolist(), x1.grad.tolist())
""")
    # sum_ij x1_i x2_j = 3 * 7 = 21; d/dx1_i = sum_j x2_j = 7
    assert lines == ["[[21.0]] [[7.0, 7.0]]"]


def test_flatten_unflatten_shapes():
    lines = run("x = torch.ones(2, 3, 4)\nprint(nn.Flatten()(x).shape, nn.Flatten(0, 1)(x).shape, "
                "nn.Unflatten(2, (2, 2))(x).shape)")
    assert lines == ["torch.Size([2, 12]) torch.Size([6, 4]) torch.Size([2, 3, 2, 2])"]


def test_sequential_calls_in_order_indexes_and_slices():
    lines = run("""
s = nn.Sequential(nn.Linear(1, 1), nn.ReLU(), nn.Linear(1, 1))
for p in s.parameters():
    nn.init.constant_(p, -1.0)
print(s(torch.tensor([[2.0]])).item())
print(s[-1] is s[2], len(s), len(s[1:]))
print(s[1:])
print([n for n, p in s[1:].named_parameters()])
s.append(nn.Tanh())
print(len(s), [str(m) for m in s][3])
""")
    # -1*2 - 1 = -3 -> relu 0 -> -1*0 - 1 = -1
    assert lines == ["-1.0", "True 3 2", "Sequential(", "  (1): ReLU()",
                     "  (2): Linear(in_features=1, out_features=1, bias=True)", ")",
                     "['2.weight', '2.bias']", "4 Tanh()"]


def test_sequential_index_out_of_range():
    assert "index 5 is out of range" in fails("nn.Sequential(nn.ReLU())[5]").message


def test_module_list_and_dict():
    lines = run("""
ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
ml.append(nn.Sigmoid())
md = nn.ModuleDict({'act': nn.ReLU(), 'out': nn.Linear(1, 1)})
print(len(ml), ml[2], list(md.keys()), md['act'], len(md))
print([k for k in md])
print([n for n, p in md.named_parameters()])
""")
    assert lines == ["3 Sigmoid() ['act', 'out'] ReLU() 2", "['act', 'out']",
                     "['out.weight', 'out.bias']"]


def test_dropout_train_zeroes_or_scales_and_eval_is_identity():
    lines = run("""
d = nn.Dropout(0.5)
y = d(torch.ones(200))
print(sorted(set(y.tolist())), 50 < (y == 0).sum().item() < 150)
d.eval()
print(d(torch.ones(3)).tolist(), d)
""")
    assert lines == ["[0.0, 2.0] True", "[1.0, 1.0, 1.0] Dropout(p=0.5, inplace=False)"]


def test_default_initialisation_bounds():
    lines = run("""
lin = nn.Linear(4, 50)
print(lin.weight.abs().max().item() <= 0.5, lin.weight.abs().max().item() > 0.4)
print(lin.bias.abs().max().item() <= 0.5, lin.weight.requires_grad, lin.weight.is_leaf)
""")
    # kaiming_uniform_(a=sqrt(5)): bound = sqrt(6 / ((1 + 5) * fan_in)) = 1 / sqrt(4)
    assert lines == ["True True", "True True True"]


@pytest.mark.parametrize("layer, expected", [
    ("nn.Conv2d(1, 6, 5)", "Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))"),
    ("nn.Conv2d(3, 6, (3, 5), stride=2, padding=1, groups=3, bias=False)",
     "Conv2d(3, 6, kernel_size=(3, 5), stride=(2, 2), padding=(1, 1), groups=3, bias=False)"),
    ("nn.Conv1d(2, 4, 3, padding=1)", "Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=(1,))"),
    ("nn.MaxPool2d(2)", "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"),
    ("nn.AvgPool2d(2)", "AvgPool2d(kernel_size=2, stride=2, padding=0)"),
    ("nn.AdaptiveAvgPool2d((1, 1))", "AdaptiveAvgPool2d(output_size=(1, 1))"),
    ("nn.Embedding(10, 3, padding_idx=0)", "Embedding(10, 3, padding_idx=0)"),
    ("nn.LayerNorm(4)", "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"),
    ("nn.BatchNorm1d(3)",
     "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"),
    ("nn.GELU(approximate='tanh')", "GELU(approximate='tanh')"),
    ("nn.ReLU(inplace=True)", "ReLU(inplace=True)"),
    ("nn.Softplus()", "Softplus(beta=1.0, threshold=20.0)"),
])
def test_layer_reprs_are_pytorchs(layer, expected):
    assert run(f"print({layer})") == [expected]


def test_parameter_shapes_and_buffers_of_the_layers_over_nn_ops():
    lines = run("""
print(nn.Conv2d(3, 6, 5).weight.shape, nn.Conv2d(4, 6, 3, groups=2).weight.shape)
bn = nn.BatchNorm2d(3)
print([n for n, b in bn.named_buffers()], bn.num_batches_tracked)
print([n for n, p in nn.LayerNorm((2, 3)).named_parameters()], nn.LayerNorm((2, 3)).weight.shape)
e = nn.Embedding(4, 2, padding_idx=1)
print(e.weight[1].tolist())
""")
    assert lines == ["torch.Size([6, 3, 5, 5]) torch.Size([6, 2, 3, 3])",
                     "['running_mean', 'running_var', 'num_batches_tracked'] tensor(0)",
                     "['weight', 'bias'] torch.Size([2, 3])", "[0.0, 0.0]"]


@needs("conv2d")
def test_conv2d_by_hand():
    lines = run("""
c = nn.Conv2d(1, 1, 2)
nn.init.ones_(c.weight)
nn.init.zeros_(c.bias)
print(c(torch.arange(9.0).reshape(1, 1, 3, 3)).tolist())
""")
    assert lines == ["[[[[8.0, 12.0], [20.0, 24.0]]]]"]


@needs("conv1d")
def test_conv1d_by_hand():
    lines = run("c = nn.Conv1d(1, 1, 2, bias=False)\nnn.init.ones_(c.weight)\n"
                "print(c(torch.tensor([[[1.0, 2.0, 3.0]]])).tolist())")
    assert lines == ["[[[3.0, 5.0]]]"]


@needs("max_pool2d", "avg_pool2d", "adaptive_avg_pool2d")
def test_pools_by_hand():
    lines = run("""
x = torch.arange(16.0).reshape(1, 1, 4, 4)
print(nn.MaxPool2d(2)(x).tolist(), nn.AvgPool2d(2)(x).tolist(), nn.AdaptiveAvgPool2d(1)(x).tolist())
""")
    assert lines == ["[[[[5.0, 7.0], [13.0, 15.0]]]] [[[[2.5, 4.5], [10.5, 12.5]]]] [[[[7.5]]]]"]


@needs("embedding")
def test_embedding_by_hand():
    lines = run("e = nn.Embedding(3, 3)\nnn.init.eye_(e.weight)\nprint(e(torch.tensor([2, 0])).tolist())")
    assert lines == ["[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]"]


@needs("layer_norm")
def test_layer_norm_by_hand():
    lines = run("y = nn.LayerNorm(2)(torch.tensor([[1.0, 3.0]]))\nprint([round(v, 4) for v in y[0].tolist()])")
    # mean 2, biased variance 1: (x - 2) / sqrt(1 + 1e-5) = -+0.999995 (4 digits: the 5th is
    # a tie that float32 and float64 round differently)
    assert lines == ["[-1.0, 1.0]"]


@needs("batch_norm")
def test_batch_norm_running_statistics_train_and_eval():
    lines = run("""
bn = nn.BatchNorm1d(1)
y = bn(torch.tensor([[1.0], [3.0]]))
print([round(v, 4) for v in y[:, 0].tolist()])
print(round(bn.running_mean.item(), 6), round(bn.running_var.item(), 6), int(bn.num_batches_tracked.item()))
bn.eval()
print(round(bn(torch.tensor([[1.2]])).item(), 4), int(bn.num_batches_tracked.item()))
""")
    # batch mean 2, biased var 1; running_mean = 0.9*0 + 0.1*2; running_var = 0.9*1 + 0.1*2 (unbiased)
    # eval: (1.2 - 0.2) / sqrt(1.1 + 1e-5)
    assert lines == ["[-1.0, 1.0]", "0.2 1.1 1", "0.9535 1"]
