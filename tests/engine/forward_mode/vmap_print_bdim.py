import torch
from torch.func import vmap

# The batch dim a printed BatchedTensor shows: in_dims for an argument, kept by unary pointwise
# ops, comparisons with a number and in-place ops, moved to 0 by the rest (PyTorch's rules)

x = torch.arange(6.).reshape(2, 3)
z = torch.arange(24.).reshape(2, 3, 4)
def show(a):
    print(a)
    return a
def chain(a):
    b = a.sin()
    print(b)
    c = b * 2
    print(c)
    d = a + a
    print(d)
    e = a.sum(0)
    print(e)
    f = a.t() if a.dim() == 2 else a
    print(f)
    g = a * torch.ones(a.shape)
    print(g)
    h = a.exp().neg()
    print(h)
    return a
vmap(show, in_dims=1)(x)
vmap(show, in_dims=-1)(z)
vmap(show, in_dims=2)(z)
vmap(show, in_dims=1)(z)
vmap(chain, in_dims=1)(z)
vmap(vmap(show, in_dims=1), in_dims=1)(z)
vmap(vmap(show, in_dims=0), in_dims=2)(z)
vmap(vmap(show, in_dims=1), in_dims=0)(z)
vmap(lambda a, b: show(a) * show(b), in_dims=(1, 0))(x, torch.ones(3, 2))
vmap(lambda a: show(a.unsqueeze(0)), in_dims=1)(x)
vmap(lambda a: show(a.reshape(-1)), in_dims=1)(z)
vmap(lambda a: show(a.relu()), in_dims=1)(z)
vmap(lambda a: show(a @ torch.ones(4)), in_dims=1)(z)
vmap(lambda a: show(a[0]), in_dims=1)(z)
vmap(lambda a: show(a.mean(-1)), in_dims=1)(z)
vmap(lambda a: show(torch.stack([a, a])), in_dims=1)(x)
import torch.nn.functional as F
x = torch.arange(6.).reshape(2, 3)
def b(f):
    out = []
    def g(a):
        out.append(repr(f(a)).split("\n")[0])
        return a
    vmap(g, in_dims=1)(x)
    return out[0]
fs = {"rsub": lambda a: 1 - a, "div": lambda a: a / 2, "sub": lambda a: a - 1, "add": lambda a: a + 1,
      "rem": lambda a: a % 2, "rpow": lambda a: 2 ** a, "fmod": lambda a: torch.fmod(a, 2),
      "gelu": F.gelu, "silu": F.silu, "leaky": F.leaky_relu, "elu": F.elu, "hardtanh": F.hardtanh,
      "logsigmoid": F.logsigmoid, "selu": F.selu, "celu": F.celu, "mish": F.mish, "hardsigmoid": F.hardsigmoid,
      "softplus": F.softplus, "sign": torch.sign, "round": torch.round, "floor": torch.floor, "frac": torch.frac,
      "round2": lambda a: torch.round(a, decimals=1), "logical_not": torch.logical_not, "clamp_max": lambda a: a.clamp(max=2),
      "masked_fill": lambda a: a.masked_fill(torch.tensor([True, False]), 0.), "floordiv": lambda a: a // 2,
      "rfloordiv": lambda a: 2 // (a + 1), "rrem": lambda a: 2 % (a + 1), "recip": torch.reciprocal, "erf": torch.erf,
      "copy": lambda a: torch.zeros(2).copy_(a) if False else a.clone(), "exp_": lambda a: a.clone().exp_(),
      "mul_": lambda a: a.clone().mul_(2), "add_t": lambda a: a + torch.ones(2), "gt": lambda a: a > 1,
      "eq": lambda a: a == 1, "where": lambda a: torch.where(a > 1, a, 0.), "lt0": lambda a: torch.lt(a, 2),
      "alias": lambda a: a[...], "detach": lambda a: a.detach(), "abs_": lambda a: a.clone().abs_(),
      "fill_": lambda a: a.clone().fill_(2.), "neg_": lambda a: a.clone().neg_(), "add_": lambda a: a.clone().add_(1)}
for k, f in fs.items():
    print(k, b(f))
# in-place ops write every sample
print(vmap(lambda a: a.clone().zero_())(x))
print(vmap(lambda a: a.clone().fill_(2.))(x))
print(vmap(lambda a: a.clone().copy_(a * 3))(x))
print(vmap(lambda a: a.clone().copy_(torch.ones(3)))(x))
print(vmap(lambda a: a.clone().add_(1))(x))
print(vmap(lambda a: a.clone().mul_(a))(x))
print(vmap(lambda a: a.clone().exp_().log_())(x))
print(vmap(lambda a: a.clone().sub_(torch.ones(3)))(x))
print(vmap(lambda a: a.clone().fill_(a[0]))(x))
