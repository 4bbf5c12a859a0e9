import torch
from torch.func import vmap, grad

# torch.autograd.grad, backward and requires_grad_ inside vmap: a batched tensor has no autograd
# of its own (PyTorch's BatchedTensor), so its requires_grad is False, its grad_fn None


def attempt(f):
    try:
        print(f())
    except RuntimeError as e:
        print("RuntimeError", e)
    except ValueError as e:
        print("ValueError", e)


x = torch.arange(6.).reshape(2, 3)
xr = x.clone().requires_grad_()
w = torch.ones(3, requires_grad=True)
attempt(lambda: vmap(lambda a: torch.autograd.grad((a * a).sum(), a))(x))
attempt(lambda: vmap(lambda a: torch.autograd.grad((a * a).sum(), a))(xr))
attempt(lambda: vmap(lambda a: torch.autograd.grad((a * w).sum(), w))(x))
attempt(lambda: vmap(lambda a: torch.autograd.grad((a * w).sum(), w, create_graph=True))(x))
attempt(lambda: vmap(lambda a: torch.autograd.grad((w * w).sum(), w)[0] * a)(x))
attempt(lambda: vmap(lambda a: torch.autograd.grad((w * w).sum(), w, create_graph=True)[0] * a)(x))
attempt(lambda: vmap(lambda a: torch.autograd.grad([(w * w).sum(), (a * w).sum()], w)[0] * a)(x))
attempt(lambda: vmap(lambda a: torch.autograd.grad((w * w).sum(), [w, a])[0] * a)(x))
attempt(lambda: vmap(lambda a: torch.autograd.grad(a.sum(), a))(x))
attempt(lambda: vmap(lambda a: torch.autograd.backward(a.sum()))(x))
attempt(lambda: vmap(lambda a: a.sum().backward())(x))


def fresh(a):
    b = torch.ones(3, requires_grad=True)
    return torch.autograd.grad((b * a).sum(), b)[0]


def fresh_unbatched(a):
    b = torch.ones(3, requires_grad=True)
    return torch.autograd.grad((b * b).sum(), b)[0] * a


attempt(lambda: vmap(fresh)(x))
attempt(lambda: vmap(fresh_unbatched)(x))
# grad as the innermost transform: autograd.grad works per sample
attempt(lambda: vmap(grad(lambda a: torch.autograd.grad((a * a * a).sum(), a, create_graph=True)[0].sum()))(x))
attempt(lambda: vmap(grad(lambda a: torch.autograd.grad((a * a * a).sum(), a)[0].sum()))(x))


def shows(a):
    y = a * w
    print(a.requires_grad, a.grad_fn, a.is_leaf, y.requires_grad, y.grad_fn, y.is_leaf)
    return y


print(vmap(shows)(x).grad_fn.name())
print(vmap(shows)(xr).grad_fn.name())
attempt(lambda: grad(lambda y: vmap(lambda a: print(a.requires_grad, a.grad_fn) or a)(y).sum())(x))


def inner(a):
    print(a.requires_grad, a.grad_fn is None, a.is_leaf)
    b = a * 2
    print(b.requires_grad, b.grad_fn is None, b.is_leaf)
    return b.sum()


attempt(lambda: vmap(grad(inner))(x))


def mixed(a):
    b = torch.ones(3, requires_grad=True)
    c = b * 2
    print(c.requires_grad, c.grad_fn.name())
    d = c * a
    print(d.requires_grad, d.grad_fn)
    return d


attempt(lambda: vmap(mixed)(x))
attempt(lambda: vmap(lambda a: a.requires_grad_())(x))
attempt(lambda: vmap(lambda a: a.requires_grad_(False))(x))
attempt(lambda: vmap(lambda a: torch.ones(3).requires_grad_())(x))
attempt(lambda: vmap(lambda a: torch.autograd.functional.jacobian(torch.sin, a))(x))
attempt(lambda: vmap(lambda a: torch.ones(3, requires_grad=True) * a)(x))
attempt(lambda: vmap(lambda a: torch.tensor([1., 2., 3.], requires_grad=True) * a)(x))
lin = torch.nn.Linear(3, 2)
attempt(lambda: vmap(lambda a: lin.requires_grad_(False)(a))(x).shape)


def setter(a):
    b = torch.ones(3)
    b.requires_grad = True
    return a * b


attempt(lambda: vmap(setter)(x))
attempt(lambda: vmap(lambda a: a.detach())(x))
attempt(lambda: vmap(lambda a: a.retain_grad())(x))
attempt(lambda: vmap(lambda a: a.register_hook(lambda g: g))(x))
x = torch.tensor(1.)
attempt(lambda: torch.autograd.grad(x * 2, x))
