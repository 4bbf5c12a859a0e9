"""conv1d/conv2d, the pools, embedding, layer_norm and batch_norm: hand-derived values,
node names, errors. (First and second order against differences: test_op_table.py.)"""
import numpy as np
import pytest

from gradcli.errors import ProgramValueError, ShapeError
from gradcli.ops import NN_FUNCTIONS as F
from gradcli._tensor import Tensor


def T(v, requires_grad=False):
    return Tensor(np.array(v, dtype=float), requires_grad=requires_grad)


def test_conv2d_sums_each_window_and_spreads_the_gradient_back():
    x = T(np.arange(9.0).reshape(1, 1, 3, 3), True)
    w = T(np.ones((1, 1, 2, 2)), True)
    b = T([1.0], True)
    out = F["conv2d"](x, w, b)
    assert out.grad_fn.name() == "ConvolutionBackward0"
    # each 2x2 window of 0..8 plus the bias
    np.testing.assert_array_equal(out._data, [[[[9, 13], [21, 25]]]])
    out.sum().backward()
    # each pixel is in as many windows as cover it
    np.testing.assert_array_equal(x.grad._data[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])
    # each weight sees the window sums at its offset: 0+1+3+4, 1+2+4+5, ...
    np.testing.assert_array_equal(w.grad._data[0, 0], [[8, 12], [20, 24]])
    assert b.grad._data.tolist() == [4.0]


def test_conv2d_stride_padding_groups_and_conv1d_dilation():
    x = T(np.arange(1.0, 10.0).reshape(1, 1, 3, 3))
    out = F["conv2d"](x, T(np.full((1, 1, 1, 1), 2.0)), stride=2, padding=1)
    # padded to 5x5, every second position: only the centre (5) is inside
    np.testing.assert_array_equal(out._data[0, 0], [[0, 0, 0], [0, 10, 0], [0, 0, 0]])
    grouped = F["conv2d"](T([[[[2.0]], [[3.0]]]]), T([[[[10.0]]], [[[100.0]]]]), groups=2)
    assert grouped._data.reshape(-1).tolist() == [20.0, 300.0]
    dilated = F["conv1d"](T([[[1.0, 2.0, 3.0, 4.0, 5.0]]]), T([[[1.0, 0.0, -1.0]]]), dilation=2)
    assert dilated._data.tolist() == [[[-4.0]]]       # x0 - x4
    same = F["conv1d"](T([[[1.0, 2.0, 3.0]]]), T([[[1.0, 1.0, 1.0]]]), padding="same")
    assert same._data.tolist() == [[[3.0, 6.0, 5.0]]]
    unbatched = F["conv1d"](T([[1.0, 2.0, 3.0]]), T([[[1.0, 1.0]]]))
    assert unbatched._data.tolist() == [[3.0, 5.0]]


def test_conv_errors_are_pytorchs():
    with pytest.raises(ShapeError, match="expected input\\[1, 3, 4, 4\\] to have 2 channels, but got 3"):
        F["conv2d"](T(np.zeros((1, 3, 4, 4))), T(np.zeros((1, 2, 2, 2))))
    with pytest.raises(ShapeError, match="Kernel size can't be greater than actual input size"):
        F["conv2d"](T(np.zeros((1, 1, 2, 2))), T(np.zeros((1, 1, 3, 3))))


def test_max_pool2d_passes_the_gradient_to_the_maximum():
    x = T([[[[1.0, 5.0, 0.0, 1.0], [3.0, 2.0, 7.0, 2.0]]]], True)
    out = F["max_pool2d"](x, 2)
    assert out.grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    assert out._data.tolist() == [[[[5.0, 7.0]]]]
    out.sum().backward()
    assert x.grad._data.tolist() == [[[[0, 1, 0, 0], [0, 0, 1, 0]]]]
    _, index = F["max_pool2d"](x, 2, return_indices=True)
    assert index._data.tolist() == [[[[1, 6]]]]


def test_avg_and_adaptive_avg_pool2d():
    x = T([[[[1.0, 5.0], [3.0, 2.0]]]], True)
    out = F["avg_pool2d"](x, 2)
    assert out.grad_fn.name() == "AvgPool2DBackward0"
    assert out._data.tolist() == [[[[2.75]]]]
    out.sum().backward()
    assert x.grad._data.tolist() == [[[[0.25, 0.25], [0.25, 0.25]]]]
    # count_include_pad=False: the corner window holds one real element
    corner = F["avg_pool2d"](T([[[[4.0]]]]), 3, stride=1, padding=1, count_include_pad=False)
    assert corner._data.tolist() == [[[[4.0]]]]
    y = T([[[[1.0], [2.0], [4.0]]]], True)
    ada = F["adaptive_avg_pool2d"](y, (2, 1))
    assert ada.grad_fn.name() == "AdaptiveAvgPool2DBackward0"
    assert ada._data.reshape(-1).tolist() == [1.5, 3.0]   # windows [0, 2) and [1, 3)
    ada.sum().backward()
    assert y.grad._data.reshape(-1).tolist() == [0.5, 1.0, 0.5]


