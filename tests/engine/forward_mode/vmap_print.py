import torch
from torch.func import vmap

# A batched tensor printed inside vmap: PyTorch's BatchedTensor, one per level


def show(a):
    print(a)
    print(a.shape, a.dim())
    return a * 2


def plus_one(a):
    print(a)
    return a + 1


def scaled(a, b):
    print(b)
    return a * b


x = torch.arange(6.0).reshape(2, 3)
print(vmap(show)(x))
print(vmap(vmap(plus_one))(x))
print(vmap(scaled, in_dims=(0, None))(x, torch.ones(3)))
