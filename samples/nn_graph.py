import torch
import torch.nn as nn

torch.manual_seed(0)  # the layers' initial weights are random: the same ones every run

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))

model = Net()
x = torch.ones(2, 3)
loss = model(x).pow(2).mean()
