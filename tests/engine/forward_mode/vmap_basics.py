import torch
from torch.func import vmap
x = torch.arange(6.).reshape(2, 3)
for bad in [lambda: vmap(torch.sin)(torch.ones(2), torch.ones(3)), lambda: vmap(lambda a, b: a + b)(torch.ones(2), torch.ones(3)),
            lambda: vmap(torch.sin, in_dims=1)(torch.ones(2)), lambda: vmap(torch.sin, in_dims=None)(torch.ones(2)),
            lambda: vmap(lambda a: a.item())(torch.ones(2)), lambda: vmap(lambda a: a if a > 0 else -a)(torch.ones(2)),
            lambda: vmap(lambda a: torch.zeros(3).add_(a))(torch.ones(2, 3)), lambda: vmap(lambda a: 3)(torch.ones(2)),
            lambda: vmap(lambda a: a + torch.rand(1))(torch.ones(2)), lambda: vmap(torch.sin, randomness="x")(torch.ones(2)),
            lambda: vmap(torch.sin, in_dims=(0, 0))(torch.ones(2)), lambda: vmap(torch.sin, in_dims="a")(torch.ones(2)),
            lambda: vmap(lambda a, n: a * n, in_dims=(0, 0))(torch.ones(2), 3)]:
    try:
        print(bad())
    except ValueError as e:
        print("ValueError", e)
    except RuntimeError as e:
        print("RuntimeError", e)
from torch.func import grad, jacrev, jacfwd
print(vmap(torch.sin)(x))
print(vmap(torch.dot)(x, x))
print(vmap(lambda a, b: a * b, in_dims=(1, None))(x, torch.tensor(2.)))
print(vmap(lambda a: a.sum(), in_dims=1)(x))
print(vmap(lambda a: (a * 2, a.sum()), out_dims=(1, 0))(x))
print(vmap(vmap(lambda a: a * a))(x))
print(vmap(lambda a: torch.outer(a, a), in_dims=0, out_dims=2)(x).shape)
print(vmap(grad(lambda a: (a ** 3).sum()))(x))
print(vmap(jacrev(torch.sin))(x))
print(vmap(jacfwd(torch.sin))(x))
torch.manual_seed(0)
print(vmap(lambda a: a + torch.rand(1), randomness="same")(torch.zeros(3)).shape)
r = vmap(lambda a: a + torch.rand(2), randomness="same")(torch.zeros(3))
print(bool((r[0] == r[1]).all()), bool((r[1] == r[2]).all()))
r = vmap(lambda a: a + torch.rand(2), randomness="different")(torch.zeros(3))
print(bool((r[0] == r[1]).all()))
