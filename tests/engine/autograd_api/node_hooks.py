# Node.register_hook and Node.register_prehook: the examples of their docstrings
import torch

a = torch.tensor([0., 0., 0.], requires_grad=True)
b = a.clone()
handle = b.grad_fn.register_hook(lambda gI, gO: (gO[0] * 2,))
b.sum().backward(retain_graph=True)
print(a.grad)
handle.remove()  # Removes the hook
a.grad = None
b.sum().backward(retain_graph=True)
print(a.grad)

a = torch.tensor([0., 0., 0.], requires_grad=True)
b = a.clone()
handle = b.grad_fn.register_prehook(lambda gI: (gI[0] * 2,))
b.sum().backward(retain_graph=True)
print(a.grad)
handle.remove()
a.grad = None
b.sum().backward(retain_graph=True)
print(a.grad)

# what the hooks see
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3


def hook(grad_inputs, grad_outputs):
    print("hook", grad_inputs, grad_outputs)


def prehook(grad_outputs):
    print("prehook", grad_outputs)
    return (grad_outputs[0] * 10,)


w = torch.tensor([3.0, 4.0])
z = x * w
print(z.grad_fn.name(), z.grad_fn._saved_other, z.grad_fn._saved_self)
print(x.exp().grad_fn._saved_result)
y.grad_fn.register_hook(hook)
y.grad_fn.register_prehook(prehook)
y.sum().backward()
print(x.grad)
y.grad_fn.metadata["note"] = "scaled"
print(y.grad_fn.metadata)
x.grad = None
x.register_post_accumulate_grad_hook(lambda t: print("accumulated", t.grad))
(x * x).sum().backward()
