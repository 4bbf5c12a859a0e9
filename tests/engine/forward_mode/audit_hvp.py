import torch
from torch.func import jvp, grad, vjp

# Hessian-vector products: forward over reverse, reverse over reverse, functional hvp/vhp
x = torch.tensor([1.0, 2.0, -0.5])
v = torch.tensor([0.3, -1.0, 2.0])


def f(x):
    return (x ** 3).sum() + x.prod() + torch.logsumexp(x, 0)


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


def hvp_revrev(f, primals, tangents):
    _, vjp_fn = vjp(grad(f), *primals)
    return vjp_fn(*tangents)


print(hvp(f, (x,), (v,)))
print(hvp_revrev(f, (x,), (v,)))
print(torch.autograd.functional.hvp(f, x, v))
print(torch.autograd.functional.vhp(f, x, v))
print(torch.allclose(torch.autograd.functional.hvp(f, x, v)[1], hvp(f, (x,), (v,))))
