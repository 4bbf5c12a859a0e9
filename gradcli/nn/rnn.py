"""The recurrent layers: nn.RNN, LSTM, GRU and their cells.

Each is composed from differentiable ops the way ATen's CPU path composes it
(aten/src/ATen/native/RNN.cpp): the input projection of a whole layer is one
`linear` unbound over time, each step adds `linear(h, w_hh, b_hh)`, the gates are
chunks of that sum, the step outputs are stacked (StackBackward0), directions
concatenated, and dropout applied between layers in training. So every order of
derivative works, and the parameter names, shapes, order, initialisation
(uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) over `parameters()`) and
repr are PyTorch's; the random numbers are gradcli's generator's.
"""
from __future__ import annotations

import math
import warnings

from .._tensor import Tensor
from ..errors import ProgramTypeError, ProgramValueError, ShapeError
from ..ops import FUNCTIONS, NN_FUNCTIONS
from ..ops.factories import Parameter
from . import init
from .modules import Module
from .modules.conv import _options_repr

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _f(name):
    return NN_FUNCTIONS.get(name) or FUNCTIONS[name]


def _linear(x, w, b):
    return _f("linear")(x, w, b)


def _rnn_step(nonlinearity):
    act = _f("tanh") if nonlinearity == "tanh" else _f("relu")

    def step(x_w, h, c, w_hh, b_hh):
        return act(_linear(h, w_hh, b_hh) + x_w), None
    return step


def _lstm_step(x_w, h, c, w_hh, b_hh):
    gates = _linear(h, w_hh, b_hh) + x_w
    i, f, g, o = _f("chunk")(gates, 4, 1)
    sigmoid = _f("sigmoid")
    cy = sigmoid(f) * c + sigmoid(i) * _f("tanh")(g)
    return sigmoid(o) * _f("tanh")(cy), cy


def _gru_step(x_w, h, c, w_hh, b_hh):
    ir, iz, in_ = _f("chunk")(x_w, 3, 1)
    hr, hz, hn = _f("chunk")(_linear(h, w_hh, b_hh), 3, 1)
    sigmoid = _f("sigmoid")
    reset, update = sigmoid(hr + ir), sigmoid(hz + iz)
    new = _f("tanh")(in_ + hn * reset)
    return (h - new) * update + new, None


def _transpose_inplace(x, dim0, dim1):
    from ..ops.layers import transpose_result
    return transpose_result(x, dim0, dim1)


