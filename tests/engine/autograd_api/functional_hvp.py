# torch.autograd.functional.hvp: the examples of its docstring, with fixed inputs
import torch
from torch.autograd.functional import hvp


def pow_reducer(x):
    return x.pow(3).sum()


inputs = torch.tensor([[0.1, 0.2], [0.3, 0.4]])
v = torch.ones(2, 2)
print(hvp(pow_reducer, inputs, v))
print(hvp(pow_reducer, inputs, v, create_graph=True))


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


inputs = (torch.tensor([0.5, 0.6]), torch.tensor([0.7, 0.8]))
v = (torch.zeros(2), torch.ones(2))
print(hvp(pow_adder_reducer, inputs, v))
# a Hessian that is not symmetric in how it is reached: hvp and vhp agree
print(hvp(lambda x: (x[0] * x[1] ** 2).sum(), torch.tensor([1.0, 2.0]), torch.tensor([1.0, -1.0])))
