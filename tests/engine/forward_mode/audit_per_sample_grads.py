import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, vmap, grad

# Per-sample gradients of a small CNN-free MLP with fixed weights (the tutorial's recipe)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}
data = torch.linspace(-1, 1, 20).reshape(5, 4)
targets = torch.tensor([0, 2, 1, 0, 2])


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return F.cross_entropy(predictions, target.unsqueeze(0))


ft_compute_grad = grad(compute_loss)
ft_per_sample = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
grads = ft_per_sample(params, buffers, data, targets)
for name, g in grads.items():
    print(name, g.shape)
    print(g.sum(0))
# the same by a loop of .backward()
for name, p in model.named_parameters():
    total = torch.zeros_like(p)
    for i in range(5):
        model.zero_grad()
        F.cross_entropy(model(data[i:i + 1]), targets[i:i + 1]).backward()
        total += dict(model.named_parameters())[name].grad
    print(name, torch.allclose(total, grads[name].sum(0), atol=1e-6))
