import torch
import torch.nn as nn
from torch.func import functional_call, hessian, jacrev, vmap

# The Hessian of a small model's loss with respect to one parameter, and per-sample Jacobians
model = nn.Sequential(nn.Linear(2, 3), nn.Sigmoid(), nn.Linear(3, 1))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) / (i + 1))
params = dict(model.named_parameters())
x = torch.tensor([[0.5, -1.0], [1.5, 0.25]])
y = torch.tensor([[1.0], [0.0]])


def loss(b):
    p = dict(params)
    p["2.bias"] = b
    return ((functional_call(model, p, (x,)) - y) ** 2).mean()


print(hessian(loss)(params["2.bias"]))
w = params["0.weight"]


def loss_w(w):
    p = dict(params)
    p["0.weight"] = w
    return ((functional_call(model, p, (x,)) - y) ** 2).mean()


h = hessian(loss_w)(w)
print(h.shape)
print(h[0, 0])
j = vmap(jacrev(lambda xi: model(xi)))(x)
print(j)
