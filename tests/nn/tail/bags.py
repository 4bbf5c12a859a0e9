# nn.EmbeddingBag (sum, mean, max; offsets or 2-d input; per-sample weights) and
# nn.init.orthogonal_ (its properties: the random numbers differ from PyTorch's).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
w = (torch.arange(15).reshape(5, 3) * 0.3).sin()
for mode in ('sum', 'mean', 'max'):
    bag = nn.EmbeddingBag(5, 3, mode=mode)
    with torch.no_grad():
        bag.weight.copy_(w)
    print(bag)
    out = bag(torch.tensor([0, 2, 4, 1, 1, 3]), torch.tensor([0, 3, 3]))
    print(out, out.grad_fn.name())
    out.pow(2).sum().backward()
    print(bag.weight.grad)
    print(bag(torch.tensor([[0, 1], [4, 4]])))
print(nn.EmbeddingBag(5, 3, padding_idx=0))
weight = w.clone().requires_grad_(True)
out = F.embedding_bag(torch.tensor([1, 2, 3, 0]), weight, torch.tensor([0, 2]), mode='sum',
                      per_sample_weights=torch.tensor([0.5, 2.0, 1.0, -1.0]))
print(out)
out.sum().backward()
print(weight.grad)
for shape in [(3, 5), (5, 3), (2, 3, 2)]:
    q = torch.empty(shape)
    nn.init.orthogonal_(q, gain=2.0)
    m = q.reshape(shape[0], -1)
    small = m @ m.T if shape[0] <= m.shape[1] else m.T @ m
    print(shape, torch.allclose(small, 4 * torch.eye(small.shape[0])))
