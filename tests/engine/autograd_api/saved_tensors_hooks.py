# torch.autograd.graph.saved_tensors_hooks: the example of its docstring
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
