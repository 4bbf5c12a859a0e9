# torch.func.grad: the examples of its docstring, with fixed inputs
import torch
from torch.func import grad, grad_and_value, jacrev, hessian, vjp

x = torch.tensor(0.7)
cos_x = grad(lambda x: torch.sin(x))(x)
print(cos_x, x.cos())
# second-order gradients
neg_sin_x = grad(grad(lambda x: torch.sin(x)))(x)
print(neg_sin_x, -x.sin())


def my_loss_func(y, y_pred):
    loss_per_sample = (0.5 * y_pred - y) ** 2
    loss = loss_per_sample.mean()
    return loss, (y_pred, loss_per_sample)


fn = grad(my_loss_func, argnums=(0, 1), has_aux=True)
y_true = torch.tensor([0.1, 0.2, 0.3, 0.4])
y_preds = torch.tensor([0.5, 0.6, 0.7, 0.8])
out = fn(y_true, y_preds)
print(out)


def f(x):
    with torch.no_grad():
        c = x ** 2
    return x - c


print(grad(f)(torch.tensor(3.0)))
with torch.no_grad():
    print(grad(f)(torch.tensor(3.0)))
print(grad_and_value(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0])))
print(jacrev(torch.sin)(torch.tensor([0.0, 1.0])))
print(hessian(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0])))
output, vjp_fn = vjp(lambda x, y: x * y, torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
print(output)
print(vjp_fn(torch.ones(2)))
