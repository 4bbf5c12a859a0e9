import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, vmap, grad, stack_module_state

# Per-sample gradients (the torch.func tutorial), on a small MLP with fixed weights
torch.manual_seed(0)

class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return self.fc2(x)

model = SimpleMLP()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-1.0, 1.0, p.numel()).reshape(p.shape) * (0.5 + 0.1 * i))

data = torch.linspace(-2.0, 2.0, 24).reshape(6, 4)
targets = torch.tensor([0, 1, 2, 0, 1, 2])

params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}

def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return F.cross_entropy(predictions, targets)

ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
for name in ft_per_sample_grads:
    print(name, ft_per_sample_grads[name].shape)
print(ft_per_sample_grads["fc2.bias"][:5])

# the same by a loop of backward passes
def compute_grad(sample, target):
    loss = F.cross_entropy(model(sample.unsqueeze(0)), target.unsqueeze(0))
    return torch.autograd.grad(loss, list(model.parameters()))

loop = [compute_grad(data[i], targets[i]) for i in range(6)]
stacked = [torch.stack(shards) for shards in zip(*loop)]
for g1, g2 in zip(stacked, ft_per_sample_grads.values()):
    print(torch.allclose(g1, g2, atol=1e-6))

# Model ensembling: stacked parameters, one vmap over the models
models = [SimpleMLP() for _ in range(3)]
with torch.no_grad():
    for k, m in enumerate(models):
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.linspace(-1.0, 1.0, p.numel()).reshape(p.shape) * (0.3 + 0.2 * k - 0.05 * i))
ens_params, ens_buffers = stack_module_state(models)
print({k: v.shape for k, v in ens_params.items()})

def fmodel(params, buffers, x):
    return functional_call(models[0], (params, buffers), (x,))

minibatch = data[:4]
predictions_same = vmap(fmodel, in_dims=(0, 0, None))(ens_params, ens_buffers, minibatch)
print(predictions_same.detach())
loop_predictions = torch.stack([m(minibatch) for m in models])
print(torch.allclose(predictions_same, loop_predictions, atol=1e-6))
minibatches = data[:3].reshape(3, 1, 4)
print(vmap(fmodel)(ens_params, ens_buffers, minibatches).detach())
