import torch
import torch.autograd.forward_ad as fwAD
x = torch.tensor([1., 2., 3.])
v = torch.tensor([1., 0., 1.])
with fwAD.dual_level():
    d = fwAD.make_dual(x, v)
    e = d.clone()
    e.mul_(2)
    print(e)
    e.sin_()
    print(e)
    f = d * 1.0
    f += d
    print(f)
    g = torch.zeros(3)
    print(fwAD.unpack_dual(g))
    print(d[1], d.view(3, 1).squeeze(), d.sum(), d.mean())
    print(torch.stack([d, d * 2]), torch.cat([d, d]))
    print(torch.where(d > 1.5, d, d * d))
    print(d @ d, torch.outer(d, d))
    print(torch.softmax(d, 0), torch.log_softmax(d, 0))
    print(torch.nn.functional.relu(d - 2), d.max(), d.norm())
