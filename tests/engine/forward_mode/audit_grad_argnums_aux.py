import torch
from torch.func import grad, grad_and_value, vmap

# grad with argnums and has_aux, inside vmap
x = torch.tensor([1.0, 2.0, 3.0])
y = torch.tensor([0.5, -1.0, 2.0])


def loss(x, y):
    z = (x * y).sin()
    return z.sum(), {"z": z, "n": z.norm()}


g, aux = grad(loss, argnums=(0, 1), has_aux=True)(x, y)
print(g)
print(aux)
(gx, value) = grad_and_value(lambda x: (x ** 2).sum())(x)
print(gx, value)
xs = torch.stack([x, y, x * y])
print(vmap(grad(lambda a: (a ** 3).mean()))(xs))
gs, auxs = vmap(grad(loss, has_aux=True), in_dims=(0, None))(xs, y)
print(gs)
print(auxs["n"])
try:
    grad(lambda a: a * 2)(x)
except RuntimeError as e:
    print("RuntimeError", e)
