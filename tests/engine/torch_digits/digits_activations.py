# Activations in the input's dtype, computed where PyTorch computes: hardswish and
# hardsigmoid as min(max(x + 3, 0), 6) / 6 in float32, leaky_relu's x * slope with the slope
# as a float32, threshold compared in float32, selu's positive side x * float32(scale).
import torch
import torch.nn.functional as F

x = torch.linspace(-4, 4, 801)
for name, y in [("hardswish", F.hardswish(x)), ("hardsigmoid", F.hardsigmoid(x)),
                ("leaky_relu", F.leaky_relu(x, 0.01)), ("threshold", F.threshold(x, 0.1, 20.0)),
                ("selu", F.selu(x[x > 0])), ("mish", F.mish(x.half()))]:
    print(name, y.dtype, y[::100].tolist())
print(F.hardswish(x.half()).dtype, F.celu(x).dtype, torch.nn.SELU()(x).dtype, torch.nn.Mish()(x).dtype)
