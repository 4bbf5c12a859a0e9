# torch.autograd.graph.saved_tensors_hooks: the example of its docstring, then ops saving outputs
import torch


def pack_hook(x):
    print("Packing", x)
    return x.detach()


def unpack_hook(x):
    print("Unpacking", x)
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
print(a.grad)

# what unpack returns is what backward uses
a.grad = None
b = b.detach()
with torch.autograd.graph.saved_tensors_hooks(lambda x: x * 10, lambda x: x):
    y = a * b
y.sum().backward()
print(a.grad)
# save_on_cpu changes nothing on a CPU
with torch.autograd.graph.save_on_cpu(pin_memory=False):
    y = (a * a).sum()
a.grad = None
y.backward()
print(a.grad)

# ops that save their output (exp) and both input and output (tanh of a product)
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