def test_embedding_gathers_rows_and_adds_gradients_except_at_padding():
    w = T(np.arange(6.0).reshape(3, 2), True)
    out = F["embedding"](Tensor(np.array([2, 0, 2])), w)
    assert out.grad_fn.name() == "EmbeddingBackward0"
    assert out._data.tolist() == [[4, 5], [0, 1], [4, 5]]
    out.sum().backward()
    assert w.grad._data.tolist() == [[1, 1], [0, 0], [2, 2]]
    w.grad = None
    F["embedding"](Tensor(np.array([2, 0, 2])), w, padding_idx=2).sum().backward()
    assert w.grad._data.tolist() == [[1, 1], [0, 0], [0, 0]]
    with pytest.raises(ProgramValueError, match="index out of range in self"):
        F["embedding"](Tensor(np.array([3])), w)


def test_layer_norm_and_its_gradients():
    x = T([[1.0, 3.0]], True)
    w, b = T([2.0, 3.0], True), T([1.0, 1.0], True)
    out = F["layer_norm"](x, (2,), w, b, eps=0.0)
    assert out.grad_fn.name() == "NativeLayerNormBackward0"
    # mean 2, variance 1: xhat = [-1, 1]
    assert out._data.tolist() == [[-1.0, 4.0]]
    out.sum().backward()
    assert w.grad._data.tolist() == [-1.0, 1.0]
    assert b.grad._data.tolist() == [1.0, 1.0]
    # d/dx of sum(w * xhat): xhat' = (I - 1/n - xhat xhat^T / n) / std, applied to w = [2, 3]
    np.testing.assert_allclose(x.grad._data, [[0.0, 0.0]], atol=1e-12)
    with pytest.raises(ShapeError, match="expected input with shape \\[\\*, 3\\]"):
        F["layer_norm"](x, (3,))


def test_batch_norm_training_updates_running_statistics_in_place():
    x = T([[1.0], [3.0]], True)
    mean, var = T([0.0]), T([1.0])
    out = F["batch_norm"](x, mean, var, training=True, eps=0.0)
    assert out.grad_fn.name() == "NativeBatchNormBackward0"
    assert out._data.reshape(-1).tolist() == [-1.0, 1.0]
    # batch mean 2, unbiased variance 2; momentum 0.1
    assert mean._data.tolist() == pytest.approx([0.2])
    assert var._data.tolist() == pytest.approx([0.9 + 0.2])
    ev = F["batch_norm"](T([[1.0], [5.0]], True), T([1.0]), T([4.0]), T([3.0]), T([0.5]), eps=0.0)
    assert ev._data.reshape(-1).tolist() == [0.5, 6.5]     # (x - 1) / 2 * 3 + 0.5
    x2 = T([[1.0], [5.0]], True)
    F["batch_norm"](x2, T([1.0]), T([4.0]), T([3.0]), None, eps=0.0).sum().backward()
    assert x2.grad._data.reshape(-1).tolist() == [1.5, 1.5]
    with pytest.raises(ProgramValueError, match="Expected more than 1 value per channel"):
        F["batch_norm"](T([[1.0]]), None, None, training=True)


def test_a_program_reaches_the_ops_and_loss_modules():
    from gradcli.lang import compile_program

    source = """
import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.ones(1, 1, 4, 4, requires_grad=True)
y = F.max_pool2d(F.conv2d(x, torch.ones(2, 1, 3, 3), padding=1), 2)
print(y.shape, y.grad_fn.name())
h = F.adaptive_avg_pool2d(F.avg_pool2d(y, 1), 1).flatten(1)
loss = nn.CrossEntropyLoss(label_smoothing=0.1)(h, torch.tensor([1]))
loss.backward()
print(loss.grad_fn.name(), x.grad.shape)
print(F.layer_norm(torch.tensor([[1.0, 3.0]]), (2,), eps=0.0).tolist())
"""
    lines = []
    compile_program(source).run(stdout=lines.append, script=True)
    assert lines == ["torch.Size([1, 2, 2, 2]) MaxPool2DWithIndicesBackward0",
                     "AddBackward0 torch.Size([1, 1, 4, 4])", "[[-1.0, 1.0]]"]
