import torch
import torch.nn as nn
from torch.func import stack_module_state, functional_call, vmap


# Model ensembling: stack_module_state, a base model on the meta device, vmap over the models


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 5)
        self.fc2 = nn.Linear(5, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(0)
models = [MLP() for _ in range(4)]
with torch.no_grad():
    for k, m in enumerate(models):
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) + k + i).reshape(p.shape))
params, buffers = stack_module_state(models)
print(sorted(params), [p.shape for p in params.values()], buffers)
print(params["fc1.weight"].requires_grad, params["fc1.weight"].is_leaf)
base = MLP()


def fmodel(params, buffers, x):
    return functional_call(base, (params, buffers), (x,))


minibatch = torch.linspace(-1, 1, 12).reshape(4, 3)
same = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
print(same.shape)
print(same)
print(torch.allclose(same, torch.stack([m(minibatch) for m in models]), atol=1e-6))
minibatches = torch.linspace(-1, 1, 48).reshape(4, 4, 3)
diff = vmap(fmodel)(params, buffers, minibatches)
print(diff.shape, diff.grad_fn is not None)
print(torch.allclose(diff, torch.stack([m(b) for m, b in zip(models, minibatches)]), atol=1e-6))
diff.sum().backward()
print(params["fc2.bias"].grad)
