import torch
import torch.autograd.forward_ad as fwAD

class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        ctx.save_for_forward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y

    @staticmethod
    def jvp(ctx, t):
        y, = ctx.saved_tensors
        return t * y

class NoJvp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2

x = torch.tensor([0.5, 1.0])
v = torch.tensor([1.0, 2.0])
with fwAD.dual_level():
    d = fwAD.make_dual(x, v)
    out = MyExp.apply(d)
    print(out)
    print(fwAD.unpack_dual(out).tangent)
    try:
        NoJvp.apply(d)
    except NotImplementedError as e:
        print("NotImplementedError:", e)
xg = x.clone().requires_grad_()
print(torch.autograd.grad(MyExp.apply(xg).sum(), xg))
