import torch

# torch.autograd.functional with strategy="forward-mode" (PyTorch's lists where reverse mode has tuples)
x = torch.tensor([1., 2.])
print(torch.autograd.functional.jacobian(lambda a, b: a * b, (x, x * 2), strategy="forward-mode", vectorize=True))
print(torch.autograd.functional.jacobian(lambda a: (a * 2, a.sum()), x, strategy="forward-mode", vectorize=True))
print(torch.autograd.functional.jacobian(lambda a: (a * 2, a.sum()), (x,), strategy="forward-mode", vectorize=True))
print(torch.autograd.functional.jacobian(lambda a: (a * 2, a.sum()), (x,), vectorize=True))
x = torch.tensor([1., 2., 3.])
f = lambda x: (x ** 3).sum() * x[0]
print(torch.autograd.functional.jacobian(torch.sin, x, strategy="forward-mode", vectorize=True))
print(torch.autograd.functional.hessian(f, x, outer_jacobian_strategy="forward-mode", vectorize=True).detach())
print(torch.autograd.functional.hessian(f, x))
print(torch.autograd.functional.jvp(lambda a: a.exp() * a, x, torch.ones(3)))
print(torch.autograd.functional.hvp(f, x, torch.tensor([1., 0., 2.])))
try:
    torch.autograd.functional.jacobian(torch.sin, x, strategy="forward-mode")
except NotImplementedError as e:
    print("NotImplementedError", e)
try:
    torch.autograd.functional.jacobian(torch.sin, x, strategy="forward-mode", vectorize=True, strict=True)
except RuntimeError as e:
    print("RuntimeError", e)
