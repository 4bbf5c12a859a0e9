import torch
from torch.func import vjp, vmap, jacrev

# vjp with several outputs, vmapped over cotangents; vjp inside vmap
x = torch.tensor([[1.0, 2.0], [3.0, -1.0]])
out, vjp_fn = vjp(lambda a: (a @ a, a.sum(0)), x)
print(out)
print(vjp_fn((torch.ones(2, 2), torch.ones(2))))
cots = (torch.eye(4).reshape(4, 2, 2), torch.zeros(4, 2))
print(vmap(vjp_fn)(cots)[0].shape)
per = vmap(lambda a: vjp(torch.sin, a)[1](torch.ones(2))[0])(x)
print(per)
print(vmap(jacrev(lambda a: a.softmax(0)))(x))
