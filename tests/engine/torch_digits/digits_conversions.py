# Numbers into a dtype as PyTorch converts them, and add/sub with alpha= as its kernel
# computes them. A double becomes a half through a float: -4.580078176346397 is just past the
# midpoint between two halves, but its float is the midpoint, so PyTorch's half is -4.578125.
import torch

x = -4.580078176346397
print(torch.tensor([x, -x], dtype=torch.float16).tolist())
print(torch.full((2,), x, dtype=torch.float16).tolist(), torch.zeros(2, dtype=torch.float16).fill_(x).tolist())
print(torch.tensor([x], dtype=torch.float64).half().item(), (torch.zeros(1, dtype=torch.float16) + x).item())
print(torch.linspace(3.0, x, 457, dtype=torch.float16)[[0, 30, 34, 225, 456]].tolist())
print(torch.logspace(x, 0.1, 4, dtype=torch.float16).tolist())
# x.add(y, alpha=a) is one fused multiply-add in float32 (and one node, AddBackward0)
a = torch.tensor([0.1 * i - 3.3 for i in range(40)])
b = torch.tensor([0.37 * i + 0.11 for i in range(40)])
print(torch.add(a, b, alpha=1.1)[:8].tolist())
print(a.add(b, alpha=3.3e-3).sum().item())
# ... but in the scalar loop's tail, with a number (or a broadcast column) as `other`, the
# compiler computes alpha * other once: rounded apart from the sum for all but its first and
# last elements
c = torch.tensor([[0.1 * i * j - 1.7 for j in range(7)] for i in range(6)])
print(torch.sub(a[:37], 0.7, alpha=2.1)[32:].tolist(), torch.add(c, b[:6, None], alpha=-1.3)[:, 1:5].tolist())
print(torch.add(a[:11].double(), 0.7, alpha=-1.3)[8:].tolist())
# in half the vector loop (32 halves at a time) fuses in float; its scalar tail does not
print(torch.add(a.half(), b.half(), alpha=-0.7)[28:].tolist())
print(torch.sub(a.half()[::2], b.half()[::2], alpha=0.3).tolist())
# a half mse_loss rounds the difference to half before it squares it
print(torch.nn.functional.mse_loss(torch.tensor([0.6772], dtype=torch.float16),
                                   torch.tensor([-1.058], dtype=torch.float16)).item())
h = ((torch.arange(52, dtype=torch.float64) * 0.37) % 6 - 3).half()
print(torch.nn.functional.mse_loss(h, h.flip(0) * 0.3).item())
w = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.add(w, w * w, alpha=0.5)
print(y.grad_fn.name(), [f[0].name() for f in y.grad_fn.next_functions[1][0].next_functions], y.grad_fn._saved_alpha)
y.sum().backward()
print(w.grad)


# the vector loop runs along memory (a transposed input's result is laid out as it is), each
# row of a broadcast apart, each thread's half of 70,001 halves apart
def checksum(t):
    return sum([(i % 97 + 1) * v for i, v in enumerate(t.reshape(-1).tolist())])


def make(shape, k):
    return ((torch.arange(shape[0] * shape[1], dtype=torch.float64) * k) % 8 - 4).reshape(shape).half()


for shape_a, shape_b in [((3, 40), (1, 40)), ((40, 3), (40, 3)), ((70001, 1), (70001, 1))]:
    a, b = make(shape_a, 0.37), make(shape_b, 0.48)
    print(checksum(torch.add(a, b, alpha=-0.7)), checksum(torch.sub(a, 2.3, alpha=0.3)),
          checksum(torch.add(a.t(), 1.7, alpha=1.3)))
