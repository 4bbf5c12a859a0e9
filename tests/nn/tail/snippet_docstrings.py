# The examples in PyTorch's docstrings for the layers of issue 27 (torch/nn/modules/*.py),
# with inputs and weights from formulas instead of torch.randn.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)


def fill(m):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_((torch.arange(p.numel()).reshape(p.shape) * 0.37 + i).sin() * 0.3)


def data(*shape):
    n = 1
    for s in shape:
        n = n * s
    return (torch.arange(n).reshape(shape) * 0.61).sin()


# nn.LSTM
rnn = nn.LSTM(10, 20, 2)
fill(rnn)
input = data(5, 3, 10)
h0 = data(2, 3, 20)
c0 = data(2, 3, 20) * 0.5
output, (hn, cn) = rnn(input, (h0, c0))
print(output.size(), hn.size(), cn.size(), output[-1, 0, :4], hn[0, 2, :3])
# nn.GRU
rnn = nn.GRU(10, 20, 2)
fill(rnn)
output, hn = rnn(input, h0)
print(output[2, 1, :5], hn.size())
# nn.RNN
rnn = nn.RNN(10, 20, 2)
fill(rnn)
output, hn = rnn(input, h0)
print(output[4, 2, -3:])
# nn.LSTMCell
rnn = nn.LSTMCell(10, 20)  # (input_size, hidden_size)
fill(rnn)
input = data(2, 3, 10)  # (time_steps, batch, input_size)
hx = data(3, 20)  # (batch, hidden_size)
cx = data(3, 20) * 0.2
output = []
for i in range(input.size()[0]):
    hx, cx = rnn(input[i], (hx, cx))
    output.append(hx)
output = torch.stack(output, dim=0)
print(output.shape, output[1, 0, :4])
# nn.GRUCell and nn.RNNCell
for rnn in [nn.GRUCell(10, 20), nn.RNNCell(10, 20)]:
    fill(rnn)
    input = data(6, 3, 10)
    hx = data(3, 20)
    output = []
    for i in range(6):
        hx = rnn(input[i], hx)
        output.append(hx)
    print(output[-1][2, :4])
# nn.ConvTranspose2d, with exact output size specification
input = data(1, 16, 12, 12)
downsample = nn.Conv2d(16, 16, 3, stride=2, padding=1)
upsample = nn.ConvTranspose2d(16, 16, 3, stride=2, padding=1)
fill(downsample)
fill(upsample)
h = downsample(input)
print(h.size())
output = upsample(h, output_size=input.size())
print(output.size(), output[0, 3, 5, :4])
# nn.MultiheadAttention
embed_dim, num_heads = 8, 2
multihead_attn = nn.MultiheadAttention(embed_dim, num_heads)
fill(multihead_attn)
query, key, value = data(4, 2, 8), data(5, 2, 8) * 0.5, data(5, 2, 8).cos()
attn_output, attn_output_weights = multihead_attn(query, key, value)
print(attn_output[3], attn_output_weights[1])
# nn.TransformerEncoder / nn.TransformerDecoder
encoder_layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
transformer_encoder = nn.TransformerEncoder(encoder_layer, num_layers=2)
fill(transformer_encoder)
src = data(10, 3, 8)
out = transformer_encoder(src)
print(out[9])
decoder_layer = nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
transformer_decoder = nn.TransformerDecoder(decoder_layer, num_layers=2)
fill(transformer_decoder)
memory = data(10, 3, 8)
tgt = data(6, 3, 8).cos()
out = transformer_decoder(tgt, memory)
print(out[5])
# nn.Transformer
transformer_model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                                   dim_feedforward=16, dropout=0.0)
fill(transformer_model)
out = transformer_model(src, tgt, tgt_mask=transformer_model.generate_square_subsequent_mask(6))
print(out[0])
# F.scaled_dot_product_attention
query, key, value = data(2, 2, 3, 4), data(2, 2, 5, 4).cos(), data(2, 2, 5, 4) * 0.5
print(F.scaled_dot_product_attention(query, key, value, dropout_p=0.0)[1, 0])
# nn.PReLU, nn.PixelShuffle, nn.ReflectionPad2d, nn.Upsample, nn.InstanceNorm2d, nn.AvgPool1d
m = nn.PReLU()
print(m(data(2) - 0.5))
pixel_shuffle = nn.PixelShuffle(3)
print(pixel_shuffle(data(1, 9, 4, 4)).size())
m = nn.ReflectionPad2d(2)
print(m(torch.arange(9, dtype=torch.float).reshape(1, 1, 3, 3)))
m = nn.Upsample(scale_factor=2, mode='bilinear')
print(m(torch.arange(1, 5, dtype=torch.float32).view(1, 1, 2, 2)))
m = nn.InstanceNorm2d(3, affine=True)
print(m(data(2, 3, 4, 4))[1, 2, 0])
m = nn.AvgPool1d(3, stride=2)
print(m(torch.tensor([[[1., 2, 3, 4, 5, 6, 7]]])))
m = nn.MaxPool1d(3, stride=2)
print(m(data(2, 3, 7))[1])
loss = nn.MarginRankingLoss()
input1, input2 = data(3), data(3).cos()
target = torch.tensor([1.0, -1.0, 1.0])
print(loss(input1, input2, target))
