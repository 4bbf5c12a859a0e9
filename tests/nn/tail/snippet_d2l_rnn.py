# d2l.ai chapters 9.6 (concise RNN), 10.1 (LSTM) and 10.2 (GRU): the RNN language model over
# one-hot tokens with an nn.LazyLinear output layer, d2l's clip_gradients, and a few SGD
# steps; d2l.Module written as nn.Module, weights from a formula, float64 data.
import torch
from torch import nn
from torch.nn import functional as F

torch.set_default_dtype(torch.float64)


class RNN(nn.Module):  #@save
    """The RNN model implemented with high-level APIs."""
    def __init__(self, num_inputs, num_hiddens):
        super().__init__()
        self.num_hiddens = num_hiddens
        self.rnn = nn.RNN(num_inputs, num_hiddens)

    def forward(self, inputs, H=None):
        return self.rnn(inputs, H)


class GRU(RNN):
    def __init__(self, num_inputs, num_hiddens):
        super().__init__(num_inputs, num_hiddens)  # d2l: d2l.Module.__init__(self) (no dunders in gradcli)
        self.rnn = nn.GRU(num_inputs, num_hiddens)


class LSTM(RNN):
    def __init__(self, num_inputs, num_hiddens):
        super().__init__(num_inputs, num_hiddens)
        self.rnn = nn.LSTM(num_inputs, num_hiddens)

    def forward(self, inputs, H_C=None):
        return self.rnn(inputs, H_C)


class RNNLM(nn.Module):  #@save
    """The RNN-based language model implemented with high-level APIs."""
    def __init__(self, rnn, vocab_size, lr=0.01):
        super().__init__()
        self.rnn = rnn
        self.vocab_size = vocab_size
        self.lr = lr
        self.init_params()

    def init_params(self):
        self.linear = nn.LazyLinear(self.vocab_size)

    def output_layer(self, hiddens):
        return self.linear(hiddens).swapaxes(0, 1)

    def one_hot(self, X):
        # Output shape: (num_steps, batch_size, vocab_size)
        return F.one_hot(X.T, self.vocab_size).type(torch.float64)

    def forward(self, X, state=None):
        embs = self.one_hot(X)
        rnn_outputs, _ = self.rnn(embs, state)
        return self.output_layer(rnn_outputs)

    def loss(self, Y_hat, Y):
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        Y = Y.reshape((-1,))
        return F.cross_entropy(Y_hat, Y)


def clip_gradients(grad_clip_val, model):
    params = [p for p in model.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > grad_clip_val:
        for param in params:
            param.grad[:] *= grad_clip_val / norm


vocab_size = 6
X = torch.tensor([[0, 1, 2, 3, 4], [5, 4, 3, 2, 1]])
Y = torch.tensor([[1, 2, 3, 4, 5], [4, 3, 2, 1, 0]])
for rnn in [RNN(num_inputs=vocab_size, num_hiddens=8), GRU(vocab_size, 8), LSTM(vocab_size, 8)]:
    model = RNNLM(rnn, vocab_size=vocab_size, lr=1)
    print(model)
    model(X)  # the LazyLinear takes its size from the first batch
    print(model)
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_((torch.arange(p.numel()).reshape(p.shape) * 0.37 + i).sin() * 0.4)
    optimizer = torch.optim.SGD(model.parameters(), lr=model.lr)
    for step in range(5):
        loss = model.loss(model(X), Y)
        optimizer.zero_grad()
        loss.backward()
        clip_gradients(1, model)
        optimizer.step()
        print(step, f'{loss.item():.6f}', f'{torch.exp(loss).item():.4f}')
    print(model(X).argmax(dim=2))
