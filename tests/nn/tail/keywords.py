# issue 27 (c): keepdims= beside keepdim=, out= (written in place, refused where PyTorch
# refuses), indexing with a range, nn.Transformer.generate_square_subsequent_mask on the
# class, @dataclass fields without a default and dataclasses.field.
import dataclasses
from dataclasses import dataclass, field

import torch
from torch import nn

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(x.sum(1, keepdims=True), torch.mean(x, dim=0, keepdims=True))
print(x.amax(dim=1, keepdims=True), torch.logsumexp(x, 1, keepdims=True))
print(x.max(1, keepdims=True).values, torch.std(x, 1, keepdims=True), torch.norm(x, dim=0, keepdim=True))
print(torch.var(x, dim=1, keepdims=True), x.prod(0, keepdims=True), x.argmax(1, keepdims=True))
try:
    x.sum(1, keepdim=True, keepdims=True)
except TypeError as e:
    print("TypeError")

out = torch.empty(2, 3)
r = torch.add(x, 1.0, out=out)
print(r, r is out, out._version)
torch.mul(x, x, out=out)
print(out)
view = torch.zeros(4, 3)
torch.exp(x, out=view[1:3])
print(view)
acc = torch.zeros(3)
torch.sum(x, 0, out=acc)
print(acc)
wide = torch.empty(0)
torch.cat([x, x], 1, out=wide)
print(wide.shape, wide)
d = torch.zeros(2, 3, dtype=torch.float64)
torch.add(x, torch.ones(3), out=d)
print(d)
b = torch.zeros(2, 3)
torch.gt(x, 2.5, out=b)
print(b)
i = torch.zeros(2, dtype=torch.long)
torch.argmax(x, 1, out=i)
print(i)
torch.clamp(x, 2.0, 5.0, out=out)
print(out)
torch.where(x > 3, x, torch.zeros(2, 3), out=out)
print(out)
vals, idx = torch.empty(0), torch.empty(0, dtype=torch.long)
res = torch.max(x, 1, out=(vals, idx))
print(vals, idx, res[0] is vals)
w = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    torch.mul(w, 3.0, out=w)
print(w)
for make in [lambda: torch.add(w, 1.0, out=torch.empty(2)),
             lambda: torch.add(x, 1.0, out=torch.empty(2, 3, dtype=torch.long)),
             lambda: torch.div(torch.tensor([3, 4]), 2, out=torch.empty(2, dtype=torch.int32)),
             lambda: torch.add(x, 1.0, out=[out]),
             lambda: torch.matmul(x, torch.eye(3), out=d), lambda: torch.amax(x, 1, out=d),
             lambda: torch.where(x > 1, x, x, out=d), lambda: torch.clamp(x, 0.0, out=d),
             lambda: torch.dot(x[0], x[1], out=d),
             lambda: torch.reshape(x, (6,), out=out),
             lambda: torch.transpose(x, 0, 1, out=out)]:
    try:
        make()
    except (RuntimeError, TypeError) as e:
        print("RuntimeError:" if isinstance(e, RuntimeError) else "TypeError:", e)

print(x[range(2)], x[:, range(0, 3, 2)], x[range(1, 2), range(2)])
y = torch.zeros(5)
y[range(1, 4)] = torch.tensor([1.0, 2.0, 3.0])
print(y)
print(nn.Transformer.generate_square_subsequent_mask(4))
print(nn.Transformer.generate_square_subsequent_mask(2, dtype=torch.float64))


@dataclass
class Config:
    n_layers: int
    hidden: int
    lr: float = 0.1
    tags: list = field(default_factory=list)
    eps: float = field(default=1e-3)


a = Config(3, 16)
b = Config(n_layers=4, hidden=8, lr=0.5)
a.tags.append('deep')
print(a)
print(b, Config.lr, Config.eps)
print(dataclasses.asdict(b))
for make in [lambda: Config(1), lambda: Config(), lambda: Config(1, 2, 0.1, [], 0.2, 9), lambda: Config(1, 2, n_layers=2),
             lambda: Config(1, 2, depth=3)]:
    try:
        make()
    except TypeError as e:
        print("TypeError:", e)
