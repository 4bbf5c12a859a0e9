# Packed sequences: pack_padded_sequence (sorted or not), an RNN/LSTM/GRU over one,
# pad_packed_sequence, pack_sequence; weights set from a formula.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pack_sequence

torch.set_default_dtype(torch.float64)


def fill(m):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_((torch.arange(p.numel()).reshape(p.shape) * 0.37 + i).sin() * 0.5)


x = (torch.arange(36).reshape(3, 3, 4) * 0.23).sin()
x.requires_grad_(True)
p = pack_padded_sequence(x, [3, 2, 1])
print(p.batch_sizes, p.data.shape, p.sorted_indices)
q = pack_padded_sequence(x, torch.tensor([2, 3, 1]), enforce_sorted=False)
print(q.batch_sizes, q.sorted_indices, q.unsorted_indices)
print(q.data)
for layer in [nn.GRU(4, 3), nn.LSTM(4, 3, num_layers=2, bidirectional=True), nn.RNN(4, 2, batch_first=True)]:
    fill(layer)
    packed = pack_padded_sequence(x, torch.tensor([2, 3, 1]), enforce_sorted=False) if not layer.batch_first else pack_padded_sequence(x.transpose(0, 1), [2, 3, 1], batch_first=True,
                                                                   enforce_sorted=False)
    out, h = layer(packed)
    print(layer, out.data.shape, out.batch_sizes)
    padded, lengths = pad_packed_sequence(out, batch_first=layer.batch_first)
    print(padded)
    print(lengths)
    print(h)
    padded.sum().backward()
    print(x.grad[:, 1])
    x.grad = None
out, h = nn.GRU(4, 3)(p, torch.zeros(1, 3, 3))
print(pad_packed_sequence(out, total_length=5)[0].shape)
print(pack_sequence([torch.ones(3, 1), torch.full((2, 1), 2.0)]))
try:
    pack_padded_sequence(x, [2, 3, 1])
except RuntimeError as e:
    print("RuntimeError:", e)
