import torch
from torch.func import jvp, jacfwd, jacrev, hessian, linearize, grad

# torch.func's forward mode: jvp, jacfwd, hessian (jacfwd over jacrev), linearize, and compositions
x = torch.tensor([1., 2., 3.])
v = torch.tensor([1., 0., 1.])
f = lambda x: (x.sin() * x).sum() * x.sum()
print(jvp(f, (x,), (v,)))
print(jvp(lambda x: (x.sin(), x.sum()), (x,), (v,)))
print(jvp(lambda x, y: x * y, (x, x), (v, v)))
print(jvp(lambda x: (x.sin(), x * 2), (x,), (v,), has_aux=True))
print(jacfwd(torch.sin)(x))
print(jacfwd(lambda x, y: x * y, argnums=(0, 1))(x, x))
print(jacfwd(lambda x: x.sin())(torch.tensor(2.)))
print(jacfwd(lambda x: (x * x, x.sum()))(x))
print(hessian(f)(x))
print(jacrev(jacrev(f))(x))
print(jacfwd(jacfwd(f))(x))
print(jacrev(jacfwd(f))(x))
print(jacfwd(grad(f))(x))
print(grad(lambda x: jvp(f, (x,), (v,))[1])(x))
print(jvp(lambda x: jvp(f, (x,), (v,))[1], (x,), (v,)))
out, jvp_fn = linearize(torch.sin, x)
print(out, jvp_fn(v))
print(jvp_fn(torch.ones(3)))
W = torch.tensor([[1., 2., 3.], [0., -1., 0.5]])
print(jacfwd(lambda x: torch.tanh(W @ x))(x))
print(jacrev(lambda x: torch.tanh(W @ x))(x))
bad_calls = [lambda: jvp(torch.sin, x, v), lambda: jvp(torch.sin, (x,), v),
             lambda: jvp(torch.sin, (x,), (torch.ones(2),)), lambda: jvp(lambda x: 3, (x,), (v,))]
for bad in bad_calls:
    try:
        print(bad())
    except RuntimeError as e:
        print("RuntimeError", e)
