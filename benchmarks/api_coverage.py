"""How much of the PyTorch API that real code uses works in gradcli programs.

    python benchmarks/api_coverage.py [--tsv ../shared/api-usage.tsv] [--jobs 2] [--batch 30]

Reads the ranking of names (name, kind, files, probe) made over real PyTorch code,
and probes every name with a real `gradcli run` program: a name counts only if it
resolves AND a tiny typical use of it runs without an error (`USES` below; a name
without an entry there gets a use made from its kind: a method called with no
arguments, a torch function called on a float tensor, a class called with no
arguments, a constant read). Names are probed in batches, one program per batch,
each use in its own try/except with fresh fixtures; a name whose batch did not
report it (the batch failed to parse, or ended early) is probed again alone, so
one probe's failure never hides another's. No PyTorch needed.

Prints the coverage of the top 100, top 300 and all counted names (the kinds the
tsv's header counts, leaving out devices, distributed work, tracing and
compilation), the missing names with the first line of their error, the
standard and other modules apart, and how many of the left-out names are
refused with "not supported".
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COUNTED_KINDS = ("torch", "nn", "F", "optim", "tensor_method", "tensor_attribute", "builtin")
# The tsv header's list of what coverage leaves out (refused clearly instead).
EXCLUDED = ("torch.cuda", "torch.distributed", "torch.fx", "torch.multiprocessing", "torch.jit",
            "torch.onnx", "torch.profiler", "torch.accelerator", "torch.backends", "torch.amp",
            "torch.compile", "nn.parallel", "nn.DataParallel", "torch.utils.data.distributed")

HEADER = """import torch
import torch.nn as nn
import torch.nn.functional as F
import numpy as np
import math
"""
FIXTURES = "x = torch.randn(3, 4, requires_grad=True)\nt3 = torch.tensor([0, 1, 3])\n"

_OPT = "p = torch.nn.Parameter(torch.randn(3))\nopt = {}([p], lr=0.1)\n(p * p).sum().backward()\nopt.step()"
_RAISE = "try:\n    raise {0}('bad')\nexcept {0} as err:\n    m = str(err)"
_LAYER = "y = {}(x)"
_MHA = "q = torch.randn(3, 2, 8)\nout, w = {}(8, 2)(q, q, q)"
_RNN = "out, h = {}(4, 5)(torch.randn(2, 3, 4))"
_CLASS_HOLDER = "class A:\n    {}\n    def f(c):\n        return 1\nv = A.f()"

# A typical use of each name (x is a 3x4 float tensor that requires grad, t3 class indices).
USES = {
    "print": "print('probe')",
    "range": "r = list(range(0, 6, 2))",
    "torch.nn": "l = torch.nn.Linear(2, 2)",
    "len": "n = len([1, 2])",
    "super": "class Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
             "        self.fc = torch.nn.Linear(4, 2)\nnet = Net()",
    "nn.Module": "class Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.fc = torch.nn.Linear(4, 2)\n    def forward(self, x):\n"
                 "        return self.fc(x)\ny = Net()(x)",
    "Tensor.backward": "x.sum().backward()",
    "Tensor.shape": "s = x.shape[0]",
    "Tensor.to": "y = x.to(torch.float64)",
    "nn.Linear": "y = torch.nn.Linear(4, 2)(x)",
    "int": "n = int(3.7)",
    "Tensor.item": "v = x.sum().item()",
    "enumerate": "for i, v in enumerate([5, 6]):\n    w = i + v",
    "torch.tensor": "t = torch.tensor([1.0, 2.0])",
    "Tensor.sum": "s = x.sum(dim=0)",
    "torch.utils.data.DataLoader": "ds = torch.utils.data.TensorDataset(torch.randn(6, 2), torch.arange(6))\n"
                                   "for xb, yb in torch.utils.data.DataLoader(ds, batch_size=2, shuffle=True):\n"
                                   "    s = xb.sum()",
    "float": "f = float('1.5')",
    "str": "s = str(3)",
    "torch.no_grad": "with torch.no_grad():\n    y = x * 2",
    "nn.functional": "y = torch.nn.functional.relu(x)",
    "nn.Sequential": "y = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())(x)",
    "Tensor.data": "d = x.data",
    "Tensor.reshape": "y = x.reshape(2, 6)",
    "torch.device": "d = torch.device('cpu')\ny = x.to(d)",
    "optim.Adam": _OPT.format("torch.optim.Adam"),
    "optim.SGD": _OPT.format("torch.optim.SGD"),
    "optim.AdamW": _OPT.format("torch.optim.AdamW"),
    "optim.Adadelta": _OPT.format("torch.optim.Adadelta"),
    "optim.Adagrad": _OPT.format("torch.optim.Adagrad"),
    "optim.RMSprop": _OPT.format("torch.optim.RMSprop"),
    "optim.LBFGS": "p = torch.nn.Parameter(torch.randn(3))\nopt = torch.optim.LBFGS([p])\n"
                   "def closure():\n    opt.zero_grad()\n    loss = (p * p).sum()\n    loss.backward()\n"
                   "    return loss\nopt.step(closure)",
    "optim.Optimizer": "b = isinstance(torch.optim.SGD([torch.nn.Parameter(torch.randn(2))], lr=0.1), "
                       "torch.optim.Optimizer)",
    "optim.lr_scheduler": "opt = torch.optim.SGD([torch.nn.Parameter(torch.randn(2))], lr=0.1)\n"
                          "s = torch.optim.lr_scheduler.StepLR(opt, step_size=1)",
    "optim.lr_scheduler.StepLR": "opt = torch.optim.SGD([torch.nn.Parameter(torch.randn(2))], lr=0.1)\n"
                                 "s = torch.optim.lr_scheduler.StepLR(opt, step_size=1)\nopt.step()\ns.step()",
    "optim.lr_scheduler.MultiStepLR": "opt = torch.optim.SGD([torch.nn.Parameter(torch.randn(2))], lr=0.1)\n"
                                      "s = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 2])\n"
                                      "opt.step()\ns.step()",
    "torch.optim": "opt = torch.optim.SGD([torch.nn.Parameter(torch.randn(2))], lr=0.1)",
    "zip": "z = list(zip([1, 2], [3, 4]))",
    "torch.zeros": "z = torch.zeros(2, 3)",
    "Tensor.size": "s = x.size(0)",
    "nn.CrossEntropyLoss": "l = torch.nn.CrossEntropyLoss()(x, t3)",
    "torch.save": "torch.save(x, 'x.pt')",
    "torch.load": "t = torch.load('x.pt')",
    "list": "l = list((1, 2))",
    "torch.cat": "y = torch.cat([x, x], dim=0)",
    "torch.arange": "a = torch.arange(0, 5, 2)",
    "torch.randn": "r = torch.randn(2, 3)",
    "iter": "it = iter([1, 2])\nv = next(it)",
    "next": "it = iter([1, 2])\nv = next(it)",
    "Tensor.view": "y = x.view(-1)",
    "nn.LazyLinear": "y = torch.nn.LazyLinear(2)(x)",
    "torch.manual_seed": "torch.manual_seed(0)",
    "Tensor.grad": "x.sum().backward()\ng = x.grad",
    "Tensor.numpy": "a = x.detach().numpy()",
    "open": "f = open('data.txt')",
    "torch.float32": "y = x.to(torch.float32)",
    "Tensor.unsqueeze": "y = x.unsqueeze(0)",
    "nn.Dropout": "y = torch.nn.Dropout(0.5)(x)",
    "torch.ones": "o = torch.ones(2, 3)",
    "torch.rand": "r = torch.rand(2, 3)",
    "torch.utils.data.Dataset": "class D(torch.utils.data.Dataset):\n    def __len__(self):\n        return 3\n"
                                "    def __getitem__(self, i):\n        return torch.tensor(float(i))\n"
                                "d = D()\nv = d[1]\nn = len(d)",
    "Tensor.device": "d = x.device",
    "nn.Conv2d": "y = torch.nn.Conv2d(1, 2, 3)(torch.randn(1, 1, 5, 5))",
    "torch.max": "m = torch.max(x)\nv, i = torch.max(x, dim=1)",
    "nn.Embedding": "e = torch.nn.Embedding(10, 3)(torch.tensor([1, 2]))",
    "isinstance": "b = isinstance(x, torch.Tensor)",
    "torch.from_numpy": "t = torch.from_numpy(np.array([1.0, 2.0]))",
    "Tensor.zero_": "y = x.detach().zero_()",
    "nn.Parameter": "p = torch.nn.Parameter(torch.randn(2))",
    "nn.Flatten": "y = torch.nn.Flatten()(torch.randn(2, 3, 4))",
    "Tensor.permute": "y = x.permute(1, 0)",
    "torch.sqrt": "y = torch.sqrt(x.abs())",
    "type": "b = type(torch.nn.Linear(1, 1)) == torch.nn.Linear",
    "Tensor.squeeze": "y = x.unsqueeze(0).squeeze(0)",
    "nn.MSELoss": "l = torch.nn.MSELoss()(x, torch.zeros(3, 4))",
    "torch.log": "y = torch.log(x.abs() + 1)",
    "torch.long": "y = torch.tensor([1.5]).to(torch.long)",
    "torch.sum": "s = torch.sum(x, dim=1)",
    "F.softmax": "y = torch.nn.functional.softmax(x, dim=1)",
    "F.log_softmax": "y = torch.nn.functional.log_softmax(x, dim=1)",
    "bool": "b = bool(1)",
    "nn.LazyConv2d": "y = torch.nn.LazyConv2d(2, 3)(torch.randn(1, 1, 5, 5))",
    "sum": "s = sum([1, 2])",
    "Tensor.argmax": "i = x.argmax(dim=1)",
    "Tensor.transpose": "y = x.transpose(0, 1)",
    "nn.MaxPool2d": "y = torch.nn.MaxPool2d(2)(torch.randn(1, 1, 4, 4))",
    "torch.stack": "y = torch.stack([x, x])",
    "max": "m = max(1, 2)",
    "min": "m = min([3, 1])",
    "nn.init.xavier_uniform_": "w = torch.empty(3, 4)\ntorch.nn.init.xavier_uniform_(w)",
    "nn.init.xavier_normal_": "w = torch.empty(3, 4)\ntorch.nn.init.xavier_normal_(w)",
    "nn.init.normal_": "w = torch.empty(3, 4)\ntorch.nn.init.normal_(w, std=0.01)",
    "nn.init.uniform_": "w = torch.empty(3, 4)\ntorch.nn.init.uniform_(w, -0.1, 0.1)",
    "nn.init.zeros_": "torch.nn.init.zeros_(torch.empty(3))",
    "nn.init.ones_": "torch.nn.init.ones_(torch.empty(3))",
    "nn.init.constant_": "torch.nn.init.constant_(torch.empty(3), 0.5)",
    "nn.init": "torch.nn.init.constant_(torch.empty(3), 0.5)",
    "nn.init.calculate_gain": "g = torch.nn.init.calculate_gain('relu')",
    "nn.init.kaiming_normal_": "torch.nn.init.kaiming_normal_(torch.empty(3, 4), mode='fan_out', "
                               "nonlinearity='relu')",
    "nn.init.orthogonal_": "torch.nn.init.orthogonal_(torch.empty(3, 4))",
    "nn.init.trunc_normal_": "torch.nn.init.trunc_normal_(torch.empty(3, 4), std=0.02)",
    "dict": "d = dict(a=1)",
    "hasattr": "b = hasattr(torch.nn.Linear(1, 1), 'weight')",
    "getattr": "w = getattr(torch.nn.Linear(1, 1), 'weight')",
    "setattr": "m = torch.nn.Linear(1, 1)\nsetattr(m, 'tag', 3)",
    "torch.normal": "y = torch.normal(0.0, 1.0, size=(2, 3))",
    "F.cross_entropy": "l = torch.nn.functional.cross_entropy(x, t3)",
    "F.nll_loss": "l = torch.nn.functional.nll_loss(torch.log_softmax(x, dim=1), t3)",
    "nn.LSTM": "out, (h, c) = torch.nn.LSTM(4, 5)(torch.randn(2, 3, 4))",
    "nn.GRU": _RNN.format("torch.nn.GRU"),
    "nn.RNN": _RNN.format("torch.nn.RNN"),
    "nn.modules.rnn.GRU": _RNN.format("torch.nn.modules.rnn.GRU"),
    "nn.modules.rnn.RNN": _RNN.format("torch.nn.modules.rnn.RNN"),
    "nn.modules.rnn.LSTM": "out, (h, c) = torch.nn.modules.rnn.LSTM(4, 5)(torch.randn(2, 3, 4))",
    "nn.LSTMCell": "h, c = torch.nn.LSTMCell(4, 5)(x)",
    "torch.Tensor": "t = torch.Tensor([1, 2])",
    "Tensor.copy_": "y = torch.zeros(3, 4)\ny.copy_(x.detach())",
    "Tensor.eq": "b = x.eq(x)",
    "Tensor.fill_": "y = torch.zeros(2).fill_(3)",
    "nn.AdaptiveAvgPool2d": "y = torch.nn.AdaptiveAvgPool2d((1, 1))(torch.randn(1, 2, 4, 4))",
    "nn.AdaptiveAvgPool1d": "y = torch.nn.AdaptiveAvgPool1d(2)(torch.randn(1, 2, 6))",
    "nn.AdaptiveMaxPool2d": "y = torch.nn.AdaptiveMaxPool2d((1, 1))(torch.randn(1, 2, 4, 4))",
    "nn.BatchNorm2d": "y = torch.nn.BatchNorm2d(2)(torch.randn(2, 2, 3, 3))",
    "nn.BatchNorm1d": "y = torch.nn.BatchNorm1d(4)(x)",
    "nn.LazyBatchNorm2d": "y = torch.nn.LazyBatchNorm2d()(torch.randn(2, 3, 4, 4))",
    "nn.LazyBatchNorm1d": "y = torch.nn.LazyBatchNorm1d()(x)",
    "sorted": "s = sorted([3, 1])",
    "torch.LongTensor": "t = torch.LongTensor([1, 2])",
    "torch.FloatTensor": "t = torch.FloatTensor([1, 2])",
    "torch.mm": "y = torch.mm(x, x.T)",
    "torch.randint": "r = torch.randint(0, 10, (3,))",
    "set": "s = set([1, 2])",
    "slice": "s = [1, 2, 3][slice(0, 2)]",
    "Tensor.long": "y = x.long()",
    "Tensor.t": "y = x.t()",
    "nn.LayerNorm": "y = torch.nn.LayerNorm(4)(x)",
    "torch.bfloat16": "y = torch.zeros(2, dtype=torch.bfloat16)",
    "torch.float16": "y = x.to(torch.float16)",
    "torch.float64": "y = x.to(torch.float64)",
    "torch.float": "y = x.to(torch.float)",
    "torch.double": "y = x.to(torch.double)",
    "torch.int32": "y = x.to(torch.int32)",
    "torch.int64": "y = x.to(torch.int64)",
    "torch.uint8": "y = x.to(torch.uint8)",
    "torch.bool": "y = x.to(torch.bool)",
    "torch.flatten": "y = torch.flatten(x)",
    "torch.utils.data": "ds = torch.utils.data.TensorDataset(torch.randn(4, 2))",
    "tuple": "t = tuple([1, 2])",
    "Tensor.repeat": "y = x.repeat(2, 1)",
    "nn.AvgPool2d": "y = torch.nn.AvgPool2d(2)(torch.randn(1, 1, 4, 4))",
    "nn.BCELoss": "l = torch.nn.BCELoss()(torch.sigmoid(x), torch.ones(3, 4))",
    "nn.BCEWithLogitsLoss": "l = torch.nn.BCEWithLogitsLoss()(x, torch.ones(3, 4))",
    "nn.NLLLoss": "l = torch.nn.NLLLoss()(torch.log_softmax(x, dim=1), t3)",
    "nn.L1Loss": "l = torch.nn.L1Loss()(x, torch.zeros(3, 4))",
    "nn.utils.clip_grad_norm_": "m = torch.nn.Linear(4, 2)\nm(x).sum().backward()\n"
                                "n = torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)",
    "torch.acos": "y = torch.acos(x.clamp(-0.9, 0.9))",
    "torch.arccos": "y = torch.arccos(x.clamp(-0.9, 0.9))",
    "torch.arcsin": "y = torch.arcsin(x.clamp(-0.9, 0.9))",
    "Tensor.clamp": "y = x.clamp(min=0)",
    "Tensor.cuda": "try:\n    y = x.cuda()\nexcept Exception as err:\n    assert 'CUDA' in str(err)",
    "Tensor.cumsum": "y = x.cumsum(dim=1)",
    "Tensor.pow": "y = x.pow(2)",
    "Tensor.requires_grad_": "y = torch.zeros(2).requires_grad_()",
    "Tensor.resize": "y = x.detach().resize(12)",
    "Tensor.trace": "y = torch.randn(3, 3).trace()",
    "Tensor.view_as": "y = torch.zeros(12).view_as(x)",
    "exec": "exec('a = 1')",
    "nn.ConvTranspose2d": "y = torch.nn.ConvTranspose2d(1, 2, 3, stride=2)(torch.randn(1, 1, 4, 4))",
    "nn.ModuleList": "ml = torch.nn.ModuleList([torch.nn.Linear(4, 4)])\nfor layer in ml:\n    y = layer(x)",
    "nn.modules.container.ModuleList": "ml = torch.nn.modules.container.ModuleList([torch.nn.Linear(4, 4)])\n"
                                       "y = ml[0](x)",
    "nn.ModuleDict": "d = torch.nn.ModuleDict({'a': torch.nn.Linear(4, 2)})\ny = d['a'](x)",
    "object": "class A(object):\n    pass\na = A()",
    "property": "class A:\n    @property\n    def v(self):\n        return 1\nb = A().v",
    "staticmethod": _CLASS_HOLDER.format("@staticmethod").replace("def f(c)", "def f()"),
    "classmethod": _CLASS_HOLDER.format("@classmethod"),
    "round": "r = round(2.567, 2)",
    "torch.bmm": "y = torch.bmm(torch.randn(2, 3, 4), torch.randn(2, 4, 5))",
    "Tensor.bmm": "y = torch.randn(2, 3, 4).bmm(torch.randn(2, 4, 5))",
    "torch.distributions.Categorical": "d = torch.distributions.Categorical(probs=torch.tensor([0.3, 0.7]))\n"
                                       "s = d.sample()",
    "torch.distributions": "d = torch.distributions.Categorical(probs=torch.tensor([0.3, 0.7]))",
    "torch.distributions.binomial.Binomial": "s = torch.distributions.binomial.Binomial(10, "
                                             "torch.tensor([0.5])).sample()",
    "torch.distributions.multinomial.Multinomial": "s = torch.distributions.multinomial.Multinomial(10, "
                                                   "torch.tensor([0.5, 0.5])).sample()",
    "torch.distributions.poisson.Poisson": "s = torch.distributions.poisson.Poisson(torch.tensor([2.0])).sample()",
    "torch.meshgrid": "a, b = torch.meshgrid(torch.arange(3), torch.arange(2), indexing='ij')",
    "torch.multinomial": "i = torch.multinomial(torch.tensor([0.2, 0.8]), 1)",
    "torch.mv": "y = torch.mv(x, torch.randn(4))",
    "torch.pi": "v = torch.pi * 2",
    "torch.repeat_interleave": "y = torch.repeat_interleave(torch.tensor([1, 2]), 2)",
    "torch.topk": "v, i = torch.topk(x, 2)",
    "Tensor.topk": "v, i = x.topk(2)",
    "F.max_pool2d": "y = torch.nn.functional.max_pool2d(torch.randn(1, 1, 4, 4), 2)",
    "F.avg_pool2d": "y = torch.nn.functional.avg_pool2d(torch.randn(1, 1, 4, 4), 2)",
    "F.scaled_dot_product_attention": "q = torch.randn(1, 2, 3, 4)\n"
                                      "y = torch.nn.functional.scaled_dot_product_attention(q, q, q)",
    "Tensor.add_": "y = torch.zeros(3, 4)\ny.add_(x.detach(), alpha=2)",
    "Tensor.normal_": "y = torch.empty(3).normal_()",
    "Tensor.random_": "y = torch.empty(3).random_(0, 10)",
    "abs": "a = abs(-2)",
    "any": "b = any([False, True])",
    "all": "b = all([True, True])",
    "callable": "b = callable(len)",
    "map": "l = list(map(str, [1, 2]))",
    "nn.Dropout2d": "y = torch.nn.Dropout2d(0.5)(torch.randn(2, 3, 4, 4))",
    "reversed": "l = list(reversed([1, 2]))",
    "torch.dot": "y = torch.dot(torch.randn(3), torch.randn(3))",
    "Tensor.dot": "y = torch.randn(3).dot(torch.randn(3))",
    "torch.eye": "y = torch.eye(3)",
    "torch.full": "y = torch.full((2, 2), 7.0)",
    "torch.empty": "y = torch.empty(2, 3)",
    "torch.linspace": "y = torch.linspace(0, 1, 5)",
    "torch.matmul": "y = torch.matmul(x, x.T)",
    "torch.norm": "y = torch.norm(x)",
    "torch.serialization.safe_globals": "with torch.serialization.safe_globals([]):\n    y = x * 2",
    "torch.tril": "y = torch.tril(torch.ones(3, 3))",
    "torch.triu": "y = torch.triu(torch.ones(3, 3))",
    "torch.unsqueeze": "y = torch.unsqueeze(x, 0)",
    "torch.squeeze": "y = torch.squeeze(torch.randn(1, 3))",
    "torch.utils.data.TensorDataset": "ds = torch.utils.data.TensorDataset(torch.randn(4, 2), torch.arange(4))\n"
                                      "xb, yb = ds[0]\nn = len(ds)",
    "torch.utils.data.Subset": "s = torch.utils.data.Subset(torch.utils.data.TensorDataset(torch.randn(4, 2)), "
                               "[0, 2])\nn = len(s)",
    "torch.utils.data.random_split": "a, b = torch.utils.data.random_split("
                                     "torch.utils.data.TensorDataset(torch.randn(4, 2)), [2, 2])",
    "torch.utils.data.sampler.Sampler": "class S(torch.utils.data.sampler.Sampler):\n    def __iter__(self):\n"
                                        "        return iter([0, 1])\ns = S()",
    "torch.utils.tensorboard.SummaryWriter": "w = torch.utils.tensorboard.SummaryWriter()",
    "F.binary_cross_entropy": "l = torch.nn.functional.binary_cross_entropy(torch.sigmoid(x), torch.ones(3, 4))",
    "F.binary_cross_entropy_with_logits": "l = torch.nn.functional.binary_cross_entropy_with_logits("
                                          "x, torch.ones(3, 4))",
    "F.dropout": "y = torch.nn.functional.dropout(x, 0.5, training=True)",
    "F.one_hot": "y = torch.nn.functional.one_hot(torch.tensor([0, 2]), 3)",
    "F.smooth_l1_loss": "l = torch.nn.functional.smooth_l1_loss(x, torch.zeros(3, 4))",
    "F.conv2d": "y = torch.nn.functional.conv2d(torch.randn(1, 1, 5, 5), torch.randn(2, 1, 3, 3))",
    "F.interpolate": "y = torch.nn.functional.interpolate(torch.randn(1, 1, 2, 2), scale_factor=2, "
                     "mode='nearest')",
    "F.layer_norm": "y = torch.nn.functional.layer_norm(x, (4,))",
    "Tensor.expand": "y = torch.randn(1, 4).expand(3, 4)",
    "Tensor.expand_as": "y = torch.randn(1, 4).expand_as(x)",
    "Tensor.masked_fill": "y = x.masked_fill(x > 0, 0.0)",
    "Tensor.mm": "y = x.mm(x.T)",
    "Tensor.matmul": "y = x.matmul(x.T)",
    "Tensor.mul": "y = x.mul(2)",
    "Tensor.div": "y = x.div(2)",
    "Tensor.mul_": "y = torch.ones(2).mul_(2)",
    "Tensor.div_": "y = torch.ones(2).div_(2)",
    "Tensor.sub_": "y = torch.ones(2).sub_(1)",
    "Tensor.clamp_": "y = torch.randn(3).clamp_(min=0)",
    "Tensor.clip": "y = x.clip(-1, 1)",
    "Tensor.detach_": "y = x * 2\ny.detach_()",
    "Tensor.log": "y = x.abs().log()",
    "Tensor.new_zeros": "y = x.new_zeros(2, 3)",
    "Tensor.new_tensor": "y = x.new_tensor([1.0, 2.0])",
    "Tensor.pin_memory": "y = x.detach().pin_memory()",
    "Tensor.repeat_interleave": "y = x.repeat_interleave(2, dim=0)",
    "Tensor.scatter_": "y = torch.zeros(3, 4).scatter_(1, torch.tensor([[0], [1], [2]]), 1.0)",
    "Tensor.scatter": "y = torch.zeros(3, 4).scatter(1, torch.tensor([[0], [1], [2]]), 1.0)",
    "Tensor.select": "y = x.select(0, 1)",
    "Tensor.swapaxes": "y = x.swapaxes(0, 1)",
    "Tensor.to_sparse": "y = x.detach().to_sparse()",
    "Tensor.type_as": "y = torch.tensor([1, 2]).type_as(x)",
    "Tensor.unique": "y = torch.tensor([1, 2, 2]).unique()",
    "exit": "f = exit\nb = callable(f)",
    "nn.Softmax": "y = torch.nn.Softmax(dim=1)(x)",
    "nn.Transformer": "t = torch.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, "
                      "dim_feedforward=16)\ny = t(torch.randn(3, 2, 8), torch.randn(4, 2, 8))",
    "nn.MultiheadAttention": _MHA.format("torch.nn.MultiheadAttention"),
    "nn.modules.activation.MultiheadAttention": _MHA.format("torch.nn.modules.activation.MultiheadAttention"),
    "nn.modules.dropout.Dropout": "y = torch.nn.modules.dropout.Dropout(0.5)(x)",
    "nn.modules.linear.Linear": "y = torch.nn.modules.linear.Linear(4, 2)(x)",
    "nn.modules.linear.NonDynamicallyQuantizableLinear": "y = torch.nn.modules.linear."
                                                         "NonDynamicallyQuantizableLinear(4, 2)(x)",
    "nn.modules.normalization.LayerNorm": "y = torch.nn.modules.normalization.LayerNorm(4)(x)",
    "nn.modules.sparse.Embedding": "e = torch.nn.modules.sparse.Embedding(10, 3)(torch.tensor([1, 2]))",
    "nn.modules.transformer.TransformerEncoder": "layer = torch.nn.modules.transformer.TransformerEncoderLayer("
                                                 "8, 2, 16)\nenc = torch.nn.modules.transformer.TransformerEncoder("
                                                 "layer, 2)\ny = enc(torch.randn(3, 2, 8))",
    "nn.modules.transformer.TransformerEncoderLayer": "y = torch.nn.modules.transformer.TransformerEncoderLayer("
                                                      "8, 2, 16)(torch.randn(3, 2, 8))",
    "nn.modules.activation.ReLU": "y = torch.nn.modules.activation.ReLU()(x)",
    "nn.modules.conv.Conv2d": "y = torch.nn.modules.conv.Conv2d(1, 2, 3)(torch.randn(1, 1, 5, 5))",
    "nn.modules.pixelshuffle.PixelShuffle": "y = torch.nn.modules.pixelshuffle.PixelShuffle(2)("
                                            "torch.randn(1, 4, 2, 2))",
    "nn.PixelShuffle": "y = torch.nn.PixelShuffle(2)(torch.randn(1, 4, 2, 2))",
    "nn.utils.rnn.pack_padded_sequence": "p = torch.nn.utils.rnn.pack_padded_sequence(torch.randn(3, 2, 4), [3, 2])\n"
                                         "out, h = torch.nn.RNN(4, 5)(p)",
    "nn.utils.rnn.pad_sequence": "y = torch.nn.utils.rnn.pad_sequence([torch.ones(2), torch.ones(3)], "
                                 "batch_first=True)",
    "nn.Conv1d": "y = torch.nn.Conv1d(2, 3, 3)(torch.randn(1, 2, 6))",
    "nn.EmbeddingBag": "y = torch.nn.EmbeddingBag(10, 3, mode='mean')(torch.tensor([1, 2, 4, 5]), "
                       "torch.tensor([0, 2]))",
    "nn.InstanceNorm2d": "y = torch.nn.InstanceNorm2d(2)(torch.randn(1, 2, 4, 4))",
    "nn.ReflectionPad2d": "y = torch.nn.ReflectionPad2d(1)(torch.randn(1, 1, 3, 3))",
    "nn.PReLU": "y = torch.nn.PReLU()(x)",
    "torch.add": "y = torch.add(x, 1)",
    "torch.sub": "y = torch.sub(x, 1)",
    "torch.mul": "y = torch.mul(x, 2)",
    "torch.div": "y = torch.div(x, 2)",
    "torch.pow": "y = torch.pow(x, 2)",
    "torch.diag": "y = torch.diag(torch.tensor([1.0, 2.0]))",
    "torch.nonzero": "y = torch.nonzero(torch.tensor([0, 1, 2]))",
    "torch.randperm": "y = torch.randperm(5)",
    "torch.set_grad_enabled": "with torch.set_grad_enabled(False):\n    y = x * 2",
    "torch.softmax": "y = torch.softmax(x, dim=1)",
    "torch.sort": "v, i = torch.sort(x, dim=1)",
    "torch.argsort": "i = torch.argsort(x, dim=1)",
    "torch.argmax": "i = torch.argmax(x, dim=1)",
    "torch.sparse_coo_tensor": "y = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), "
                               "torch.tensor([1.0, 2.0]), (2, 2))",
    "torch.spmm": "y = torch.spmm(torch.eye(3).to_sparse(), torch.randn(3, 2))",
    "torch.where": "y = torch.where(x > 0, x, torch.zeros_like(x))",
    "torch.bitwise_and": "y = torch.bitwise_and(torch.tensor([3]), torch.tensor([1]))",
    "torch.det": "y = torch.det(torch.randn(3, 3))",
    "torch.einsum": "y = torch.einsum('ij,kj->ik', x, x)",
    "torch.is_grad_enabled": "b = torch.is_grad_enabled()",
    "torch.linalg.eig": "w, v = torch.linalg.eig(torch.randn(3, 3))",
    "torch.outer": "y = torch.outer(torch.randn(3), torch.randn(2))",
    "torch.polar": "y = torch.polar(torch.tensor([1.0]), torch.tensor([0.5]))",
    "torch.set_printoptions": "torch.set_printoptions(precision=2)",
    "torch.split": "a, b = torch.split(x, 2, dim=1)",
    "torch.cumsum": "y = torch.cumsum(x, dim=1)",
    "torch.clamp": "y = torch.clamp(x, -0.5, 0.5)",
    "torch.testing.assert_close": "torch.testing.assert_close(x, x)",
    "torch.testing.assert_allclose": "torch.testing.assert_allclose(x, x)",
    "torch.version.cuda": "v = torch.version.cuda",
    "torch.view_as_complex": "y = torch.view_as_complex(torch.randn(3, 2))",
    "torch.view_as_real": "y = torch.view_as_real(torch.view_as_complex(torch.randn(3, 2)))",
    "torch.autograd.profiler.profile": "with torch.autograd.profiler.profile() as prof:\n    y = x * 2",
    "torch.autograd.profiler.record_function": "with torch.autograd.profiler.record_function('f'):\n    y = x * 2",
    "pow": "p = pow(2, 3)",
    "torch.cuda.is_available": "b = torch.cuda.is_available()",
    "torch.cuda.device_count": "n = torch.cuda.device_count()",
    "torch.accelerator.is_available": "b = torch.accelerator.is_available()",
    "torch.accelerator.device_count": "n = torch.accelerator.device_count()",
    "torch.compile": "m = torch.compile(torch.nn.Linear(2, 2))",
    "compile": "c = compile('1', 'f', 'eval')",
    "dir": "d = dir(torch.nn.Linear(1, 1))",
    "globals": "g = globals()",
    "help": "help(len)",
    "id": "i = id(x)",
    "input": "s = input()",
    "torch.randn_like": "y = torch.randn_like(x)",
    "torch.ones_like": "y = torch.ones_like(x)",
    "torch.zeros_like": "y = torch.zeros_like(x)",
    "Tensor.grad_fn": "f = (x * 2).grad_fn",
    "Tensor.half": "y = x.half()",
    "Tensor.prod": "y = x.prod()",
    "torch.rsqrt": "y = torch.rsqrt(x.abs() + 1)",
    "torch.log1p": "y = torch.log1p(x.abs())",
    "torch.log2": "y = torch.log2(x.abs() + 1)",
}
for _exc in ("ValueError", "NotImplementedError", "OSError", "RuntimeError", "FileNotFoundError", "ImportError",
             "KeyError", "KeyboardInterrupt", "RuntimeWarning", "UserWarning"):
    USES[_exc] = _RAISE.format(_exc)


def default_use(name: str, kind: str, probe: str) -> str:
    """A use made from the kind: a method called bare, a function on x, a class called, a constant read."""
    last = probe.rsplit(".", 1)[-1]
    if kind == "tensor_attribute":
        return f"v = {probe}"
    if kind == "tensor_method":
        return f"v = {probe}()"
    if kind in ("torch", "F") and last[:1].islower():
        return f"v = {probe}(x)"
    if kind in ("nn", "torch") and last[:1].isupper():
        return f"v = {probe}()"
    return f"v = {probe}"


def read_tsv(path: Path) -> list:
    rows = []
    for line in path.read_text().splitlines():
        if not line or line.startswith("#") or line.startswith("name\t"):
            continue
        name, kind, files, probe = line.split("\t")[:4]
        rows.append({"name": name, "kind": kind, "files": int(files), "probe": probe})
    return rows


def excluded(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in EXCLUDED)


def _indent(code: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line for line in code.split("\n"))


def program(rows: list) -> str:
    """One program: each row's use in its own try/except, after fresh fixtures."""
    parts = [HEADER]
    for i, row in enumerate(rows):
        if row["kind"] in ("stdlib_module", "other_module"):
            raise ValueError("modules are probed alone")
        parts.append(f"try:\n{_indent(FIXTURES + row['use'], 4)}\n    print('@@ok {i}')\n"
                     f"except Exception as err:\n    print('@@fail {i}', err)\n")
    return "\n".join(parts)


