# PyTorch tutorial "What is torch.nn really?", its final form: Mnist_Logistic as an
# nn.Module, get_data returning DataLoaders over TensorDatasets, loss_batch and fit with
# model.train()/model.eval(), validation loss weighted by batch size with numpy, and
# optim.SGD with momentum. Changed: MNIST replaced by a small data set made from a formula
# (784 features, 10 classes), float64, weights from a formula, 4 epochs.
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch import optim
from torch.utils.data import DataLoader, TensorDataset

torch.set_default_dtype(torch.float64)

k = torch.arange(120 * 784, dtype=torch.float64).reshape(120, 784)
features = torch.sin(0.013 * k) * torch.cos(0.29 * k + 0.5)
labels = (features[:, :10].sum(1) * 4).long() % 10
x_train, y_train, x_valid, y_valid = features[:80], labels[:80], features[80:], labels[80:]
n, c = x_train.shape
print(x_train.shape, y_train.min(), y_train.max())

bs = 16  # batch size
lr = 0.5  # learning rate
epochs = 4  # how many epochs to train for
loss_func = F.cross_entropy


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)

    def forward(self, xb):
        return self.lin(xb)


def get_model():
    model = Mnist_Logistic()
    with torch.no_grad():
        model.lin.weight.copy_(torch.cos(torch.arange(7840.0)).reshape(10, 784) * 0.01)
        model.lin.bias.zero_()
    return model, optim.SGD(model.parameters(), lr=lr, momentum=0.9)


train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)


def get_data(train_ds, valid_ds, bs):
    return (
        DataLoader(train_ds, batch_size=bs),
        DataLoader(valid_ds, batch_size=bs * 2),
    )


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)

    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()

    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)

        model.eval()
        with torch.no_grad():
            losses, nums = zip(
                *[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl]
            )
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)

        print(epoch, round(float(val_loss), 10))


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
model, opt = get_model()
fit(epochs, model, loss_func, opt, train_dl, valid_dl)
print(accuracy(model(x_valid), y_valid))
print(loss_func(model(x_train[:bs]), y_train[:bs]))
