# torch.autograd.functional.vjp: the examples of its docstring, with fixed inputs
import torch
from torch.autograd.functional import vjp


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8],
                       [0.9, 1.0, 1.1, 1.2], [-0.1, -0.2, -0.3, -0.4]])
v = torch.ones(4)
print(vjp(exp_reducer, inputs, v))
print(vjp(exp_reducer, inputs, v, create_graph=True))


def adder(x, y):
    return 2 * x + 3 * y


inputs = (torch.tensor([0.25, 0.5]), torch.tensor([0.75, 1.0]))
v = torch.ones(2)
print(vjp(adder, inputs, v))
# v may be left out for a function with one element
print(vjp(lambda x: (x ** 2).sum(), torch.tensor([1.0, 2.0])))
# an input the output does not use gets zeros
print(vjp(lambda x, y: x * 2, (torch.tensor([1.0, 2.0]), torch.tensor([3.0])), torch.ones(2)))
