import torch
import torch.autograd.forward_ad as fwAD
from torch.func import jvp, jacfwd, jacrev, hessian, linearize
x = torch.tensor([1., 2., 3.])
v = torch.tensor([1., 0., 1.])
with fwAD.dual_level():
    d = fwAD.make_dual(x, v)
    print(d)
    y = d.sin() * d
    u = fwAD.unpack_dual(y)
    print(u)
    print(u.primal, u.tangent)
    p, t = fwAD.unpack_dual(d.exp().sum())
    print(p, t)
print(jvp(torch.sin, (x,), (v,)))
print(jacfwd(torch.sin)(x))
print(hessian(lambda x: (x ** 3).sum())(x))
out, jvp_fn = linearize(torch.sin, x)
print(out, jvp_fn(v))
print(torch.autograd.functional.jvp(torch.sin, x, v))
print(torch.autograd.functional.hvp(lambda x: (x ** 3).sum(), x, v))
