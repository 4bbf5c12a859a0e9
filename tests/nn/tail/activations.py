# The activation layers and functions added with issue 27: reprs, values, node names, gradients.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
x = torch.linspace(-4.5, 4.5, 12).reshape(3, 4)
x.requires_grad_(True)
for m in [nn.ReLU6(), nn.Hardtanh(), nn.Hardtanh(-2, 2), nn.SELU(), nn.CELU(), nn.CELU(0.5), nn.Mish(),
          nn.Hardswish(), nn.Hardsigmoid(), nn.GLU(), nn.GLU(0), nn.Threshold(0.1, 20.0), nn.Softmin(dim=1),
          nn.Softsign(), nn.LogSigmoid(), nn.Tanhshrink()]:
    y = m(x if 'GLU(dim=0)' not in str(m) else x[:2])
    print(m, y.grad_fn.name())
    print(y)
    (y * y).sum().backward()
    print(x.grad)
    x.grad = None
a, b = x.detach()[0:2], x.detach()[1:3].cos()
print(nn.CosineSimilarity(), nn.PairwiseDistance(), nn.ReLU6(inplace=True), nn.SELU(inplace=True))
print(nn.CosineSimilarity(dim=0)(a, b), F.cosine_similarity(a, b))
print(nn.PairwiseDistance(p=1.5, keepdim=True)(a, b))
print(F.cosine_similarity(x, x * 2 + 1).grad_fn.name())
