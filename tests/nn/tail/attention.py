# F.scaled_dot_product_attention, nn.MultiheadAttention and the Transformer layers, with
# weights set from a formula; eval mode (no dropout) so the values are PyTorch's.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)


def fill(m):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_((torch.arange(p.numel()).reshape(p.shape) * 0.37 + i).sin() * 0.3)


q = (torch.arange(24).reshape(1, 2, 3, 4) * 0.3).sin()
k = (torch.arange(32).reshape(1, 2, 4, 4) * 0.2).cos()
v = (torch.arange(16).reshape(1, 2, 4, 2) * 0.5).sin()
for t in (q, k, v):
    t.requires_grad_(True)
out = F.scaled_dot_product_attention(q, k, v)
print(out)
out.pow(2).sum().backward()
print(q.grad[0, 1], k.grad[0, 0], v.grad[0, 1])
mask = torch.tensor([[True, False, True, True], [True, True, False, True], [False, True, True, True]])
print(F.scaled_dot_product_attention(q, k, v, attn_mask=mask)[0, 0])
print(F.scaled_dot_product_attention(q, k, v, attn_mask=mask.double() * 0.5, scale=0.3)[0, 1])
print(F.scaled_dot_product_attention(q[:, :, :3], q, q, is_causal=True)[0, 0])
causal = torch.triu(torch.full((3, 3), float('-inf')), diagonal=1)
mha = nn.MultiheadAttention(4, 2)
print(mha)
print([(name, tuple(p.shape)) for name, p in mha.named_parameters()])
print(mha.in_proj_bias, mha.out_proj.bias)
fill(mha)
x = (torch.arange(24).reshape(3, 2, 4) * 0.41).cos()
x.requires_grad_(True)
o, w = mha(x, x, x)
print(o)
print(w)
o.sum().backward()
print(x.grad[1])
mem = (torch.arange(16).reshape(2, 2, 4) * 0.13).sin()
o, w = mha(x, mem, mem, average_attn_weights=False)
print(o[0], w.shape)
o, w = mha(x, x, x, need_weights=False, attn_mask=causal)
print(o[2], w)
mha_b = nn.MultiheadAttention(4, 1, batch_first=True, bias=False)
fill(mha_b)
o, w = mha_b(x.transpose(0, 1), mem.transpose(0, 1), mem.transpose(0, 1),
             key_padding_mask=torch.tensor([[False, True], [False, False]]))
print(o, w)
layer = nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=6)
fill(layer)
layer.eval()
print(layer)
print(layer(x))
enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, norm_first=True), 2)
fill(enc)
print(enc(x, mask=causal))
print([name for name, _ in enc.named_parameters()][:5], len(list(enc.parameters())))
model = nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=6,
                       dropout=0.0)
print(sum(p.numel() for p in model.parameters()))
fill(model)
y = model(x, mem)
print(y)
y.sum().backward()
print(x.grad[0])
dec = nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, activation='gelu', batch_first=True)
fill(dec)
print(dec(mem.transpose(0, 1), x.transpose(0, 1)))
print(causal)
