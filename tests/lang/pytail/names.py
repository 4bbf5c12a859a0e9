import torch
import torch.nn as nn
m = nn.Linear(2, 2)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
print(isinstance(opt, torch.optim.Optimizer), isinstance(m, nn.Module), type(m) == nn.Linear)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * 2).sum()
print(isinstance(y.grad_fn, torch.autograd.graph.Node), torch.cuda.is_available(), torch.cuda.device_count())
model = torch.compile(m)
print(model(torch.ones(2)).shape, torch.Size([2, 3]), isinstance(x.shape, torch.Size), torch.Size([2, 3]) == (2, 3))
