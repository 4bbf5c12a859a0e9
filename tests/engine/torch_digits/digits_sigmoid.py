# sigmoid and silu in float32 as PyTorch's kernels compute them: 1 / (1 + exp(-x)) and
# x / (1 + exp(-x)), the exp SLEEF's where the vector loop writes (two 16-float vectors a
# step) and glibc's expf (correctly rounded for these values) in the scalar tail.
import torch
import torch.nn as nn
import torch.nn.functional as F

for n in (5, 31, 32, 50, 300):
    x = ((torch.arange(n, dtype=torch.float32) * 29) % 83) / 83 * 16 - 8
    print(n, torch.sigmoid(x)[::max(1, n // 6)].tolist(), F.silu(x)[-7:].tolist())
x = ((torch.arange(600, dtype=torch.float32) * 31) % 97).reshape(20, 30) / 97 * 12 - 6
print(nn.Sigmoid()(x)[3, ::4].tolist(), nn.SiLU()(x.t())[5, ::4].tolist())
print(torch.sigmoid(x).sum().item(), F.silu(x).mean().item())
big = torch.tensor([-1e30, -1e20, -100.0, -88.7, -87.0, 1e30, 0.0] * 6)   # where the vectors' exp saturates
print(torch.sigmoid(big)[:7].tolist(), F.silu(big)[:7].tolist())
