# The 2-norm as PyTorch's vectorized kernel computes it over a contiguous last dim: 8 lanes
# of rounded squares in order, the lanes added into the first, then the values after the
# last vector (4 at a time by a vector multiply while 4 remain, then fused); and
# clip_grad_norm_'s coefficient as tensor arithmetic in float32.
import torch
import torch.nn as nn
import torch.nn.functional as F

def data(*shape, k=0):
    n = 1
    for s in shape:
        n *= s
    return (((torch.arange(n, dtype=torch.float32) * (41 + k)) % 97) / 97 * 5 - 2).reshape(shape)

for n in (3, 7, 8, 12, 15, 16, 31, 100, 1001, 4099):
    x = data(n, k=n % 5)
    m = data(4, n, k=1)
    print(n, x.norm().item(), m.norm(dim=1).tolist(), m.norm(dim=-1, keepdim=True)[2].tolist())
print(F.normalize(data(3, 30), dim=1)[:, ::7].tolist())
print(data(5, 6, 7).norm(dim=(1, 2)).tolist(), torch.linalg.vector_norm(data(9, 11)).item())

model = nn.Sequential(nn.Linear(13, 21), nn.Tanh(), nn.Linear(21, 3))
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        p.copy_(data(*p.shape, k=k) * 0.3)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
X, y = data(17, 13, k=3), data(17, 3, k=4)
for step in range(13):   # (from step 18 a gradient differs by an ulp: BLAS's order, not MKL's)
    opt.zero_grad()
    loss = ((model(X) - y) ** 2).mean()
    loss.backward()
    total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
    opt.step()
    if step % 6 == 0:
        print(step, loss.item(), total.item(), model[0].weight[1, :3].tolist())
