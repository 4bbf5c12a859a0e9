# d2l.ai chapter 6 "Builders' Guide" (PyTorch): 6.2 parameter access and tied parameters,
# 6.3 initialization with net.apply and type(module) == nn.Linear, 6.4 lazy layers, 6.5
# custom layers (CenteredLayer, MyLinear with nn.Parameter); an nn.Sequential from a
# collections.OrderedDict. Changed: torch.rand/torch.randn and the random initializers
# replaced by constants and formulas (the same code paths), float64.
from collections import OrderedDict

import torch
from torch import nn
from torch.nn import functional as F

torch.set_default_dtype(torch.float64)

X = torch.sin(torch.arange(8.0)).reshape(2, 4)

# 6.2 / 6.4: parameter access on lazy layers
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
print(net[0].weight)
net(X)
print(net(X).shape)
print([(name, param.shape) for name, param in net.named_parameters()])


# 6.3: built-in initialization through net.apply
def init_constant(module):
    if type(module) == nn.Linear:
        nn.init.constant_(module.weight, 1)
        nn.init.zeros_(module.bias)


def init_formula(module):
    if type(module) == nn.Linear:
        with torch.no_grad():
            n = module.weight.numel()
            module.weight.copy_(torch.cos(torch.arange(n) * 0.9).reshape(module.weight.shape) * 0.5)
            module.bias.fill_(0.1)


net.apply(init_constant)
print(net[0].weight.data[0], net[0].bias.data[0])
net.apply(init_formula)
print(list(net[2].state_dict().items()))
print(type(net[2].bias) == nn.Parameter, net[2].bias.data)
print(net[2].weight.grad == None)
print(net(X))


def my_init(m):
    if type(m) == nn.Linear:
        print("Init", *[(name, param.shape)
                        for name, param in m.named_parameters()][0])
        with torch.no_grad():
            m.weight.copy_(torch.linspace(-10, 10, m.weight.numel()).reshape(m.weight.shape))
        m.weight.data *= m.weight.data.abs() >= 5


net.apply(my_init)
print(net[0].weight[:2])
net[0].weight.data[:] += 1
net[0].weight.data[0, 0] = 42
print(net[0].weight.data[0])

# 6.2.3: tied parameters
shared = nn.LazyLinear(8)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(),
                    shared, nn.ReLU(),
                    shared, nn.ReLU(),
                    nn.LazyLinear(1))
net(X)
net.apply(init_formula)
# Check whether the parameters are the same
print(net[2].weight.data[0] == net[4].weight.data[0])
net[2].weight.data[0, 0] = 100
# Make sure that they are actually the same object rather than just having the
# same value
print(net[2].weight.data[0] == net[4].weight.data[0])
print(len(list(net.parameters())), net(X))


# 6.5: custom layers
class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, X):
        return X - X.mean()


layer = CenteredLayer()
print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
net = nn.Sequential(nn.LazyLinear(128), CenteredLayer())
Y = net(X)
print(abs(Y.mean().item()) < 1e-12)


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.cos(torch.arange(in_units * units * 1.0)).reshape(in_units, units))
        self.bias = nn.Parameter(torch.full((units,), 0.25))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


linear = MyLinear(5, 3)
print(linear.weight)
print(linear(torch.sin(torch.arange(10.0)).reshape(2, 5)))
net = nn.Sequential(OrderedDict([('first', MyLinear(64, 8)), ('second', MyLinear(8, 1))]))
print(net)
print(net(torch.cos(torch.arange(128.0)).reshape(2, 64)))
print(list(net.state_dict().keys()))