def _size(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _check_hidden(hx, expected: tuple, what: str = "hidden") -> None:
    if tuple(hx.shape) != expected:
        raise ShapeError(f"Expected {what} size {tuple(expected)}, got {_size(hx.shape)}")


class RNNBase(Module):
    """The layers' shared parameters, checks and loop over layers, directions and steps."""

    public = ("mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
              "bidirectional", "proj_size", "all_weights", "flatten_parameters")

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode, self.input_size, self.hidden_size = mode, int(input_size), int(hidden_size)
        self.num_layers, self.bias, self.batch_first = int(num_layers), bool(bias), bool(batch_first)
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bool(bidirectional), int(proj_size)
        if not 0 <= self.dropout <= 1 or isinstance(dropout, bool):
            raise ProgramValueError("dropout should be a number in range [0, 1] representing the "
                                    "probability of an element being zeroed")
        if self.dropout > 0 and self.num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero "
                          f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=3)
        if self.hidden_size <= 0:
            raise ProgramValueError("hidden_size must be greater than zero")
        if self.num_layers <= 0:
            raise ProgramValueError("num_layers must be greater than zero")
        if self.proj_size:
            raise ProgramValueError("proj_size is not supported in gradcli (LSTM projections)")
        gate_size = _GATES[mode] * self.hidden_size
        dirs = 2 if self.bidirectional else 1
        kw = {} if dtype is None else {"dtype": dtype}
        empty = FUNCTIONS["empty"]
        for layer in range(self.num_layers):
            for direction in range(dirs):
                size_in = self.input_size if layer == 0 else self.hidden_size * dirs
                suffix = "_reverse" if direction == 1 else ""
                self.register_parameter(f"weight_ih_l{layer}{suffix}", Parameter(empty(gate_size, size_in, **kw)))
                self.register_parameter(f"weight_hh_l{layer}{suffix}",
                                        Parameter(empty(gate_size, self.hidden_size, **kw)))
                if self.bias:
                    self.register_parameter(f"bias_ih_l{layer}{suffix}", Parameter(empty(gate_size, **kw)))
                    self.register_parameter(f"bias_hh_l{layer}{suffix}", Parameter(empty(gate_size, **kw)))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _weights(self, layer: int, direction: int) -> tuple:
        suffix = "_reverse" if direction == 1 else ""
        p = self._parameters
        return (p[f"weight_ih_l{layer}{suffix}"], p[f"weight_hh_l{layer}{suffix}"],
                p.get(f"bias_ih_l{layer}{suffix}"), p.get(f"bias_hh_l{layer}{suffix}"))

    @property
    def all_weights(self):
        dirs = 2 if self.bidirectional else 1
        return [[w for w in self._weights(layer, d) if w is not None]
                for layer in range(self.num_layers) for d in range(dirs)]

    def _step(self):
        if self.mode == "LSTM":
            return _lstm_step
        if self.mode == "GRU":
            return _gru_step
        return _rnn_step("tanh" if self.mode == "RNN_TANH" else "relu")

    def forward(self, input, hx=None):
        from .packed import PackedSequence, run_packed
        if isinstance(input, PackedSequence):
            return run_packed(self, input, hx)
        if not isinstance(input, Tensor):
            raise ProgramTypeError(f"{self._get_name()}: expected a Tensor input, got {type(input).__name__}")
        is_lstm = self.mode == "LSTM"
        dim = len(input.shape)
        if dim not in (2, 3):
            raise ShapeError(f"{self._get_name()}: Expected input to be 2D or 3D, got {dim}D tensor instead")
        batched = dim == 3
        unsqueeze, squeeze = FUNCTIONS["unsqueeze"], FUNCTIONS["squeeze"]
        if not batched:
            input = unsqueeze(input, 1)
            if hx is not None:
                hx = tuple(unsqueeze(h, 1) for h in hx) if is_lstm else unsqueeze(hx, 1)
        elif self.batch_first:
            input = FUNCTIONS["transpose"](input, 0, 1)
        if input.shape[-1] != self.input_size:
            raise ShapeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                             f"got {input.shape[-1]}")
        dirs = 2 if self.bidirectional else 1
        batch = input.shape[1]
        expected = (self.num_layers * dirs, batch, self.hidden_size)
        if hx is None:
            zeros = FUNCTIONS["zeros"](*expected, dtype=input.dtype)
            h0, c0 = zeros, (FUNCTIONS["zeros"](*expected, dtype=input.dtype) if is_lstm else None)
        elif is_lstm:
            if not isinstance(hx, tuple) or len(hx) != 2:
                raise ProgramTypeError("LSTM: hx must be a tuple (h_0, c_0)")
            h0, c0 = hx
            _check_hidden(h0, expected, "hidden[0]")
            _check_hidden(c0, expected, "hidden[1]")
        else:
            h0, c0 = hx, None
            _check_hidden(h0, expected)
        output, h_n, c_n = self._run(input, h0, c0, dirs)
        if not batched:
            output = squeeze(output, 1)
            h_n = squeeze(h_n, 1)
            c_n = squeeze(c_n, 1) if c_n is not None else None
        elif self.batch_first:
            # ATen ends LSTM with transpose (TransposeBackward0), RNN and GRU with transpose_ (1)
            output = FUNCTIONS["transpose"](output, 0, 1) if is_lstm else _transpose_inplace(output, 0, 1)
        return (output, (h_n, c_n)) if is_lstm else (output, h_n)

    def _direction(self, layer, direction, dirs, h0, c0):
        """One layer's one direction: its weights and its initial h and c (None but for an LSTM)."""
        w_ih, w_hh, b_ih, b_hh = self._weights(layer, direction)
        index = layer * dirs + direction
        return w_ih, w_hh, b_ih, b_hh, h0[index], (c0[index] if c0 is not None else None)

    def _run(self, input, h0, c0, dirs):
        step = self._step()
        stack, unbind = FUNCTIONS["stack"], FUNCTIONS["unbind"]
        layer_input, finals_h, finals_c = input, [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(dirs):
                w_ih, w_hh, b_ih, b_hh, h, c = self._direction(layer, direction, dirs, h0, c0)
                steps = unbind(_linear(layer_input, w_ih, b_ih), 0)
                order = range(len(steps) - 1, -1, -1) if direction == 1 else range(len(steps))
                hs = [None] * len(steps)
                for t in order:
                    h, c = step(steps[t], h, c, w_hh, b_hh)
                    hs[t] = h
                outputs.append(stack(hs, 0))
                finals_h.append(h)
                finals_c.append(c)
            layer_input = outputs[0] if dirs == 1 else FUNCTIONS["cat"](outputs, len(outputs[0].shape) - 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = _f("dropout")(layer_input, self.dropout, True)
        h_n = stack(finals_h, 0)
        c_n = stack(finals_c, 0) if c0 is not None else None
        return layer_input, h_n, c_n

    def flatten_parameters(self) -> None:
        """Nothing to do: gradcli keeps no fused weight buffer."""

    def extra_repr(self) -> str:
        return _options_repr(f"{self.input_size}, {self.hidden_size}",
                             ("num_layers", self.num_layers, self.num_layers != 1),
                             ("bias", self.bias, self.bias is not True),
                             ("batch_first", self.batch_first, self.batch_first is not False),
                             ("dropout", self.dropout, self.dropout != 0),
                             ("bidirectional", self.bidirectional, self.bidirectional is not False))


class RNN(RNNBase):
    """torch.nn.RNN: h_t = tanh(x_t W_ih^T + b_ih + h_(t-1) W_hh^T + b_hh) (or relu)."""

    public = RNNBase.public + ("nonlinearity",)

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ProgramValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.__dict__["nonlinearity"] = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size,
                         num_layers, bias, batch_first, dropout, bidirectional, 0, device, dtype)


class LSTM(RNNBase):
    """torch.nn.LSTM: input, forget, cell and output gates; returns output, (h_n, c_n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device, dtype)


class GRU(RNNBase):
    """torch.nn.GRU: reset, update and new gates; returns output, h_n."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)


class RNNCellBase(Module):
    """One step of a recurrent layer: weight_ih, weight_hh, bias_ih, bias_hh."""

    public = ("input_size", "hidden_size", "bias")
    mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, bias=True, num_chunks=1, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = int(input_size), int(hidden_size), bool(bias)
        kw = {} if dtype is None else {"dtype": dtype}
        empty = FUNCTIONS["empty"]
        self.weight_ih = Parameter(empty(num_chunks * self.hidden_size, self.input_size, **kw))
        self.weight_hh = Parameter(empty(num_chunks * self.hidden_size, self.hidden_size, **kw))
        if self.bias:
            self.bias_ih = Parameter(empty(num_chunks * self.hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * self.hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input, hx, what: str):
        dim = len(input.shape)
        if dim not in (1, 2):
            raise ShapeError(f"{what}: Expected input to be 1D or 2D, got {dim}D instead")
        if hx is not None and len(hx.shape) != dim:
            raise ShapeError(f"{what}: Expected hidden to be {dim}D, got {len(hx.shape)}D instead")
        batched = dim == 2
        if not batched:
            input = FUNCTIONS["unsqueeze"](input, 0)
        if hx is None:
            hx = FUNCTIONS["zeros"](input.shape[0], self.hidden_size, dtype=input.dtype)
        elif not batched:
            hx = FUNCTIONS["unsqueeze"](hx, 0)
        return input, hx, batched

    def _cell(self, step, input, h, c):
        """One step: the input projection, then `step` (the layers' step function)."""
        return step(_linear(input, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh)


class RNNCell(RNNCellBase):
    """torch.nn.RNNCell: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    public = RNNCellBase.public + ("nonlinearity",)

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ProgramValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.__dict__["nonlinearity"] = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx, "RNNCell")
        h, _ = self._cell(_rnn_step(self.nonlinearity), input, hx, None)
        return h if batched else FUNCTIONS["squeeze"](h, 0)


class LSTMCell(RNNCellBase):
    """torch.nn.LSTMCell: one LSTM step; returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        h0 = None if hx is None else hx[0]
        input, h, batched = self._prepare(input, h0, "LSTMCell")
        c = FUNCTIONS["zeros"](*h.shape, dtype=input.dtype) if hx is None else \
            (hx[1] if batched else FUNCTIONS["unsqueeze"](hx[1], 0))
        h, c = self._cell(_lstm_step, input, h, c)
        if not batched:
            return FUNCTIONS["squeeze"](h, 0), FUNCTIONS["squeeze"](c, 0)
        return h, c


class GRUCell(RNNCellBase):
    """torch.nn.GRUCell: one GRU step; returns h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx, "GRUCell")
        h, _ = self._cell(_gru_step, input, hx, None)
        return h if batched else FUNCTIONS["squeeze"](h, 0)
