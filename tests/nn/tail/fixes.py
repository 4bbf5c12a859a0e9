# Outputs that differed from PyTorch's before issue 27: BatchNorm without an affine bias,
# cross entropy over class probabilities (DivBackward1), softmax with a dtype.
import torch
import torch.nn as nn
import torch.nn.functional as F

print(nn.BatchNorm1d(3, affine=False))
print(nn.BatchNorm2d(4, bias=False))
print(nn.BatchNorm1d(3))
logits = torch.tensor([[0.2, -1.0, 0.5], [1.5, 0.3, -0.2]], requires_grad=True)
probs = torch.tensor([[0.1, 0.6, 0.3], [0.7, 0.2, 0.1]])
loss = nn.CrossEntropyLoss()(logits, probs)
print(loss)
loss.backward()
print(logits.grad)
print(F.cross_entropy(logits, probs, label_smoothing=0.1))
print(F.cross_entropy(logits, probs, reduction='sum'), F.cross_entropy(logits, probs, reduction='none'))
x = torch.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
s = F.softmax(x, dim=0, dtype=torch.float64)
print(s)
print(s.grad_fn.next_functions[0][0].name())
print(F.log_softmax(x, dim=1, dtype=torch.float64))
print(torch.softmax(x, 1, dtype=torch.float64).dtype, x.softmax(0).dtype)
