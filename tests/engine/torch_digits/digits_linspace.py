# Ranges as PyTorch prints them: its linspace computes the second half from the end,
# so linspace(-1, 1, 15) has -4.4703e-08 in the middle and prints in scientific notation.
import math

import torch

print(torch.linspace(-1, 1, 15))
print(torch.linspace(0, 2 * math.pi, 25).sin())
print(torch.linspace(-math.pi, math.pi, 9, dtype=torch.float64))
print(torch.linspace(0, 1, 7, dtype=torch.float16))
print(torch.arange(0, 1, 0.1))
print(torch.arange(-1, 1, 0.15, dtype=torch.float64))
print(torch.logspace(-2, 2, 9))
print(torch.logspace(0, 1, 5, base=2))
