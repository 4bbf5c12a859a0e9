"""Layers of weights and reshapes: Identity, Linear, Bilinear, Flatten, Unflatten."""
from __future__ import annotations

import math

from ...ops import FUNCTIONS, NN_FUNCTIONS
from ...ops.factories import Parameter
from .. import init
from .module import Module, _dt, _function


# --- layers ------------------------------------------------------------------


def _uniform_parameter(shape, bound: float) -> Parameter:
    p = Parameter(FUNCTIONS["empty"](*shape))
    init.uniform_(p, -bound, bound)
    return p


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b, with PyTorch's default initialisation (kaiming_uniform_(a=sqrt(5)))."""

    public = ("in_features", "out_features")

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = Parameter(FUNCTIONS["empty"](self.out_features, self.in_features, **_dt(dtype)))
        self.bias = Parameter(FUNCTIONS["empty"](self.out_features, **_dt(dtype))) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return _function("linear")(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, " \
               f"bias={self.bias is not None}"


class Bilinear(Module):
    """y_k = x1^T A_k x2 + b_k (an einsum, 'bi,kij,bj->bk')."""

    public = ("in1_features", "in2_features", "out_features")

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = int(in1_features), int(in2_features)
        self.out_features = int(out_features)
        bound = 1 / math.sqrt(self.in1_features)
        self.weight = _uniform_parameter((self.out_features, self.in1_features, self.in2_features), bound)
        if bias:
            self.bias = _uniform_parameter((self.out_features,), bound)
        else:
            self.register_parameter("bias", None)

    def forward(self, input1, input2):
        bilinear = NN_FUNCTIONS.get("bilinear")
        if bilinear is not None:
            return bilinear(input1, input2, self.weight, self.bias)
        out = FUNCTIONS["einsum"]("...i,kij,...j->...k", input1, self.weight, input2)
        return out if self.bias is None else out + self.bias

    def extra_repr(self):
        return f"in1_features={self.in1_features}, in2_features={self.in2_features}, " \
               f"out_features={self.out_features}, bias={self.bias is not None}"


class Flatten(Module):
    public = ("start_dim", "end_dim")

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = int(start_dim), int(end_dim)

    def forward(self, input):
        return FUNCTIONS["flatten"](input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    public = ("dim", "unflattened_size")

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = int(dim), tuple(int(s) for s in unflattened_size)

    def forward(self, input):
        return FUNCTIONS["unflatten"](input, self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"

