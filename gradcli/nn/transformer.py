"""nn.MultiheadAttention and the Transformer family, as PyTorch's Python reference computes them.

MultiheadAttention follows `F.multi_head_attention_forward`: one packed input projection
(in_proj_weight, in_proj_bias), heads split by view/transpose, and either the explicit
softmax (need_weights=True: the weights averaged over heads come back) or
F.scaled_dot_product_attention (need_weights=False, what the Transformer layers ask
for); then out_proj. The layers are PyTorch's post-norm or pre-norm blocks. Parameter
names, shapes, initialisation (xavier_uniform_ of in_proj_weight, zero biases; a
Transformer's xavier_uniform_ of every matrix) and reprs are PyTorch's; PyTorch's fused
inference fast path gives the same values up to rounding.
"""
from __future__ import annotations

import copy
import math

from ..errors import ProgramValueError, ShapeError
from ..ops import FUNCTIONS, NN_FUNCTIONS
from ..ops.factories import Parameter
from . import init
from .modules import Dropout, LayerNorm, Linear, Module, ModuleList

__all__ = ["NonDynamicallyQuantizableLinear", "MultiheadAttention", "TransformerEncoderLayer",
           "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder", "Transformer"]


def _f(name):
    return NN_FUNCTIONS.get(name) or FUNCTIONS[name]


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear by another name (MultiheadAttention's out_proj prints as one)."""


def _float_mask(mask, dtype):
    """A boolean mask (True: not allowed) as 0/-inf; a float mask as is."""
    if mask is None:
        return None
    if mask._data.dtype.kind == "f":
        return mask
    zeros = FUNCTIONS["zeros"](*mask.shape, dtype=dtype)
    return FUNCTIONS["masked_fill"](zeros, mask, float("-inf"))


class MultiheadAttention(Module):
    """Attention with `num_heads` heads over embed_dim features; returns (output, weights or None)."""

    public = ("embed_dim", "num_heads", "dropout", "batch_first", "head_dim", "kdim", "vdim")

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        super().__init__()
        embed_dim, num_heads = int(embed_dim), int(num_heads)
        if embed_dim <= 0 or num_heads <= 0:
            raise ProgramValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                                    f"and num_heads={num_heads} instead")
        if embed_dim % num_heads:
            raise ProgramValueError("embed_dim must be divisible by num_heads")
        if add_bias_kv or add_zero_attn or (kdim not in (None, embed_dim)) or (vdim not in (None, embed_dim)):
            raise ProgramValueError("MultiheadAttention with add_bias_kv, add_zero_attn or a kdim/vdim other "
                                    "than embed_dim is not supported in gradcli")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, float(dropout)
        self.kdim = self.vdim = embed_dim
        self.batch_first, self.head_dim = bool(batch_first), embed_dim // num_heads
        kw = {} if dtype is None else {"dtype": dtype}
        self.in_proj_weight = Parameter(FUNCTIONS["empty"](3 * embed_dim, embed_dim, **kw))
        for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
            self.register_parameter(name, None)
        if bias:
            self.in_proj_bias = Parameter(FUNCTIONS["empty"](3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        self.register_parameter("bias_k", None)
        self.register_parameter("bias_v", None)
        self._reset_parameters()

    def _reset_parameters(self):
        init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        batched = len(query.shape) == 3
        if self.batch_first and batched:
            t = FUNCTIONS["transpose"]
            if key is value:
                if query is key:
                    query = key = value = t(query, 1, 0)
                else:
                    query, key = t(query, 1, 0), t(key, 1, 0)
                    value = key
            else:
                query, key, value = t(query, 1, 0), t(key, 1, 0), t(value, 1, 0)
        out, weights = self._attend(query, key, value, key_padding_mask, need_weights, attn_mask,
                                    average_attn_weights, is_causal, batched)
        if self.batch_first and batched:
            out = FUNCTIONS["transpose"](out, 1, 0)
        return out, weights

    def _project(self, query, key, value):
        """_in_projection_packed: one linear when q, k, v are one tensor, else the chunks of the weight."""
        w, b, e = self.in_proj_weight, self.in_proj_bias, self.embed_dim
        linear = _f("linear")
        if key is value and query is key:
            proj = linear(query, w, b)
            proj = FUNCTIONS["unflatten"](proj, -1, (3, e))
            proj = FUNCTIONS["squeeze"](FUNCTIONS["transpose"](FUNCTIONS["unsqueeze"](proj, 0), 0, -2), -2)
            proj = proj.contiguous()
            return proj[0], proj[1], proj[2]
        ws = FUNCTIONS["chunk"](w, 3)
        bs = FUNCTIONS["chunk"](b, 3) if b is not None else (None, None, None)
        return linear(query, ws[0], bs[0]), linear(key, ws[1], bs[1]), linear(value, ws[2], bs[2])

    def _attend(self, query, key, value, key_padding_mask, need_weights, attn_mask, average, is_causal, batched):
        view, transpose = FUNCTIONS["view"], FUNCTIONS["transpose"]
        if not batched:
            query, key, value = (FUNCTIONS["unsqueeze"](t, 1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = FUNCTIONS["unsqueeze"](key_padding_mask, 0)
        tgt_len, bsz, embed_dim = query.shape
        if embed_dim != self.embed_dim:
            raise ShapeError(f"was expecting embedding dimension of {self.embed_dim}, but got {embed_dim}")
        if is_causal and attn_mask is None:
            raise ProgramValueError("Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                                    "module method `generate_square_subsequent_mask` to create this mask.")
        heads, head_dim = self.num_heads, self.head_dim
        q, k, v = self._project(query, key, value)
        attn_mask = _float_mask(attn_mask, q.dtype)
        if attn_mask is not None and len(attn_mask.shape) == 2:
            attn_mask = FUNCTIONS["unsqueeze"](attn_mask, 0)
        q = transpose(view(q, tgt_len, bsz * heads, head_dim), 0, 1)
        k = transpose(view(k, k.shape[0], bsz * heads, head_dim), 0, 1)
        v = transpose(view(v, v.shape[0], bsz * heads, head_dim), 0, 1)
        src_len = k.shape[1]
        if key_padding_mask is not None:
            kpm = _float_mask(key_padding_mask, q.dtype)
            kpm = FUNCTIONS["reshape"](FUNCTIONS["expand"](view(kpm, bsz, 1, 1, src_len), bsz, heads, -1, -1),
                                       (bsz * heads, 1, src_len))
            attn_mask = kpm if attn_mask is None else attn_mask + kpm
        dropout_p = self.dropout if self.training else 0.0
        if need_weights:
            q_scaled = q * math.sqrt(1.0 / float(head_dim))
            scores = FUNCTIONS["bmm"](q_scaled, transpose(k, -2, -1))
            if attn_mask is not None:
                scores = attn_mask + scores   # baddbmm(attn_mask, q, k^T)
            weights = _f("softmax")(scores, -1)
            if dropout_p > 0.0:
                weights = _f("dropout")(weights, dropout_p, True)
            out = FUNCTIONS["bmm"](weights, v)
            out = view(transpose(out, 0, 1).contiguous(), tgt_len * bsz, embed_dim)
            out = _f("linear")(out, self.out_proj.weight, self.out_proj.bias)
            out = view(out, tgt_len, bsz, out.shape[1])
            weights = view(weights, bsz, heads, tgt_len, src_len)
            if average:
                weights = FUNCTIONS["mean"](weights, 1)
            if not batched:
                out, weights = FUNCTIONS["squeeze"](out, 1), FUNCTIONS["squeeze"](weights, 0)
            return out, weights
        if attn_mask is not None:
            attn_mask = view(attn_mask, bsz, heads, -1, src_len) if attn_mask.shape[0] != 1 else \
                FUNCTIONS["unsqueeze"](attn_mask, 0)
        q, k, v = (view(t, bsz, heads, t.shape[1], head_dim) for t in (q, k, v))
        out = _f("scaled_dot_product_attention")(q, k, v, attn_mask, dropout_p, False)
        out = view(FUNCTIONS["permute"](out, 2, 0, 1, 3).contiguous(), bsz * tgt_len, embed_dim)
        out = _f("linear")(out, self.out_proj.weight, self.out_proj.bias)
        out = view(out, tgt_len, bsz, out.shape[1])
        if not batched:
            out = FUNCTIONS["squeeze"](out, 1)
        return out, None


def _activation(activation):
    if isinstance(activation, str):
        if activation not in ("relu", "gelu"):
            raise ProgramValueError(f"activation should be relu/gelu, not {activation}")
        return _f(activation)
    return activation


class _Layer(Module):
    def _set_activation(self, activation):
        fn = _activation(activation)
        if isinstance(fn, Module):
            self.activation = fn
        else:
            self.__dict__["_activation_fn"] = fn

    def _act(self, x):
        fn = self._modules.get("activation") or self.__dict__["_activation_fn"]
        return fn(x)

    last_dropout = "dropout2"  # the feed-forward block's closing dropout

    def _build(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
               bias, dtype, blocks):
        """The sublayers of an encoder (2 blocks) or decoder (3 blocks: + multihead_attn) layer, registered
        in PyTorch's order (state_dict keys and parameters() follow it)."""
        attention = dict(dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, **attention)
        if blocks == 3:
            self.multihead_attn = MultiheadAttention(d_model, nhead, **attention)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = bool(norm_first)
        for i in range(1, blocks + 1):
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        for i in range(1, blocks + 1):
            setattr(self, f"dropout{i}", Dropout(dropout))
        self._set_activation(activation)

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self._modules[self.last_dropout](self.linear2(self.dropout(self._act(self.linear1(x)))))


class TransformerEncoderLayer(_Layer):
    """Self-attention then a feed-forward block, each with a residual and a LayerNorm."""

    public = ("norm_first",)

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        self._build(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                    bias, dtype, blocks=2)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))


class TransformerDecoderLayer(_Layer):
    """Self-attention, attention over the memory, then a feed-forward block (residuals and LayerNorms)."""

    public = ("norm_first",)
    last_dropout = "dropout3"

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        self._build(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                    bias, dtype, blocks=3)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False, is_causal=is_causal)[0]
        return self.dropout2(x)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff_block(x))


def _clones(module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(int(n))])


