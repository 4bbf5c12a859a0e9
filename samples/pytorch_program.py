# A PyTorch program (it imports torch): numbers are Python's, and the inputs are the
# leaves that require grad (w and b). Compare samples/expression.txt.
import torch
w = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
lr = 0.1         # a Python float, not an input
x = 3.0
y = w * x + b    # the output
