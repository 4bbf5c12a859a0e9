import torch
from torch.func import hessian, jacfwd, jacrev, vmap, grad

# Hessians: hessian, jacfwd(jacrev), jacrev(jacrev), batched
x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)


def f(x):
    return (x.sin() * x.exp()).sum() + (x[0] * x[1] * x[2])


h = hessian(f)(x)
print(h)
print(torch.allclose(h, jacfwd(jacrev(f))(x)), torch.allclose(h, jacrev(jacrev(f))(x)),
      torch.allclose(h, jacfwd(jacfwd(f))(x)))
xs = torch.linspace(-1, 1, 6, dtype=torch.float64).reshape(2, 3)
hb = vmap(hessian(f))(xs)
print(hb.shape)
print(hb[1])
print(torch.autograd.functional.hessian(f, x))
g = grad(grad(lambda t: t.sin() * t ** 3))(torch.tensor(0.7, dtype=torch.float64))
print(g)
