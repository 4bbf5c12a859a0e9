import torch
from torch.func import jacrev, jacfwd, vmap

# Batched Jacobians: vmap(jacrev) and the sum trick
weight = torch.cos(torch.arange(12, dtype=torch.float64)).reshape(3, 4)
bias = torch.sin(torch.arange(3, dtype=torch.float64))
x = torch.linspace(-1, 1, 20, dtype=torch.float64).reshape(5, 4)


def predict(weight, bias, x):
    return torch.nn.functional.linear(x, weight, bias).sin()


j1 = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, x)
print(j1.shape)
print(j1[0])
j2 = vmap(jacfwd(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, x)
print(torch.allclose(j1, j2))


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


j3 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, x).movedim(1, 0)
print(j3.shape, torch.allclose(j1, j3))
print(vmap(jacrev(torch.sin))(x).shape)
