"""The sandbox around issue 27's layers: a program reaches their parameters, buffers, submodules
and public options, never their internals (helpers, the lazy class switch, a named tuple's
methods, the engine's activation function)."""
from __future__ import annotations

import pytest

from nn_helpers import fails, run


@pytest.mark.parametrize("expr", [
    "nn.LSTM(2, 3)._weights",
    "nn.LSTM(2, 3)._step",
    "nn.LSTM(2, 3).__class__",
    "nn.GRUCell(2, 3)._prepare",
    "nn.LazyLinear(3).initialize_parameters",
    "nn.LazyLinear(3).cls_to_become",
    "nn.LazyLinear(3)._lazy_dtype",
    "nn.TransformerEncoderLayer(4, 2, 8)._activation_fn",
    "nn.TransformerEncoderLayer(4, 2, 8)._sa_block",
    "nn.MultiheadAttention(4, 2)._project",
    "nn.ParameterList([nn.Parameter(torch.ones(1))])._index",
    "nn.utils.rnn.pack_sequence([torch.ones(2, 1)])._asdict",
    "nn.utils.rnn.pack_sequence([torch.ones(2, 1)])._replace",
    "nn.utils.rnn.pack_sequence([torch.ones(2, 1)]).__class__",
    "nn.MarginRankingLoss().forward.__globals__",
    "nn.utils.clip_grad_norm_.__module__",
    "nn.modules.rnn.LSTM.__init__",
])
def test_internals_are_out_of_reach(expr):
    error = fails(f"v = {expr}\n")
    assert "attribute" in str(error) or "not allowed" in str(error), str(error)


def test_public_names_are_reachable():
    lines = run("""
lstm = nn.LSTM(2, 3, num_layers=2)
print(lstm.hidden_size, lstm.num_layers, lstm.weight_ih_l1.shape, len(lstm.all_weights))
lstm.flatten_parameters()
packed = nn.utils.rnn.pack_sequence([torch.ones(2, 1), torch.ones(1, 1)])
print(packed.batch_sizes, packed.sorted_indices)
mha = nn.MultiheadAttention(4, 2)
print(mha.in_proj_weight.shape, mha.out_proj.weight.shape, mha.num_heads)
lazy = nn.LazyLinear(3)
print(lazy.in_features)
lazy(torch.ones(2, 5))
print(lazy.in_features, lazy.weight.shape)
plist = nn.ParameterList([torch.ones(2)])
plist.append(torch.zeros(1))
print(len(plist), [p.requires_grad for p in plist])
""")
    assert lines == ["3 2 torch.Size([12, 3]) 2", "tensor([2, 1]) None",
                     "torch.Size([12, 4]) torch.Size([4, 4]) 2", "0", "5 torch.Size([3, 5])", "2 [True, True]"]


def test_a_layer_option_takes_only_plain_values():
    error = fails("lstm = nn.LSTM(2, 3)\nlstm.hidden_size = torch.ones\n")
    assert "takes a number" in str(error)
