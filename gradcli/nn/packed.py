"""Packed sequences: `nn.utils.rnn.PackedSequence`, pack_padded_sequence, pad_packed_sequence,
pack_sequence, and the recurrent layers' loop over one.

A PackedSequence is PyTorch's named tuple (data, batch_sizes, sorted_indices,
unsorted_indices): the steps of the sequences, longest first, time-major, `batch_sizes[t]`
sequences still running at step t. A layer runs step t on the first batch_sizes[t] rows
of its hidden state and keeps the others, so each sequence's last hidden state is its own.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._tensor import Tensor
from ..errors import ProgramError, ProgramValueError
from ..ops import FUNCTIONS
from ..ops.layers import pack_rows

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence"]


def _long(values) -> Tensor:
    return Tensor._make(np.asarray(values, dtype=np.int64))


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """The packed steps of a batch of sequences (PyTorch's fields and repr)."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _long(np.argsort(sorted_indices._data))
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)


def _lengths(lengths) -> np.ndarray:
    values = lengths._data if isinstance(lengths, Tensor) else np.asarray(list(lengths))
    return np.asarray(values, dtype=np.int64).reshape(-1)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """The valid steps of a padded batch (T, B, *) (or (B, T, *)), packed time-major."""
    lengths = _lengths(lengths)
    if enforce_sorted:
        if np.any(np.diff(lengths) > 0):
            raise ProgramError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                               "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                               "pack_sequence to sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = np.argsort(-lengths, kind="stable")
        sorted_indices = _long(order)
        lengths = lengths[order]
        input = FUNCTIONS["index_select"](input, 0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = FUNCTIONS["transpose"](input, 0, 1)
    if len(lengths) and lengths[-1] <= 0:
        raise ProgramValueError("Length of all samples has to be greater than 0, but found an element in "
                                "'lengths' that is <= 0")
    if len(lengths) != input.shape[1]:
        raise ProgramValueError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                                f"(batch_size={input.shape[1]})")
    steps = int(lengths.max()) if len(lengths) else 0
    batch_sizes = [int(np.sum(lengths > t)) for t in range(steps)]
    batch = input.shape[1]
    data = pack_rows(input, [t * batch + i for t, b in enumerate(batch_sizes) for i in range(b)])
    return PackedSequence(data, _long(batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded (T, B, *) or (B, T, *), lengths)."""
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes._data]
    batch = batch_sizes[0] if batch_sizes else 0
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ProgramValueError(f"Expected total_length to be at least the length of the longest sequence "
                                    f"in input, but got total_length={total_length} and max sequence length "
                                    f"being {steps}")
        steps = int(total_length)
    rows, offset = [], 0
    tail = tuple(data.shape[1:])
    for t in range(steps):
        b = batch_sizes[t] if t < len(batch_sizes) else 0
        parts = [data[offset:offset + b]] if b else []
        if b < batch:
            parts.append(FUNCTIONS["full"]((batch - b,) + tail, padding_value, dtype=data.dtype))
        rows.append(FUNCTIONS["cat"](parts, 0) if len(parts) > 1 else parts[0])
        offset += b
    padded = FUNCTIONS["stack"](rows, 0)
    lengths = np.array([sum(1 for s in batch_sizes if s > i) for i in range(batch)], dtype=np.int64)
    if batch_first:
        padded = FUNCTIONS["transpose"](padded, 0, 1)
    if sequence.unsorted_indices is not None:
        padded = FUNCTIONS["index_select"](padded, 0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices._data]
    return padded, _long(lengths)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """nn.utils.rnn.pad_sequence: the sequences padded to the longest and stacked (time first
    unless batch_first), as PyTorch composes it (a padded copy of each, then stack)."""
    sequences = list(sequences)
    if not sequences:
        raise ProgramValueError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        extra = longest - s.shape[0]
        if extra:
            fill = FUNCTIONS["full"]((extra,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)
            parts = [s, fill] if padding_side == "right" else [fill, s]
            s = FUNCTIONS["cat"](parts, 0)
        padded.append(s)
    return FUNCTIONS["stack"](padded, 0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted=True):
    """Sequences of lengths L_i (each (L_i, *)) padded and packed."""
    sequences = list(sequences)
    return pack_padded_sequence(pad_sequence(sequences), [s.shape[0] for s in sequences],
                                enforce_sorted=enforce_sorted)


def run_packed(layer, packed: PackedSequence, hx):
    """A recurrent layer over a PackedSequence: (output PackedSequence, h_n or (h_n, c_n))."""
    is_lstm = layer.mode == "LSTM"
    batch_sizes = [int(b) for b in packed.batch_sizes._data]
    batch = batch_sizes[0]
    dirs = 2 if layer.bidirectional else 1
    shape = (layer.num_layers * dirs, batch, layer.hidden_size)
    data = packed.data
    if hx is None:
        h0 = FUNCTIONS["zeros"](*shape, dtype=data.dtype)
        c0 = FUNCTIONS["zeros"](*shape, dtype=data.dtype) if is_lstm else None
    else:
        h0, c0 = hx if is_lstm else (hx, None)
        if packed.sorted_indices is not None:
            h0 = FUNCTIONS["index_select"](h0, 1, packed.sorted_indices)
            c0 = FUNCTIONS["index_select"](c0, 1, packed.sorted_indices) if c0 is not None else None
    step = layer._step()
    cat = FUNCTIONS["cat"]
    offsets = np.concatenate([[0], np.cumsum(batch_sizes)])
    layer_input, finals_h, finals_c = data, [], []
    for index_layer in range(layer.num_layers):
        outputs = []
        for direction in range(dirs):
            w_ih, w_hh, b_ih, b_hh, h, c = layer._direction(index_layer, direction, dirs, h0, c0)
            x_w = FUNCTIONS["linear"](layer_input, w_ih, b_ih)
            outs = [None] * len(batch_sizes)
            order = range(len(batch_sizes) - 1, -1, -1) if direction == 1 else range(len(batch_sizes))
            for t in order:
                b = batch_sizes[t]
                h_t, c_t = step(x_w[int(offsets[t]):int(offsets[t + 1])], h[:b], c[:b] if c is not None else None,
                                w_hh, b_hh)
                outs[t] = h_t
                h = cat([h_t, h[b:]], 0) if b < batch else h_t
                if c is not None:
                    c = cat([c_t, c[b:]], 0) if b < batch else c_t
            outputs.append(cat(outs, 0))
            finals_h.append(h)
            finals_c.append(c)
        layer_input = outputs[0] if dirs == 1 else cat(outputs, 1)
        if layer.dropout and layer.training and index_layer < layer.num_layers - 1:
            layer_input = FUNCTIONS["dropout"](layer_input, layer.dropout, True)
    h_n = FUNCTIONS["stack"](finals_h, 0)
    c_n = FUNCTIONS["stack"](finals_c, 0) if is_lstm else None
    if packed.unsorted_indices is not None:
        h_n = FUNCTIONS["index_select"](h_n, 1, packed.unsorted_indices)
        c_n = FUNCTIONS["index_select"](c_n, 1, packed.unsorted_indices) if c_n is not None else None
    out = PackedSequence(layer_input, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
    return (out, (h_n, c_n)) if is_lstm else (out, h_n)
