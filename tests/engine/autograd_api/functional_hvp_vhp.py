# torch.autograd.functional.hvp and vhp: the examples of their docstrings, with fixed inputs
import torch
from torch.autograd.functional import hvp, vhp


def pow_reducer(x):
    return x.pow(3).sum()


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


for product in (hvp, vhp):
    inputs = torch.tensor([[0.1, 0.2], [0.3, 0.4]])
    v = torch.ones(2, 2)
    print(product(pow_reducer, inputs, v))
    print(product(pow_reducer, inputs, v, create_graph=True))
    inputs = (torch.tensor([0.5, 0.6]), torch.tensor([0.7, 0.8]))
    v = (torch.zeros(2), torch.ones(2))
    print(product(pow_adder_reducer, inputs, v))
    # a Hessian that is not symmetric in how it is reached: hvp and vhp agree
    print(product(lambda x: (x[0] * x[1] ** 2).sum(), torch.tensor([1.0, 2.0]), torch.tensor([1.0, -1.0])))
