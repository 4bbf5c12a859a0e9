import torch
from torch.func import vmap

# vmap's in_dims and out_dims: nested tuples, None, negative dims, dicts
x = torch.arange(24.).reshape(2, 3, 4)
y = torch.arange(4.)
print(vmap(torch.mv, in_dims=(0, None))(x, y))
print(vmap(lambda a, b: a @ b, in_dims=(1, None))(x, torch.ones(4)))
print(vmap(lambda a: a.sum(-1), in_dims=-1)(x))
print(vmap(lambda t: t[0] * t[1], in_dims=((0, 1),))((torch.ones(2, 3), torch.arange(6.).reshape(3, 2))))
print(vmap(lambda d: d["a"] + d["b"], in_dims=({"a": 0, "b": None},))({"a": torch.ones(2, 3), "b": torch.arange(3.)}))
print(len(vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(x)))
r = vmap(lambda a: (a * 2, a.sum()), in_dims=2, out_dims=(-1, 0))(x)
print(r[0].shape, r[1])
print(vmap(vmap(lambda a, b: a * b, in_dims=(0, None)), in_dims=(None, 0))(torch.arange(3.), torch.arange(2.)))
print(vmap(lambda a: a, in_dims=0, out_dims=2)(x).shape)
print(vmap(lambda a, n: a * n, in_dims=(0, None))(x, 3))
