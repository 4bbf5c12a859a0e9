# The 60 Minute Blitz's LeNet-style CNN (Conv2d, MaxPool2d, Linear): one forward, backward
# and SGD step from fixed weights (float64 via model.double()).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = Net().double()
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        n = p.numel()
        p.copy_(torch.sin(torch.arange(n, dtype=torch.float64) * 0.37 + i).reshape(p.shape) * 0.1)
print(net)
x = torch.cos(torch.arange(32 * 32, dtype=torch.float64) * 0.1).reshape(1, 1, 32, 32)
target = torch.tensor([3])
opt = torch.optim.SGD(net.parameters(), lr=0.01)
opt.zero_grad()
out = net(x)
loss = F.cross_entropy(out, target)
loss.backward()
print(f"loss {loss.item():.10f}")
print(f"conv1.weight.grad sum {net.conv1.weight.grad.sum().item():.10f}")
opt.step()
print(f"loss after one step {F.cross_entropy(net(x), target).item():.10f}")