def run(source: str) -> tuple:
    """`gradcli run` on `source`: (exit code, stdout, stderr)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(source)
        path = f.name
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    try:
        done = subprocess.run([sys.executable, "-m", "gradcli", "run", path], capture_output=True, text=True,
                              cwd=tempfile.gettempdir(), env=env, stdin=subprocess.DEVNULL, timeout=120)
        return done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired:
        return -1, "", "timed out"
    finally:
        os.unlink(path)


def _first_error_line(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return (stderr.strip().splitlines() or ["(no output)"])[-1]


def probe_batch(rows: list) -> dict:
    """name -> (ok, reason) for the rows this batch reported; the others are left out."""
    code, out, err = run(program(rows))
    results = {}
    for line in out.splitlines():
        if line.startswith("@@ok ") or line.startswith("@@fail "):
            tag, _, rest = line.partition(" ")
            index, _, reason = rest.partition(" ")
            if index.isdigit() and int(index) < len(rows):
                results[rows[int(index)]["name"]] = (tag == "@@ok", reason)
    if len(rows) == 1 and not results:
        results[rows[0]["name"]] = (False, _first_error_line(err))
    return results


def probe_module(row: dict) -> tuple:
    code, out, err = run(row["probe"] + "\n")
    return code == 0, "" if code == 0 else _first_error_line(err)


def probe_all(rows: list, jobs: int, batch: int) -> dict:
    modules = [r for r in rows if r["kind"] in ("stdlib_module", "other_module")]
    names = [r for r in rows if r not in modules]
    batches = [names[i:i + batch] for i in range(0, len(names), batch)]
    results = {}
    with ThreadPoolExecutor(jobs) as pool:
        for found in pool.map(probe_batch, batches):
            results.update(found)
        unreported = [r for r in names if r["name"] not in results]
        for found in pool.map(probe_batch, [[r] for r in unreported]):
            results.update(found)
        for row, found in zip(modules, pool.map(probe_module, modules)):
            results[row["name"]] = found
    return results


def coverage(rows: list, results: dict, top: int | None) -> tuple:
    chosen = rows if top is None else rows[:top]
    ok = sum(1 for r in chosen if results[r["name"]][0])
    return ok, len(chosen)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tsv", default=str(ROOT.parent / "shared" / "api-usage.tsv"))
    parser.add_argument("--jobs", type=int, default=2, help="gradcli processes at once")
    parser.add_argument("--batch", type=int, default=30, help="names per program")
    args = parser.parse_args(argv)
    rows = read_tsv(Path(args.tsv))
    for row in rows:
        row["use"] = USES.get(row["name"]) or default_use(row["name"], row["kind"], row["probe"])
    probed = [r for r in rows if not excluded(r["name"])]
    results = probe_all(probed, args.jobs, args.batch)
    counted = [r for r in probed if r["kind"] in COUNTED_KINDS]
    print(f"names counted: {len(counted)} (kinds {', '.join(COUNTED_KINDS)}; devices, distributed, tracing "
          f"and compilation left out)")
    for label, top in (("top 100", 100), ("top 300", 300), ("all", None)):
        ok, n = coverage(counted, results, top)
        print(f"{label:>8}: {ok}/{n} work ({100.0 * ok / n:.1f}%)")
    print("\nmissing (rank, files, name: first line of the error):")
    for rank, row in enumerate(counted, 1):
        ok, reason = results[row["name"]]
        if not ok:
            print(f"  {rank:4d} {row['files']:4d} {row['name']}: {reason[:110]}")
    mods = [r for r in probed if r["kind"] in ("stdlib_module", "other_module")]
    if mods:
        working = [r["name"] for r in mods if results[r["name"]][0]]
        print(f"\nmodules (not counted): {len(working)}/{len(mods)} import; missing: "
              + ", ".join(r["name"] for r in mods if not results[r["name"]][0]))
    left_out = [r for r in rows if excluded(r["name"]) and r["kind"] in COUNTED_KINDS]
    if left_out:
        refused = probe_all(left_out, args.jobs, args.batch)
        clear = sum(1 for r in left_out if "not supported" in refused[r["name"]][1])
        answered = sum(1 for r in left_out if refused[r["name"]][0])
        print(f"left out: {len(left_out)} names; {answered} answer as a CPU-only PyTorch does, {clear} are "
              f"refused with 'not supported', {len(left_out) - answered - clear} neither")
    return 0


if __name__ == "__main__":
    sys.exit(main())
