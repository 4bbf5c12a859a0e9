# d2l.ai chapter 8.5 (batch normalization, concise): LeNet of LazyConv2d, LazyBatchNorm2d,
# LazyBatchNorm1d and LazyLinear layers, its layer summary, a few SGD steps in training mode
# (batch statistics) and a prediction in eval mode (running statistics); weights from a
# formula after the first call materializes them.
import torch
from torch import nn
from torch.nn import functional as F

torch.set_default_dtype(torch.float64)


class BNLeNet(nn.Module):
    def __init__(self, lr=0.1, num_classes=10):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(
            nn.LazyConv2d(6, kernel_size=5), nn.LazyBatchNorm2d(),
            nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.LazyConv2d(16, kernel_size=5), nn.LazyBatchNorm2d(),
            nn.Sigmoid(), nn.AvgPool2d(kernel_size=2, stride=2),
            nn.Flatten(), nn.LazyLinear(120), nn.LazyBatchNorm1d(),
            nn.Sigmoid(), nn.LazyLinear(84), nn.LazyBatchNorm1d(),
            nn.Sigmoid(), nn.LazyLinear(num_classes))

    def forward(self, X):
        return self.net(X)

    def layer_summary(self, X_shape):
        X = torch.zeros(*X_shape)
        for layer in self.net:
            X = layer(X)
            print(layer, 'output shape:\t', X.shape)  # d2l prints layer.__class__.__name__


model = BNLeNet(lr=0.1)
model.layer_summary((2, 1, 28, 28))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_((torch.arange(p.numel()).reshape(p.shape) * 0.37 + i).sin() * 0.3)
    for name, b in model.named_buffers():  # the summary's batch statistics came from random weights
        if 'running_mean' in name:
            b.zero_()
        elif 'running_var' in name:
            b.fill_(1.0)
X = (torch.arange(4 * 28 * 28).reshape(4, 1, 28, 28) * 0.013).sin()
y = torch.tensor([3, 1, 4, 1])
optimizer = torch.optim.SGD(model.parameters(), lr=model.lr)
for step in range(3):
    loss = F.cross_entropy(model(X), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, f'{loss.item():.6f}')
print(model.net[1].weight[:3])
print(model.net[1].running_mean[:3], model.net[10].running_var[:3], model.net[10].num_batches_tracked)
model.eval()
print(model(X).argmax(dim=1), model(X)[0, :4])
