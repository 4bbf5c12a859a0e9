# A classifier's training losses as PyTorch prints them: log_softmax computes exp and log
# (nearly always) correctly rounded and adds in its kernel's vector-lane order, and nll_loss
# adds the batch in its own cascade (the first entry last).
import torch
import torch.nn as nn
import torch.nn.functional as F

X = torch.tensor([[((i * 7 + j * 3) % 11) / 11.0 - 0.5 for j in range(6)] for i in range(40)])
y = torch.tensor([(i * 5) % 3 for i in range(40)])
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.LayerNorm(16), nn.Linear(16, 3))
with torch.no_grad():
    for k, p in enumerate(model.parameters()):
        p.copy_(torch.tensor([((i * 13 + k * 7) % 17) / 17.0 - 0.5 for i in range(p.numel())]).reshape(p.shape))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(60):
    opt.zero_grad()
    loss = F.cross_entropy(model(X), y)
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, loss.item())
logits = torch.tensor([[((i * 7 + j * 5) % 13) / 3.0 - 2 for j in range(20)] for i in range(300)])
targets = torch.tensor([(i * 5) % 20 for i in range(300)])
print(F.cross_entropy(logits, targets).item(), F.cross_entropy(logits, targets, reduction="sum").item())
print(F.log_softmax(logits[:2], 1)[:, :6].tolist(), F.log_softmax(logits[:4, :3], 0).tolist())
