# Item 5's texts (issue 27): functional.jvp's output nodes, an exception raised in a custom
# Function's backward, inference tensors saved for backward, register_multi_grad_hook.
import torch
from torch.autograd.functional import jvp


def f(x):
    return (x ** 2).sum(), x * 3


x = torch.tensor([1.0, 2.0], requires_grad=True)
out, tangent = jvp(f, x, torch.ones(2), create_graph=True)
print(out, tangent)
print([t.grad_fn.name() if t.grad_fn is not None else None for t in out])
print([t.grad_fn.name() if t.grad_fn is not None else None for t in tangent])
out, tangent = jvp(lambda v: v.sin().sum(), x, torch.ones(2))
print(out, tangent)
X = torch.tensor([[1.0, 2.0, 0.5], [3.0, -4.0, 1.5]], requires_grad=True)
for reduce in [lambda v: v.norm(dim=1), lambda v: v.logsumexp(1), lambda v: v.var(1), lambda v: v.prod(1),
               lambda v: torch.linalg.vector_norm(v, dim=1)]:
    out, tangent = jvp(reduce, X, torch.ones(2, 3), create_graph=True)
    print(tangent.grad_fn.name(), [round(t, 6) for t in tangent.tolist()])


raised = []   # what Fails.backward raises: the last error put here


class Fails(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        return y

    @staticmethod
    def backward(ctx, g):
        raise raised[-1]


for error, kind, name in [(ValueError("my backward failed"), ValueError, "ValueError"),
                          (RuntimeError("runtime trouble in backward"), RuntimeError, "RuntimeError")]:
    raised.append(error)
    try:
        Fails.apply(x).sum().backward()
    except kind as e:
        print(name, str(e))

with torch.inference_mode():
    t = torch.tensor([1.0, 2.0])
w = torch.tensor([0.5, 0.5], requires_grad=True)
for make in [lambda: t * w, lambda: (w * t).sum(), lambda: w.exp() * t]:
    try:
        make()
        print("no error")
    except RuntimeError as e:
        print("RuntimeError:", e)
print((t + w).sum())

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
c = torch.tensor(4.0, requires_grad=True)
seen = []


def on_all(grads):
    seen.append(('all', [None if g is None else g.tolist() for g in grads]))


handle = torch.autograd.graph.register_multi_grad_hook((a, b, c), on_all)
(a * 2).sum().add(b.sum() * 3).backward()
print(seen)
seen = []
(a * c).sum().backward()
print(seen)
handle.remove()
(a * c).sum().backward()
print(seen)


def on_any(grad):
    seen.append(('any', grad.tolist()))


seen = []
h = torch.autograd.graph.register_multi_grad_hook((a, b), on_any, mode="any")
(a * 5).sum().backward()
(a.sum() * b).sum().backward()
print(seen)
h.remove()
try:
    torch.autograd.graph.register_multi_grad_hook((a, b), on_any, mode="some")
except ValueError as e:
    print("ValueError:", e)

u = torch.tensor([1.0, -1.0], requires_grad=True)
h1 = u * 2
h2 = u.exp()
got = []
handle = torch.autograd.graph.register_multi_grad_hook((h1, h2), lambda gs: got.append([g.tolist() for g in gs]))
(h1 * h2).sum().backward()
print([[round(v, 6) for v in g] for g in got[0]])
handle.remove()
