# A Module subclass with Linear and ReLU, trained with cross entropy on a fixed data set.
# float64 in both gradcli and PyTorch (model.double(), dtype=torch.float64).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Linear(2, hidden)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(hidden, 3)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


model = Net(4).double()
with torch.no_grad():
    model.fc1.weight.copy_(torch.tensor([[0.2, -0.1], [0.4, 0.3], [-0.5, 0.1], [0.1, 0.6]],
                                        dtype=torch.float64))
    model.fc2.weight.copy_(torch.tensor([[0.3, -0.2, 0.1, 0.4], [-0.1, 0.5, 0.2, -0.3],
                                         [0.2, 0.1, -0.4, 0.2]], dtype=torch.float64))
nn.init.constant_(model.fc1.bias, 0.05)
nn.init.zeros_(model.fc2.bias)

x = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5], [0.5, -1.0]], dtype=torch.float64)
target = torch.tensor([0, 1, 2, 1, 0])
opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
print(model)
for epoch in range(6):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), target)
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: loss {loss.item():.10f}")
print(model(x).argmax(dim=1).tolist())
model.eval()
print(model.training, model.fc1.training)
