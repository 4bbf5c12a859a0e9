# float16 losses as PyTorch's kernels compute them: huber_loss computes each element in float
# and rounds it once to half before the reduction; smooth_l1_loss rounds every operation to
# half; the mean adds the halves in float.
import torch
import torch.nn.functional as F

x = ((torch.arange(300, dtype=torch.float32) * 37) % 101 / 101 * 6 - 3).half()
y = ((torch.arange(300, dtype=torch.float32) * 53) % 89 / 89 * 6 - 3).half()
for delta in (1.0, 0.37):
    print(delta, F.huber_loss(x, y, delta=delta).item(), F.huber_loss(x, y, reduction="sum", delta=delta).item(),
          F.huber_loss(x, y, reduction="none", delta=delta)[::37].tolist())
    print(delta, F.smooth_l1_loss(x, y, beta=delta).item(), F.smooth_l1_loss(x, y, reduction="none", beta=delta)[::37].tolist())
print(F.l1_loss(x, y).item(), F.mse_loss(x, y).item(), F.huber_loss(x, y).dtype)
