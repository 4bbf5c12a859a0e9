# A Module subclass with Linear, ReLU and nn.CrossEntropyLoss, trained with Adam on a
# fixed data set. float64 in both gradcli and PyTorch (model.double(), dtype=torch.float64).
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(2, 3)
        self.act = nn.ReLU()
        self.out = nn.Linear(3, 2)

    def forward(self, x):
        return self.out(self.act(self.hidden(x)))


model = Classifier().double()
with torch.no_grad():
    model.hidden.weight.copy_(torch.tensor([[0.5, -0.3], [0.2, 0.8], [-0.6, 0.4]], dtype=torch.float64))
    model.out.weight.copy_(torch.tensor([[0.3, -0.7, 0.2], [-0.4, 0.6, 0.1]], dtype=torch.float64))
nn.init.constant_(model.hidden.bias, 0.1)
nn.init.constant_(model.out.bias, -0.05)

x = torch.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, -0.5], [-1.0, 0.3]],
                 dtype=torch.float64)
y = torch.tensor([0, 1, 1, 0, 1, 0])
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=0.05)


def closure():
    """What opt.step(closure) runs first (PyTorch's form for optimizers that re-evaluate)."""
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    return loss


for step in range(8):
    loss = opt.step(closure)   # the loss before the step, as closure() returned it
    print(f"step {step}: loss {loss.item():.12f}")
print([round(v, 12) for v in model.out.bias.detach().tolist()])  # 1e-16 apart after 8 steps
print(len(opt.state), sorted(opt.state[model.out.bias].keys()))
