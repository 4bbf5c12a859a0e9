# PyTorch warns (on stderr) when a program reads .grad of a tensor that is not a leaf, once
# per line; and when torch.tensor copies a tensor. Standard output is unchanged.
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.sum().backward()
print(y.grad)
print(y.grad)
for i in range(3):
    print(y.grad)
z = x * 3
z.retain_grad()
print(z.grad)
print(x.grad)
t = torch.tensor(x)
print(t)
