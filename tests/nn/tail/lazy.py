# LazyLinear, LazyConv2d, LazyBatchNorm1d/2d: repr before and after the first call, the
# parameters filled in place (an optimizer made before the call steps them), outputs.
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)


def fill(m):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_((torch.arange(p.numel()).reshape(p.shape) * 0.37 + i).sin() * 0.5)


net = nn.Sequential(nn.LazyLinear(3), nn.ReLU(), nn.LazyLinear(2))
print(net)
print(net[0].weight)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.linspace(-1, 1, 8).reshape(2, 4)
net(x)
print(net)
print([(name, tuple(p.shape)) for name, p in net.named_parameters()])
fill(net)
loss = net(x).pow(2).sum()
loss.backward()
opt.step()
print(net[2].weight)
print(net(x))
conv = nn.LazyConv2d(2, 3, padding=1, stride=2)
print(conv)
img = torch.linspace(-1, 1, 50).reshape(1, 2, 5, 5)
conv(img)
print(conv)
fill(conv)
print(conv(img))
print(nn.LazyConv2d(4, (2, 3), bias=False))
bn = nn.LazyBatchNorm2d()
print(bn)
print(bn.weight, bn.running_mean)
out = bn(img)
print(bn)
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
print(out[0, 1, 0])
bn1 = nn.LazyBatchNorm1d(affine=False)
y = bn1(x)
print(bn1)
print(y)
print(nn.LazyBatchNorm1d(momentum=None, eps=0.001))
