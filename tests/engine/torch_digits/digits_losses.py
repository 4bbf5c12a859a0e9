# Loss values as `.item()` prints them: float32 means of float32 terms, in PyTorch's order.
import torch
import torch.nn as nn

torch.manual_seed(0)
pred = torch.linspace(-2, 3, 50).sin() * 2
target = torch.linspace(-1, 1, 50) ** 3
print(nn.L1Loss()(pred, target).item())
print(nn.SmoothL1Loss()(pred, target).item())
print(nn.HuberLoss(delta=0.5)(pred, target).item())
print(nn.MSELoss()(pred, target).item())
print(nn.L1Loss(reduction='sum')(pred, target).item())
p = torch.tensor([0.1, 0.5, 0.9, 0.3])
q = torch.tensor([0.2, 0.4, 0.7, 1.1])
print(nn.L1Loss()(p, q).item())
print(nn.SmoothL1Loss()(p, q).item())
print(nn.HuberLoss()(p, q).item())
big = torch.linspace(-5, 5, 100000)
print(nn.L1Loss()(big, big * 0.5).item())
print(nn.MSELoss()(big, big * 0.5).item())
print(big.sum().item(), big.mean().item(), big.cumsum(0)[-1].item())
