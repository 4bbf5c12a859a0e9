# torch.autograd.functional.hessian: the examples of its docstring, with fixed inputs
import torch
from torch.autograd.functional import hessian


def pow_reducer(x):
    return x.pow(3).sum()


inputs = torch.tensor([[0.1, 0.2], [0.3, 0.4]])
print(hessian(pow_reducer, inputs))
print(hessian(pow_reducer, inputs, create_graph=True).requires_grad)


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


inputs = (torch.tensor([0.5, 0.6]), torch.tensor([0.7, 0.8]))
print(hessian(pow_adder_reducer, inputs))
print(hessian(pow_reducer, inputs[0], vectorize=True))