def _set_stack(stack, layer, num_layers, norm):
    """An encoder's or decoder's `num_layers` copies of `layer` and its optional final norm."""
    stack.layers = _clones(layer, num_layers)
    stack.num_layers = int(num_layers)
    if norm is not None:
        stack.norm = norm
    else:
        stack.add_module("norm", None)


class TransformerEncoder(Module):
    """`num_layers` copies of an encoder layer, then an optional norm."""

    public = ("num_layers",)

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        _set_stack(self, encoder_layer, num_layers, norm)

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, is_causal=bool(is_causal), src_key_padding_mask=src_key_padding_mask)
        return self.norm(out) if self.norm is not None else out


class TransformerDecoder(Module):
    """`num_layers` copies of a decoder layer, then an optional norm."""

    public = ("num_layers",)

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        _set_stack(self, decoder_layer, num_layers, norm)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """An encoder-decoder Transformer (Vaswani et al.); every matrix xavier_uniform_."""

    public = ("d_model", "nhead", "batch_first", "generate_square_subsequent_mask")

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        for name, custom, layer_cls, stack_cls, num_layers in (
                ("encoder", custom_encoder, TransformerEncoderLayer, TransformerEncoder, num_encoder_layers),
                ("decoder", custom_decoder, TransformerDecoderLayer, TransformerDecoder, num_decoder_layers)):
            if custom is None:  # the encoder's layers first: they draw their initial values first
                layer = layer_cls(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                                  norm_first, bias, dtype=dtype)
                custom = stack_cls(layer, num_layers, LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
            setattr(self, name, custom)
        for p in self.parameters():
            if len(p.shape) > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = int(d_model), int(nhead), bool(batch_first)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        if (src.shape[0 if self.batch_first else 1] != tgt.shape[0 if self.batch_first else 1]
                and len(src.shape) == 3):
            raise ShapeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ShapeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """-inf above the diagonal, 0 elsewhere."""
        kw = {} if dtype is None else {"dtype": dtype}
        return FUNCTIONS["triu"](FUNCTIONS["full"]((int(sz), int(sz)), float("-inf"), **kw), 1)

