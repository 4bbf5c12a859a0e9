# LayerNorm as PyTorch's CPU kernel computes it: the mean and variance by Welford's update
# over 8-float vectors in chunks of 16, the chunks merged as a cascade and the lanes last
# (RowwiseMoments), then (x - mean) * rstd, with the affine fused (fma).
import torch
import torch.nn as nn
import torch.nn.functional as F

for n in (5, 8, 37, 100, 300, 1000, 2053):
    x = ((torch.arange(3 * n, dtype=torch.float32).reshape(3, n) * 37) % 101) / 101 * 8 - 3
    x[1] = x[1] * 1e3 + 7
    w = torch.linspace(0.5, 1.5, n)
    b = torch.linspace(-0.2, 0.3, n)
    step = max(1, n // 3)
    print(n, F.layer_norm(x, (n,))[:, ::step].tolist())
    print(n, F.layer_norm(x, (n,), w, b)[:, ::step].tolist())
    print(n, F.layer_norm(x, (n,), None, b, eps=1e-3)[:, ::step].tolist())
    print(n, F.layer_norm(x, (n,), w)[2, -2:].tolist())
ln = nn.LayerNorm((4, 25))
x = ((torch.arange(200, dtype=torch.float32).reshape(2, 4, 25) * 13) % 29) / 7
print(ln(x)[:, :, ::8].tolist())
