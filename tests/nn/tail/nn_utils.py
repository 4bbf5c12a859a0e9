# nn.utils: clip_grad_norm_, clip_grad_value_, parameters_to_vector, rnn.pad_sequence.
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)

model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_((torch.arange(p.numel()).reshape(p.shape) * 0.37 + i).sin())
x = torch.linspace(-2, 2, 6).reshape(2, 3)
model(x).pow(2).sum().backward()
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(total)
print(model[0].weight.grad)
print(nn.utils.clip_grad_norm_(model.parameters(), 0.5, norm_type=float('inf')))
print(model[2].bias.grad)
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
print(model[0].bias.grad)
print(nn.utils.clip_grad_norm_(model[2].weight, 10.0))
print(nn.utils.parameters_to_vector(model[2].parameters()))
a, b, c = torch.ones(2, 2), torch.full((3, 2), 2.0), torch.full((1, 2), 3.0)
print(nn.utils.rnn.pad_sequence([a, b, c]))
print(nn.utils.rnn.pad_sequence([a, b, c], batch_first=True, padding_value=-1.0).shape)
