# RNN, LSTM, GRU and their cells: repr, parameter names and shapes, outputs and gradients
# with the weights set from a formula (random streams differ from PyTorch's).
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)


def fill(m):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_((torch.arange(p.numel()).reshape(p.shape) * 0.37 + i).sin() * 0.5)


x = (torch.arange(24).reshape(3, 2, 4) * 0.21).cos()
x.requires_grad_(True)
for layer in [nn.RNN(4, 3), nn.RNN(4, 3, nonlinearity='relu', num_layers=2, bias=False),
              nn.GRU(4, 3, bidirectional=True), nn.LSTM(4, 3, num_layers=2, bidirectional=True)]:
    print(layer)
    print([(name, tuple(p.shape)) for name, p in layer.named_parameters()])
    fill(layer)
    out, h = layer(x)
    print(out)
    print(h)
    out.sum().backward()
    print(x.grad)
    x.grad = None
lstm = nn.LSTM(4, 3, batch_first=True)
fill(lstm)
xb = x.transpose(0, 1)
h0 = torch.full((1, 2, 3), 0.1)
c0 = torch.full((1, 2, 3), -0.2)
out, (h, c) = lstm(xb, (h0, c0))
print(lstm)
print(out.shape, h.shape, c.shape)
print(out[:, -1])
print(c)
gru = nn.GRU(4, 3, num_layers=2, batch_first=True, dropout=0.5)
fill(gru)
gru.eval()
out, h = gru(xb)
print(gru)
print(out)
out, h = gru(x[:, 0])
print(out.shape, h.shape)
for cell in [nn.RNNCell(4, 3), nn.RNNCell(4, 3, nonlinearity='relu', bias=False), nn.GRUCell(4, 3),
             nn.LSTMCell(4, 3)]:
    print(cell)
    fill(cell)
    h = cell(x[0])
    print(h)
    print(cell(x[0, 1]))
lstm_cell = nn.LSTMCell(4, 3)
fill(lstm_cell)
h, c = torch.zeros(2, 3), torch.zeros(2, 3)
for t in range(3):
    h, c = lstm_cell(x[t], (h, c))
print(h)
print(c)
try:
    nn.LSTM(4, 3)(x, (torch.zeros(2, 2, 3), torch.zeros(2, 2, 3)))
except RuntimeError as e:
    print("RuntimeError:", e)
