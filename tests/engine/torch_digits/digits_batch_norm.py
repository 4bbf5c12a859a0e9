# BatchNorm as PyTorch's CPU kernel computes it: the batch's mean by float32 sums per thread
# added in double (a 2-d input) or one double sum per channel (an image), the variance alike
# (fused products per thread, or float32 squares), invstd in double, y = fma(x, alpha, beta);
# the running statistics in float32.
import torch
import torch.nn as nn

def data(*shape, k=0):
    n = 1
    for s in shape:
        n *= s
    return (((torch.arange(n, dtype=torch.float32) * (37 + k)) % 101) / 101 * 6 - 2).reshape(shape)

bn1 = nn.BatchNorm1d(20)
bn2 = nn.BatchNorm2d(3, momentum=0.3)
with torch.no_grad():
    bn1.weight.copy_(torch.linspace(0.5, 1.5, 20))
    bn1.bias.copy_(torch.linspace(-0.1, 0.2, 20))
for step in range(4):
    y1 = bn1(data(9 + step, 20, k=step))
    y2 = bn2(data(4, 3, 5, 6, k=step))
    print(step, y1[::4, ::5].tolist(), y2[1, :, 2, ::2].tolist())
print(bn1.running_mean[::3].tolist(), bn1.running_var[::3].tolist())
print(bn2.running_mean.tolist(), bn2.running_var.tolist())
bn1.eval()
bn2.eval()
print(bn1(data(5, 20, k=9))[::2, ::3].tolist())
print(bn2(data(2, 3, 4, 4, k=9))[:, :, 1, ::2].tolist())
print(nn.functional.batch_norm(data(2, 7), None, None, training=True).tolist())
# two rows: split between the threads for 17 to 2048 channels, as on one thread otherwise
# (the channels printed are those where the two ways differ for these values)
for c, channels in ((7, [3]), (16, [13]), (40, [16, 24, 25]), (2048, [8, 51, 54, 68]),
                    (2049, [61, 188, 411, 449]), (3000, [99, 224, 377, 530])):
    x = ((((torch.arange(2 * c, dtype=torch.float32) * 7919 + c % 5) % 10007) / 10007 * 6 - 2) * 1.37
         + 0.11).reshape(2, c)
    print(c, nn.functional.batch_norm(x, None, None, training=True)[:, channels].tolist())
