# torch.autograd.functional.vhp: the examples of its docstring, with fixed inputs
import torch
from torch.autograd.functional import vhp


def pow_reducer(x):
    return x.pow(3).sum()


inputs = torch.tensor([[0.1, 0.2], [0.3, 0.4]])
v = torch.ones(2, 2)
print(vhp(pow_reducer, inputs, v))
print(vhp(pow_reducer, inputs, v, create_graph=True))


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


inputs = (torch.tensor([0.5, 0.6]), torch.tensor([0.7, 0.8]))
v = (torch.zeros(2), torch.ones(2))
print(vhp(pow_adder_reducer, inputs, v))
