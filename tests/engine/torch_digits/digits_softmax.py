# softmax along the last dim as PyTorch's kernel computes it: SLEEF's exp of x - max (its
# polynomial and fused multiply-adds, not a correctly rounded exp), the exps added in the
# kernel's lane order, times the reciprocal of the sum.
import torch
import torch.nn as nn
import torch.nn.functional as F

def data(*shape, k=0):
    n = 1
    for s in shape:
        n *= s
    return (((torch.arange(n, dtype=torch.float32) * (43 + k)) % 89) / 89 * 12 - 6).reshape(shape)

for n in (2, 5, 16, 17, 40, 300):
    x = data(3, n, k=n % 7)
    print(n, F.softmax(x, dim=-1)[:, ::max(1, n // 4)].tolist())
scores = data(2, 4, 4, k=2)
mask = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
print(torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)[1].tolist())
print(nn.Softmax(dim=1)(data(4, 9, k=5)).sum(dim=1).tolist())
print(F.softmax(data(5, 7) * 20, dim=1).tolist()[2])
