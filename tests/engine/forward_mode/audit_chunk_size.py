import torch
from torch.func import vmap, jacrev, jacfwd

# chunk_size: the same answers in chunks
x = torch.linspace(-2, 2, 30).reshape(10, 3)
f = lambda a: (a.sin() * a).sum()
print(vmap(f, chunk_size=3)(x))
print(torch.equal(vmap(f, chunk_size=3)(x), vmap(f)(x)))
print(vmap(torch.outer, chunk_size=4)(x, x).shape)
print(torch.allclose(jacrev(torch.sin, chunk_size=2)(x[0]), jacrev(torch.sin)(x[0])))
print(jacrev(lambda a: a.cumsum(0), chunk_size=1)(x[1]))
print(vmap(f, chunk_size=1)(x[:2]))
try:
    vmap(f, chunk_size=0)(x)
except ValueError as e:
    print("ValueError", e)
