# PyTorch tutorial "Optimizing Model Parameters": the NeuralNetwork of "Build the Neural
# Network", train_loop and test_loop as the tutorial writes them, CrossEntropyLoss, SGD and
# DataLoaders. Changed: FashionMNIST replaced by a small TensorDataset made from a formula
# (images 1x28x28, 10 classes), float64, weights from a formula, batch_size 16, 3 epochs;
# a StepLR schedule added as the torch.optim docs show it.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_default_dtype(torch.float64)


def images(n, offset):
    k = torch.arange(n * 28 * 28, dtype=torch.float64).reshape(n, 1, 28, 28)
    return torch.sin(0.37 * k + offset) * torch.cos(0.011 * k)


train_x, test_x = images(64, 0.0), images(32, 1.0)
train_y = (train_x.sum(dim=(1, 2, 3)) * 3).long() % 10
test_y = (test_x.sum(dim=(1, 2, 3)) * 3).long() % 10
training_data, test_data = TensorDataset(train_x, train_y), TensorDataset(test_x, test_y)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28*28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork()
with torch.no_grad():
    for i, param in enumerate(model.parameters()):
        n = param.numel()
        param.copy_((torch.sin(torch.arange(n) * (0.7 + i)) * 0.05).reshape(param.shape))

learning_rate = 1e-3
batch_size = 16
epochs = 3

train_dataloader = DataLoader(training_data, batch_size=batch_size)
test_dataloader = DataLoader(test_data, batch_size=batch_size)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    # Set the model to training mode - important for batch normalization and dropout layers
    # Unnecessary in this situation but added for best practices
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        # Compute prediction and loss
        pred = model(X)
        loss = loss_fn(pred, y)

        # Backpropagation
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()

        if batch % 2 == 0:
            loss, current = loss.item(), batch * batch_size + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    # Set the model to evaluation mode - important for batch normalization and dropout layers
    # Unnecessary in this situation but added for best practices
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0

    # Evaluating the model with torch.no_grad() ensures that no gradients are computed during test mode
    # also serves to reduce unnecessary gradient computations and memory usage for tensors with requires_grad=True
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()

    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
    scheduler.step()
    print(scheduler.get_last_lr())
print("Done!")
