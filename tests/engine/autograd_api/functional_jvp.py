# torch.autograd.functional.jvp: the examples of its docstring, with fixed inputs
import torch
from torch.autograd.functional import jvp


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8],
                       [0.9, 1.0, 1.1, 1.2], [-0.1, -0.2, -0.3, -0.4]])
v = torch.ones(4, 4)
print(jvp(exp_reducer, inputs, v))
out, product = jvp(exp_reducer, inputs, v, create_graph=True)
print(out)
print(product.requires_grad)


def adder(x, y):
    return 2 * x + 3 * y


inputs = (torch.tensor([0.25, 0.5]), torch.tensor([0.75, 1.0]))
v = (torch.ones(2), torch.ones(2))
print(jvp(adder, inputs, v))
print(jvp(lambda x: (x.sin(), x.cos()), torch.tensor(0.5)))
