# torch.autograd.functional.jacobian: the examples of its docstring, with fixed inputs
import torch
from torch.autograd.functional import jacobian


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.tensor([[0.1, 0.2], [0.3, 0.4]])
print(jacobian(exp_reducer, inputs))
print(jacobian(exp_reducer, inputs, create_graph=True).requires_grad)


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


inputs = (torch.tensor([0.5, 0.6]), torch.tensor([0.7, 0.8]))
print(jacobian(exp_adder, inputs))


def linear_model(x):
    W = torch.tensor([[2.0, -1.0], [0.0, 1.0]])
    b = torch.tensor([1.0, 0.5])
    return x @ W.T + b


x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], requires_grad=True)
jac = jacobian(linear_model, x, vectorize=True)
print(jac.shape)
print(jacobian(linear_model, x, strategy="reverse-mode")[0, 0])
