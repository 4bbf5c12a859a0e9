"""format_tensor prints what PyTorch prints.

Every expected string below was produced by ``repr`` of the same data in
PyTorch 2.13.0 (CPU, ``torch.set_default_dtype(torch.float64)``) and checked
equal to format_tensor's output; the strings are hard-coded so the tests never
need torch.
"""

import ast
import sys
from pathlib import Path

import numpy as np
import pytest

import gradcli.format
from gradcli.format import format_tensor

nan, inf = np.nan, np.inf

CASES = [
    # (id, data, suffixes, what PyTorch prints)
    ("int-0d", np.array(12.0), [], "tensor(12.)"),
    ("int-padded", np.arange(0.0, 16.0, 4.0), [], "tensor([ 0.,  4.,  8., 12.])"),
    ("requires-grad", np.array([4.0, 6.0]), ["requires_grad=True"],
     "tensor([4., 6.], requires_grad=True)"),
    ("grad-fn", np.array(28.0), ["grad_fn=<MulBackward0>"], "tensor(28., grad_fn=<MulBackward0>)"),
    ("two-suffixes", np.arange(3.0), ["grad_fn=<SumBackward0>", "requires_grad=True"],
     "tensor([0., 1., 2.], grad_fn=<SumBackward0>, requires_grad=True)"),
    ("fixed-0d", np.array(0.5), [], "tensor(0.5000)"),
    ("fixed-signs", np.array([-1.5, 2.25]), [], "tensor([-1.5000,  2.2500])"),
    ("fixed-rounding", np.array([0.99995, 0.12344]), [], "tensor([1.0000, 0.1234])"),
    ("sci-ratio", np.array([1e-5, 1e3]), [], "tensor([1.0000e-05, 1.0000e+03])"),
    ("sci-small-0d", np.array(5e-5), [], "tensor(5.0000e-05)"),
    # 1e-4 itself is not "< 1e-4", so it stays fixed.
    ("fixed-at-1e-4", np.array(1e-4), [], "tensor(0.0001)"),
    ("sci-huge-0d", np.array(123456789.0), [], "tensor(1.2346e+08)"),
    ("int-ratio-1000", np.array([1.0, 1000.0]), [], "tensor([   1., 1000.])"),
    ("int-ratio-1001", np.array([1.0, 1001.0]), [], "tensor([1.0000e+00, 1.0010e+03])"),
    ("int-1e8", np.array([1e8, 1.0]), [], "tensor([1.0000e+08, 1.0000e+00])"),
    ("nan-inf", np.array([nan, inf]), [], "tensor([nan, inf])"),
    ("neg-inf-fixed", np.array([-inf, 1.5]), [], "tensor([  -inf, 1.5000])"),
    ("nan-sci", np.array([nan, 1e-5, -1.0]), [],
     "tensor([        nan,  1.0000e-05, -1.0000e+00])"),
    ("neg-zero-0d", np.array(-0.0), [], "tensor(-0.)"),
    ("neg-zero-int", np.array([-0.0, 3.0]), [], "tensor([-0., 3.])"),
    ("neg-zero-fixed", np.array([-0.0, 1.5]), [], "tensor([-0.0000, 1.5000])"),
    ("zeros", np.zeros(3), [], "tensor([0., 0., 0.])"),
    ("int-input", np.arange(3), [], "tensor([0, 1, 2])"),  # int64, as torch.arange(3)
    ("2d", np.array([[1.0, 2.0], [3.0, 4.0]]), [],
     "tensor([[1., 2.],\n"
     "        [3., 4.]])"),
    ("2d-grad-fn", np.array([[0.5, -2.0], [3.0, 4.0]]), ["grad_fn=<AddBackward0>"],
     "tensor([[ 0.5000, -2.0000],\n"
     "        [ 3.0000,  4.0000]], grad_fn=<AddBackward0>)"),
    ("3d", np.arange(24.0).reshape(2, 3, 4), [],
     "tensor([[[ 0.,  1.,  2.,  3.],\n"
     "         [ 4.,  5.,  6.,  7.],\n"
     "         [ 8.,  9., 10., 11.]],\n"
     "\n"
     "        [[12., 13., 14., 15.],\n"
     "         [16., 17., 18., 19.],\n"
     "         [20., 21., 22., 23.]]])"),
    ("4d", np.arange(4.0).reshape(2, 1, 2, 1), [],
     "tensor([[[[0.],\n"
     "          [1.]]],\n"
     "\n"
     "\n"
     "        [[[2.],\n"
     "          [3.]]]])"),
    ("wrapped-row", np.arange(30.0) / 10, [],
     "tensor([0.0000, 0.1000, 0.2000, 0.3000, 0.4000, 0.5000, 0.6000, 0.7000, 0.8000,\n"
     "        0.9000, 1.0000, 1.1000, 1.2000, 1.3000, 1.4000, 1.5000, 1.6000, 1.7000,\n"
     "        1.8000, 1.9000, 2.0000, 2.1000, 2.2000, 2.3000, 2.4000, 2.5000, 2.6000,\n"
     "        2.7000, 2.8000, 2.9000])"),
    ("wrapped-int-row", np.arange(-10.0, 15.0), [],
     "tensor([-10.,  -9.,  -8.,  -7.,  -6.,  -5.,  -4.,  -3.,  -2.,  -1.,   0.,   1.,\n"
     "          2.,   3.,   4.,   5.,   6.,   7.,   8.,   9.,  10.,  11.,  12.,  13.,\n"
     "         14.])"),
    ("wrapped-row-suffix", np.arange(20.0) / 10, ["requires_grad=True"],
     "tensor([0.0000, 0.1000, 0.2000, 0.3000, 0.4000, 0.5000, 0.6000, 0.7000, 0.8000,\n"
     "        0.9000, 1.0000, 1.1000, 1.2000, 1.3000, 1.4000, 1.5000, 1.6000, 1.7000,\n"
     "        1.8000, 1.9000], requires_grad=True)"),
    # The row fits in 80 columns but the suffix does not, so it moves to its own line.
    ("suffix-on-new-line", np.arange(9.0) / 10, ["requires_grad=True"],
     "tensor([0.0000, 0.1000, 0.2000, 0.3000, 0.4000, 0.5000, 0.6000, 0.7000, 0.8000],\n"
     "       requires_grad=True)"),
    # Integral, but 1499 / 1 > 1000 switches to scientific.
    ("summarized-1d", np.arange(1500.0), [],
     "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.4970e+03, 1.4980e+03,\n"
     "        1.4990e+03])"),
    # Only the printed edges choose the style: the hidden 1e-6 would force sci.
    ("summarized-hidden-tiny", np.where(np.arange(1500) == 700, 1e-6, 1.0), [],
     "tensor([1., 1., 1.,  ..., 1., 1., 1.])"),
    ("summarized-column", np.arange(1200.0).reshape(1200, 1), [],
     "tensor([[0.0000e+00],\n"
     "        [1.0000e+00],\n"
     "        [2.0000e+00],\n"
     "        ...,\n"
     "        [1.1970e+03],\n"
     "        [1.1980e+03],\n"
     "        [1.1990e+03]])"),
    ("summarized-2d", np.arange(1600.0).reshape(40, 40) / 7, [],
     "tensor([[0.0000e+00, 1.4286e-01, 2.8571e-01,  ..., 5.2857e+00, 5.4286e+00,\n"
     "         5.5714e+00],\n"
     "        [5.7143e+00, 5.8571e+00, 6.0000e+00,  ..., 1.1000e+01, 1.1143e+01,\n"
     "         1.1286e+01],\n"
     "        [1.1429e+01, 1.1571e+01, 1.1714e+01,  ..., 1.6714e+01, 1.6857e+01,\n"
     "         1.7000e+01],\n"
     "        ...,\n"
     "        [2.1143e+02, 2.1157e+02, 2.1171e+02,  ..., 2.1671e+02, 2.1686e+02,\n"
     "         2.1700e+02],\n"
     "        [2.1714e+02, 2.1729e+02, 2.1743e+02,  ..., 2.2243e+02, 2.2257e+02,\n"
     "         2.2271e+02],\n"
     "        [2.2286e+02, 2.2300e+02, 2.2314e+02,  ..., 2.2814e+02, 2.2829e+02,\n"
     "         2.2843e+02]])"),
    # PyTorch pads booleans to the widest word: " True" beside "False".
    ("bool", np.array([True, False]), [], "tensor([ True, False])"),
    ("bool-0d", np.array(True), [], "tensor(True)"),
    ("bool-2d", np.array([[True], [True]]), [],
     "tensor([[True],\n"
     "        [True]])"),
    ("empty", np.array([]), [], "tensor([])"),
    ("empty-2d", np.zeros((0, 3)), [], "tensor([], size=(0, 3))"),
    ("empty-2d-suffix", np.zeros((0, 3)), ["requires_grad=True"],
     "tensor([], size=(0, 3), requires_grad=True)"),
    # An empty tensor shows no element, so even bool names its dtype.
    ("empty-bool", np.array([], dtype=bool), [], "tensor([], dtype=torch.bool)"),
]


@pytest.mark.parametrize(
    "data, suffixes, expected", [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_matches_pytorch(data, suffixes, expected):
    assert format_tensor(data, suffixes) == expected


def test_imports_only_numpy_and_stdlib():
    tree = ast.parse(Path(gradcli.format.__file__).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module.split(".")[0])
    assert imported - {"numpy"} <= set(sys.stdlib_module_names)
