# A two-layer regression as an nn.Sequential, trained with SGD.
# Weights from nn.init.constant_ and fixed tensors, so PyTorch prints the same losses;
# model.double() and dtype=torch.float64 make it float64 in both.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
model.double()
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.5, -0.3], [0.1, 0.2], [-0.4, 0.6]], dtype=torch.float64))
nn.init.constant_(model[0].bias, 0.1)
nn.init.constant_(model[2].weight, 0.3)
nn.init.zeros_(model[2].bias)

x = torch.tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0]], dtype=torch.float64)
y = torch.tensor([[1.0], [0.5], [1.5], [2.0]], dtype=torch.float64)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
print(model)
for step in range(5):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.10f}")
print([name for name, p in model.named_parameters()])
print(f"{model[2].bias.item():.10f}")
