"""torch.nn.PReLU: a leaky ReLU whose negative slope is a Parameter (one, or one per channel)."""
from __future__ import annotations

from ..ops import FUNCTIONS, NN_FUNCTIONS
from ..ops.factories import Parameter
from .modules import Module

__all__ = ["PReLU"]


class PReLU(Module):
    """F.prelu(input, weight), weight filled with `init` (0.25)."""

    public = ("num_parameters", "init")

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = int(num_parameters), float(init)
        kw = {} if dtype is None else {"dtype": dtype}
        self.weight = Parameter(FUNCTIONS["full"]((self.num_parameters,), self.init, **kw))

    def reset_parameters(self):
        self.weight._data[...] = self.init

    def forward(self, input):
        return NN_FUNCTIONS["prelu"](input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"
