# A two-layer network with a softmax cross-entropy loss, on a batch of 4 points.
# Try: gradcli backward samples/two_layer_net.py
#      gradcli graph samples/two_layer_net.py --tree
import torch
import torch.nn.functional as F
torch.manual_seed(0)  # (PyTorch draws other numbers: the same program, not the same values)
X = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7], [-0.2, 0.8, 0.1], [1.0, 1.0, -1.0]])
labels = torch.tensor([0, 2, 1, 2])
W1 = torch.randn(5, 3, requires_grad=True)
b1 = torch.zeros(5, requires_grad=True)
W2 = torch.randn(3, 5, requires_grad=True)
b2 = torch.zeros(3, requires_grad=True)

hidden = torch.tanh(X @ W1.T + b1)
logits = hidden @ W2.T + b2
loss = F.cross_entropy(logits, labels)
