# The margin, ranking, embedding and likelihood losses: reprs, values for each reduction,
# node names and gradients.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)

a = (torch.arange(6).reshape(2, 3) * 0.7).sin()
b = (torch.arange(6).reshape(2, 3) * 0.4).cos()
c = (torch.arange(6).reshape(2, 3) * 0.9 + 1).sin()
for t in (a, b, c):
    t.requires_grad_(True)
y = torch.tensor([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]])
y2 = torch.tensor([1.0, -1.0])


def show(loss):
    print(loss)
    loss.sum().backward()
    print(a.grad, b.grad)
    a.grad = None
    b.grad = None


for reduction in ('mean', 'sum', 'none'):
    print(reduction)
    show(nn.MarginRankingLoss(margin=0.2, reduction=reduction)(a, b, y))
    show(nn.HingeEmbeddingLoss(margin=0.5, reduction=reduction)(a, y))
    show(nn.SoftMarginLoss(reduction=reduction)(a, y))
    show(nn.CosineEmbeddingLoss(margin=0.1, reduction=reduction)(a, b, y2))
    show(nn.TripletMarginLoss(margin=1.5, reduction=reduction)(a, b, c))
    show(nn.PoissonNLLLoss(reduction=reduction)(a, b.abs() * 3))
    show(nn.GaussianNLLLoss(reduction=reduction)(a, b, c.abs() + 0.1))
    show(nn.MultiLabelSoftMarginLoss(reduction=reduction)(a, (y + 1) / 2))
print(nn.MarginRankingLoss(), nn.HingeEmbeddingLoss(), nn.SoftMarginLoss(), nn.CosineEmbeddingLoss(),
      nn.TripletMarginLoss(), nn.PoissonNLLLoss(), nn.GaussianNLLLoss(), nn.MultiLabelSoftMarginLoss())
show(F.triplet_margin_loss(a, b, c, p=1, swap=True))
show(F.poisson_nll_loss(a.abs() + 0.5, b.abs() * 4, log_input=False, full=True))
show(F.gaussian_nll_loss(a, b, torch.full((2,), 0.5), full=True))
show(F.cosine_embedding_loss(a[0], b[0], torch.tensor(-1.0)))
show(F.multilabel_soft_margin_loss(a, (y + 1) / 2, weight=torch.tensor([1.0, 2.0, 0.5])))
print(F.pairwise_distance(a, b), F.pairwise_distance(a, b, p=1, keepdim=True))
for reduction in ('mean', 'sum', 'none'):
    show(nn.MultiMarginLoss(reduction=reduction)(a, torch.tensor([2, 0])))
show(nn.MultiMarginLoss(p=2, margin=0.5, weight=torch.tensor([1.0, 3.0, 0.5]))(a, torch.tensor([1, 1])))
print(nn.MultiMarginLoss(), F.multi_margin_loss(a[0], torch.tensor([2])))
