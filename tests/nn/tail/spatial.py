# ConvTranspose, the 1-d pools, channel dropout, pixel shuffle, pads, Upsample/interpolate,
# InstanceNorm, PReLU, ParameterList/Dict: reprs, outputs, node names and gradients.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)


def fill(m):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_((torch.arange(p.numel()).reshape(p.shape) * 0.37 + i).sin() * 0.5)


x = (torch.arange(32).reshape(1, 2, 4, 4) * 0.3).sin()
x.requires_grad_(True)
for m in [nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1),
          nn.ConvTranspose2d(2, 2, (2, 3), groups=2, bias=False, dilation=(1, 2))]:
    print(m)
    fill(m)
    y = m(x)
    print(y.shape, y.grad_fn.name())
    print(y[0, -1])
    (y * y).sum().backward()
    print(x.grad[0, 0])
    x.grad = None
seq = (torch.arange(16).reshape(2, 8) * 0.7).cos().reshape(1, 2, 8)
seq.requires_grad_(True)
ct1 = nn.ConvTranspose1d(2, 1, 3, stride=2)
fill(ct1)
print(ct1, ct1(seq))
for m in [nn.MaxPool1d(2), nn.MaxPool1d(3, stride=1, padding=1), nn.AvgPool1d(2), nn.AvgPool1d(3, 1, 1),
          nn.AdaptiveAvgPool1d(3)]:
    y = m(seq)
    print(m)
    print(y)
    y.sum().backward()
    print(seq.grad)
    seq.grad = None
print(F.max_pool1d(seq, 4), F.avg_pool1d(seq[0], 4))
d = nn.Dropout2d(0.5)
print(d)
d.eval()
print(torch.equal(d(x), x))
d.train()
y = d(torch.ones(4, 6, 3, 3))
kept = (y[:, :, 0, 0] != 0)
print(y.shape, bool(torch.logical_or(y == 0, y == 2.0).all()), bool((y.sum(dim=(2, 3)) == kept * 18.0).all()))
print(nn.Dropout1d(0.2), nn.Dropout2d(0.0)(x).equal(x))
ps = nn.PixelShuffle(2)
z = torch.arange(16.0).reshape(1, 4, 2, 2)
print(ps, ps(z), nn.PixelUnshuffle(2)(ps(z)).equal(z))
for m in [nn.ReflectionPad2d(1), nn.ReflectionPad1d((1, 2)), nn.ReplicationPad2d((1, 0, 2, 1)), nn.ZeroPad2d(1),
          nn.ConstantPad1d(2, 3.5)]:
    print(m)
    y = m(x[:, :1, :3, :3] if '2d' in str(m) or 'Zero' in str(m) else seq)
    print(y)
y = F.pad(x, (1, 1, 2, 0), mode='reflect')
y.pow(2).sum().backward()
print(y.grad_fn.name(), x.grad[0, 1])
x.grad = None
for kw, y in [('scale 2', F.interpolate(x, scale_factor=2)), ('size (3, 5)', F.interpolate(x, size=(3, 5))),
              ('bilinear 1.5', F.interpolate(x, scale_factor=1.5, mode='bilinear')),
              ('corners', F.interpolate(x, size=(3, 6), mode='bilinear', align_corners=True))]:
    print(kw, y.shape, y.grad_fn.name())
    print(y[0, 1])
    (y * y).sum().backward()
    print(x.grad[0, 0])
    x.grad = None
print(F.interpolate(seq, scale_factor=2, mode='linear'))
print(F.interpolate(seq, size=5))
up = nn.Upsample(scale_factor=2, mode='nearest')
print(up, up(x[:, :1, :2, :2]))
inorm = nn.InstanceNorm2d(2)
print(inorm, inorm(x)[0, 1])
inorm = nn.InstanceNorm1d(2, affine=True)
fill(inorm)
y = inorm(seq)
print(inorm, y, y.grad_fn.name())
pr = nn.PReLU(2)
fill(pr)
y = pr(x)
print(pr, y[0, 0], y.grad_fn.name())
y.sum().backward()
print(pr.weight.grad, x.grad[0, 1])
x.grad = None
print(nn.PReLU()(torch.tensor([-2.0, 3.0])), F.prelu(seq, torch.tensor([0.1, 0.2])))
plist = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(2, 3)])
plist.append(nn.Parameter(torch.full((1,), 2.0)))
print(plist, len(plist), [tuple(p.shape) for p in plist], plist[1].requires_grad)
pdict = nn.ParameterDict({'a': nn.Parameter(torch.ones(2)), 'b': torch.zeros(3)})
print(pdict, list(pdict.keys()), pdict['b'].requires_grad)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.ws = nn.ParameterList([nn.Parameter(torch.ones(3)) for i in range(2)])

    def forward(self, v):
        for w in self.ws:
            v = v * w
        return v


net = Net()
print([name for name, _ in net.named_parameters()])
print(net(torch.arange(3.0)))
