import torch
import torch.autograd.forward_ad as fwAD

# An in-place op on a view of a dual tensor: the base's tangent follows, and its other views'
with fwAD.dual_level():
    x = fwAD.make_dual(torch.tensor([1., 2., 3.]), torch.tensor([1., 1., 1.]))
    y = x * 1.0
    v = y[0:2]
    w = y[1:]
    v.mul_(x[0:2])
    print(fwAD.unpack_dual(y).tangent)
    print(fwAD.unpack_dual(w).tangent)
    print(fwAD.unpack_dual(v).tangent)
    z = torch.zeros(2, 3)
    z[1] = x.sin()
    print(fwAD.unpack_dual(z).tangent)
    row = z[0]
    row.add_(x * x)
    print(fwAD.unpack_dual(z).tangent)
