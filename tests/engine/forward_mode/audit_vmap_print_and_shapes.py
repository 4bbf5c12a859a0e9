import torch
from torch.func import vmap

# What a function sees inside vmap: shape, dim, size, dtype; factory ops with batched shapes
x = torch.arange(12.).reshape(3, 4)


def f(a):
    print(a.shape, a.dim(), a.size(0), a.dtype, a.numel())
    b = torch.zeros_like(a)
    c = a.new_ones(2)
    print(b.shape, c.shape)
    return a.reshape(2, 2).sum(1) + c


print(vmap(f)(x))
print(vmap(lambda a: torch.cat([a, a]), in_dims=1)(x).shape)
print(vmap(lambda a: a.unsqueeze(0).expand(2, 3))(x.t()).shape)
print(vmap(lambda a: torch.stack([a, a * 2], dim=1))(x).shape)
print(vmap(lambda a: a.T)(x.reshape(3, 2, 2)))
print(vmap(lambda a: a.argmax())(x))
print(vmap(lambda a: a.max(0))(x.reshape(3, 2, 2)))
