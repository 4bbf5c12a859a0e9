# saved_tensors_hooks on ops that save their output (exp) and both (tanh of a product)
import torch
def pack_hook(x):
    print("Packing", x)
    return x.detach()
def unpack_hook(x):
    print("Unpacking", x)
    return x
a = torch.tensor([0.5, 1.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a.exp()
    z = (y * a).tanh()
print(y.grad_fn._saved_result)
z.sum().backward()
print(a.grad)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda p: p):
    y = a.exp()
a.grad = None
y.sum().backward()
print(a.grad)
