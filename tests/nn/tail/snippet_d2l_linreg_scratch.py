# d2l.ai chapter 3.4 "Linear Regression Implementation from Scratch" (PyTorch): the model's
# parameters w and b, forward, the squared loss, d2l's own `class SGD` (a plain class
# with step and zero_grad over self.params), and the training loop over minibatches, then
# the estimation errors. Changed: d2l's base classes (Module, HyperParameters, Trainer)
# written out as plain code, the synthetic data (chapter 3.3) made from a formula instead of
# torch.normal, minibatches taken in order, float64.
import time

import torch

torch.set_default_dtype(torch.float64)


class SyntheticRegressionData:
    """Synthetic data for linear regression (d2l 3.3), noise from a formula."""

    def __init__(self, w, b, noise=0.01, num_train=1000, num_val=1000, batch_size=32):
        self.w, self.b, self.batch_size = w, b, batch_size
        n = num_train + num_val
        k = torch.arange(n * len(w)).reshape((n, len(w)))
        self.X = torch.sin(0.7 * k) + 0.5 * torch.cos(1.3 * k)
        self.noise = noise * torch.sin(3.1 * torch.arange(n))
        self.y = torch.matmul(self.X, w.reshape((-1, 1))) + b + self.noise.reshape((-1, 1))
        self.num_train = num_train

    def get_dataloader(self, train):
        i = slice(0, self.num_train) if train else slice(self.num_train, None)
        X, y = self.X[i], self.y[i]
        return [(X[j:j + self.batch_size], y[j:j + self.batch_size])
                for j in range(0, len(X), self.batch_size)]


class LinearRegressionScratch:
    """The linear regression model implemented from scratch."""

    def __init__(self, num_inputs, lr, sigma=0.01):
        self.num_inputs, self.lr, self.sigma = num_inputs, lr, sigma
        self.w = (sigma * torch.cos(torch.arange(num_inputs * 1.0))).reshape(num_inputs, 1)
        self.w.requires_grad_(True)
        self.b = torch.zeros(1, requires_grad=True)

    def forward(self, X):
        return torch.matmul(X, self.w) + self.b

    def loss(self, y_hat, y):
        l = (y_hat - y) ** 2 / 2
        return l.mean()

    def configure_optimizers(self):
        return SGD([self.w, self.b], self.lr)


class SGD:
    """Minibatch stochastic gradient descent."""

    def __init__(self, params, lr):
        self.params, self.lr = params, lr

    def step(self):
        for param in self.params:
            param -= self.lr * param.grad

    def zero_grad(self):
        for param in self.params:
            if param.grad is not None:
                param.grad.zero_()


def fit(model, data, max_epochs):
    optim = model.configure_optimizers()
    start = time.time()
    for epoch in range(max_epochs):
        for X, y in data.get_dataloader(True):
            loss = model.loss(model.forward(X), y)
            optim.zero_grad()
            with torch.no_grad():
                loss.backward()
                optim.step()
        with torch.no_grad():
            val = [model.loss(model.forward(X), y).item() for X, y in data.get_dataloader(False)]
        print(f'epoch {epoch + 1}, val loss {sum(val) / len(val):.8f}')
    return time.time() - start >= 0


model = LinearRegressionScratch(2, lr=0.1)
data = SyntheticRegressionData(w=torch.tensor([2, -3.4]), b=4.2)
print(fit(model, data, max_epochs=3))

with torch.no_grad():
    print(f'error in estimating w: {data.w - model.w.reshape(data.w.shape)}')
    print(f'error in estimating b: {data.b - model.b}')
print(isinstance(model, LinearRegressionScratch), isinstance(model.configure_optimizers(), SGD))
