# gelu on a contiguous float32 tensor as PyTorch computes it: through oneDNN, whose erf is a
# piecewise minimax polynomial in |x| (fused multiply-adds), then x * (1 + erf) / 2.
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.linspace(-7, 7, 2801)
y = F.gelu(x)
print(y[::100].tolist())
print(y[1300:1500:7].tolist())
print(nn.GELU()(torch.linspace(-0.01, 0.01, 41)).tolist()[::4])
print(F.gelu(torch.tensor([[1e-30, -1e-30, 5.54, -5.55, 1e4]])).tolist())
