import torch
from torch.func import vmap

# Indexed assignment inside vmap: into a batched tensor (basic and tensor indices, batched
# indices, per sample where needed), and PyTorch's errors for an unbatched destination and a
# batched boolean mask


def attempt(f):
    try:
        print(f())
    except RuntimeError as e:
        print("RuntimeError", e)
    except ValueError as e:
        print("ValueError", e)
    except IndexError as e:
        print("IndexError", e)


x = torch.arange(6.).reshape(2, 3)
def f1(a):
    y = torch.zeros(3)
    y[0] = a[1]
    return y
attempt(lambda: vmap(f1)(x))
def f2(a):
    y = a.clone()
    y[0] = 7.
    return y
attempt(lambda: vmap(f2)(x))
def f3(a):
    y = a.clone()
    y[0] = a[2]
    return y
attempt(lambda: vmap(f3)(x))
def f4(a):
    y = torch.zeros(3)
    y[0] = 5.
    return y * a
attempt(lambda: vmap(f4)(x))
def f5(a):
    y = torch.zeros(3)
    y[torch.tensor([0, 2])] = a[:2]
    return y
attempt(lambda: vmap(f5)(x))
def f6(a):
    y = a.clone()
    y[torch.tensor([0, 2])] = torch.tensor([9., 8.])
    return y
attempt(lambda: vmap(f6)(x))
def f7(a):
    y = a.clone()
    y[1:] = a[:2]
    return y
attempt(lambda: vmap(f7)(x))
def f8(a):
    y = a.clone()
    y[a > 2] = 0.
    return y
attempt(lambda: vmap(f8)(x))
def f9(a):
    y = torch.zeros(2, 3)
    y[0] = a
    return y
attempt(lambda: vmap(f9)(x))
def f10(a):
    y = torch.zeros(2, 3) + a
    y[1] = a * 2
    return y
attempt(lambda: vmap(f10)(x))
idx = torch.tensor([[0], [2]])
def f11(a, i):
    y = a.clone()
    y[i] = -1.
    return y
attempt(lambda: vmap(f11)(x, idx))
def f12(a, i):
    y = torch.zeros(3)
    y[i] = 1.
    return y
attempt(lambda: vmap(f12)(x, idx))
def f13(a):
    y = a.clone()
    y[0] = a.sum()
    return y
attempt(lambda: vmap(f13)(x))
def f14(a):
    y = a.clone()
    y[...] = 3.
    return y
attempt(lambda: vmap(f14)(x))
def f15(a):
    y = a.clone()
    y[:, None][0] = 4.
    return y
attempt(lambda: vmap(f15)(x))
def f16(a):
    y = a.clone()
    y[0] += a[1]
    return y
attempt(lambda: vmap(f16)(x))
xr = x.clone().requires_grad_()
def f17(a):
    y = a * 1
    y[0] = a[2] * 3
    return y
r = vmap(f17)(xr)
print(r)
r.sum().backward()
print(xr.grad)
def f18(a):
    y = torch.zeros(3)
    y[1] = a[0]
    return y
attempt(lambda: vmap(f18, in_dims=1)(x))
def f19(a):
    y = torch.zeros(3)
    y[0] = a
    return y
attempt(lambda: vmap(f19)(torch.tensor([1., 2.])))
x = torch.arange(6.).reshape(2, 3)
m = torch.tensor([True, False, True])
def g1(a):
    y = a.clone()
    y[m] = 0.
    return y
attempt(lambda: vmap(g1)(x))
def g2(a):
    y = a.clone()
    y[torch.tensor([2, 0])] = a[:2] * 10
    return y
attempt(lambda: vmap(g2)(x))
def g3(a):
    y = a.clone()
    y[[0, 1]] = a[1:]
    return y
attempt(lambda: vmap(g3)(x))
z = torch.arange(24.).reshape(2, 3, 4)
def g4(a):
    y = a.clone()
    y[:, torch.tensor([1, 3])] = -1.
    return y
attempt(lambda: vmap(g4)(z))
def g5(a):
    y = a.clone()
    y[torch.tensor([0, 2]), :, ] = a[1]
    return y
attempt(lambda: vmap(g5)(z))
def g6(a):
    y = a.clone()
    y[torch.tensor([0, 2]), torch.tensor([1, 3])] = a[1, :2]
    return y
attempt(lambda: vmap(g6)(z))
def g7(a, i):
    y = a.clone()
    y[i] = a[0]
    return y
attempt(lambda: vmap(g7)(z, torch.tensor([[0], [2]])))
def g8(a, i):
    y = a.clone()
    y[:, i] = 0.
    return y
attempt(lambda: vmap(g8)(z, torch.tensor([[0, 1], [2, 3]])))
def g9(a):
    y = a.clone()
    y[a.argmax()] = 100.
    return y
attempt(lambda: vmap(g9)(x))
def g10(a):
    y = torch.zeros(3)
    y[1] = 2.
    return y
attempt(lambda: vmap(g10)(x))
def g11(a):
    y = a.clone()
    y[0, torch.tensor([1, 2])] = 5.
    return y
attempt(lambda: vmap(g11)(z))
attempt(lambda: vmap(vmap(g9))(z))
def g12(a, i):
    y = a.clone()
    y[i] = a[0] * 0 + 1
    return y
attempt(lambda: vmap(vmap(g12, in_dims=(0, None)), in_dims=(0, 0))(z, torch.tensor([1, 0])))
def g13(a):
    y = a.clone()
    y[a > 2] = a[a > 2]
    return y
attempt(lambda: vmap(g13)(x))
def g14(a):
    y = a.clone()
    y[torch.tensor(1)] = 9.
    return y
attempt(lambda: vmap(g14)(x))
