import torch
from torch.func import jacrev, jacfwd, vmap, vjp, jvp

# jacrev vs jacfwd on the tutorial's predict(weight, bias, x)
torch.manual_seed(0)
D = 4
weight = torch.cos(torch.arange(D * D, dtype=torch.float32)).reshape(D, D)
bias = torch.sin(torch.arange(D, dtype=torch.float32))
x = torch.linspace(-1, 1, D)


def predict(weight, bias, x):
    return torch.nn.functional.linear(x, weight, bias).tanh()


jac1 = jacrev(predict, argnums=2)(weight, bias, x)
jac2 = jacfwd(predict, argnums=2)(weight, bias, x)
print(jac1)
print(torch.allclose(jac1, jac2, atol=1e-6))
unit_vectors = torch.eye(D)
_, vjp_fn = vjp(lambda x: predict(weight, bias, x), x)
jac3, = vmap(vjp_fn)(unit_vectors)
print(torch.allclose(jac1, jac3, atol=1e-6))
jw, jb = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print(jw.shape, jb.shape)
print(jb)
jw2, jb2 = jacfwd(predict, argnums=(0, 1))(weight, bias, x)
print(torch.allclose(jw, jw2, atol=1e-6), torch.allclose(jb, jb2, atol=1e-6))
cols = [jvp(lambda x: predict(weight, bias, x), (x,), (e,))[1] for e in unit_vectors]
print(torch.allclose(torch.stack(cols, 1), jac1, atol=1e-6))
