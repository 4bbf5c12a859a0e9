# Dropout's layouts and dtypes (its random numbers are gradcli's own, so the program prints what
# does not depend on them): dropout2d drops whole (N, C) channels of a 3-D input (PyTorch warns
# that it reads it as (N, C, L)) and single elements of a 2-D one; dropout1d refuses a 4-D input.
import torch
import torch.nn.functional as F


def constant_along(y, dims):
    kept = (y != 0).int()
    return bool((kept.amin(dims) == kept.amax(dims)).all())


torch.manual_seed(0)
for p in (0.2, 0.5):
    y4, y3 = F.dropout2d(torch.ones(6, 5, 4, 3), p), F.dropout2d(torch.ones(6, 5, 7), p)
    print(constant_along(y4, (2, 3)), constant_along(y4, (1, 2, 3)), constant_along(y3, (2,)),
          constant_along(y3, (1, 2)),
          F.dropout2d(torch.ones(6, 5), p).shape, F.dropout(torch.ones(3).half(), p).dtype,
          F.dropout1d(torch.ones(4, 5, 6), p).dtype, set(F.dropout(torch.ones(300), p).tolist()))
try:
    F.dropout1d(torch.ones(2, 3, 4, 5))
except RuntimeError as e:
    print(e)
try:
    F.dropout2d(torch.ones(5))
except RuntimeError as e:
    print(e)
