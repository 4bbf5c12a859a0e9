import torch
from torch.func import jvp, linearize

# jvp with has_aux, tuples, linearize reused on several tangents
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
y = torch.tensor([0.5, -0.5])


def f(x, y):
    return (x @ y).tanh(), x.sum() * y


out, tangent = jvp(f, (x, y), (torch.ones(2, 2), torch.zeros(2)))
print(out)
print(tangent)
out, tangent, aux = jvp(lambda x: (x.exp().sum(), x.max()), (x,), (torch.eye(2),), has_aux=True)
print(out, tangent, aux)
value, jvp_fn = linearize(lambda x: x.sin() * x, x)
print(value)
for t in [torch.ones(2, 2), torch.eye(2), x]:
    print(jvp_fn(t))
try:
    jvp(lambda x: x, (x,), (torch.ones(3),))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    jvp(lambda x: x, x, (x,))
except RuntimeError as e:
    print("RuntimeError", e)
