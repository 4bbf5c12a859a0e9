"""Activation layers beyond `modules`': PReLU (a learnt negative slope, one or one per channel),
ReLU6, Hardtanh, SELU, CELU, Mish, Hardswish, Hardsigmoid, GLU, Threshold, Softmin, Softsign,
LogSigmoid, Tanhshrink, and the two similarity layers; each calls its F function when called."""
from __future__ import annotations

from ..ops import FUNCTIONS, NN_FUNCTIONS
from ..ops.factories import Parameter
from .modules import Module

__all__ = ["PReLU", "ReLU6", "Hardtanh", "SELU", "CELU", "Mish", "Hardswish", "Hardsigmoid", "GLU", "Threshold",
           "Softmin", "Softsign", "LogSigmoid", "Tanhshrink", "CosineSimilarity", "PairwiseDistance"]


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


class _Elementwise(Module):
    """An activation calling F.<function>(input, **options); repr lists `shown` (inplace only if set)."""

    function = ""
    options: tuple = ()
    shown: tuple = ()

    def forward(self, input):
        return NN_FUNCTIONS[self.function](input, *[getattr(self, name) for name in self.options])

    def extra_repr(self):
        parts = [f"{name}={getattr(self, name)}" for name in self.shown]
        if getattr(self, "inplace", False):
            parts.append("inplace=True")
        return ", ".join(parts)


def _inplace_only(name, function, doc):
    def __init__(self, inplace=False):
        Module.__init__(self)
        self.inplace = bool(inplace)
    return type(name, (_Elementwise,), {"__init__": __init__, "function": function, "public": ("inplace",),
                                        "__module__": __name__, "__doc__": doc})


def _no_options(name, function, doc):
    def __init__(self):
        Module.__init__(self)
    return type(name, (_Elementwise,), {"__init__": __init__, "function": function, "__module__": __name__,
                                        "__doc__": doc})


ReLU6 = _inplace_only("ReLU6", "relu6", "min(max(0, x), 6)")
SELU = _inplace_only("SELU", "selu", "scale * elu(x, alpha) with PyTorch's constants")
Mish = _inplace_only("Mish", "mish", "x * tanh(softplus(x))")
Hardswish = _inplace_only("Hardswish", "hardswish", "x * relu6(x + 3) / 6")
Hardsigmoid = _inplace_only("Hardsigmoid", "hardsigmoid", "relu6(x + 3) / 6")
Softsign = _no_options("Softsign", "softsign", "x / (1 + |x|)")
LogSigmoid = _no_options("LogSigmoid", "logsigmoid", "log(sigmoid(x))")
Tanhshrink = _no_options("Tanhshrink", "tanhshrink", "x - tanh(x)")


class Hardtanh(_Elementwise):
    """x clamped to [min_val, max_val]."""

    function, options, shown = "hardtanh", ("min_val", "max_val"), ("min_val", "max_val")
    public = ("min_val", "max_val", "inplace")

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, bool(inplace)


class CELU(_Elementwise):
    function, options, shown = "celu", ("alpha",), ("alpha",)
    public = ("alpha", "inplace")

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = float(alpha), bool(inplace)


class GLU(_Elementwise):
    function, options, shown = "glu", ("dim",), ("dim",)
    public = ("dim",)

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = int(dim)


class Threshold(_Elementwise):
    function, options, shown = "threshold", ("threshold", "value"), ("threshold", "value")
    public = ("threshold", "value", "inplace")

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, bool(inplace)


class Softmin(_Elementwise):
    function, options, shown = "softmin", ("dim",), ("dim",)
    public = ("dim",)

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim


class CosineSimilarity(Module):
    """F.cosine_similarity(x1, x2, dim, eps)."""

    public = ("dim", "eps")

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = int(dim), float(eps)

    def forward(self, x1, x2):
        return NN_FUNCTIONS["cosine_similarity"](x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """F.pairwise_distance(x1, x2, p, eps, keepdim)."""

    public = ("norm", "eps", "keepdim")

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = float(p), float(eps), bool(keepdim)

    def forward(self, x1, x2):
        return NN_FUNCTIONS["pairwise_distance"](x1, x2, self.norm, self.eps, self.keepdim)
