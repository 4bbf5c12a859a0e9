"""The activation layers (one class per F function, made by `_activation`) and Dropout."""
from __future__ import annotations

from ...errors import ProgramTypeError, ProgramValueError
from .module import Module, _function


# --- activations and dropout ---------------------------------------------------


def _activation(name: str, function: str, options: tuple = (), defaults: tuple = (),
                repr_options: tuple | None = None):
    """A layer that calls F.function(input, **options), its repr listing `repr_options`."""

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        if len(args) > len(options):
            raise ProgramTypeError(f"{name}.__init__() takes {len(options) + 1} positional "
                                   f"arguments but {len(args) + 1} were given")
        values = dict(zip(options, defaults))
        values.update(zip(options, args))
        for key, value in kwargs.items():
            if key not in options:
                raise ProgramTypeError(f"{name}.__init__() got an unexpected keyword argument '{key}'")
            values[key] = value
        for key in options:
            object.__setattr__(self, key, values[key])

    def forward(self, input):
        kwargs = {key: getattr(self, key) for key in options if key != "inplace"}
        return _function(function)(input, **kwargs)

    def extra_repr(self):
        shown = options if repr_options is None else repr_options
        parts = []
        for key in shown:
            value = getattr(self, key)
            if key == "inplace":
                if value:
                    parts.append("inplace=True")
                continue
            parts.append(f"{key}={value}")
        return ", ".join(parts)

    cls = type(name, (Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr,
                                 "public": tuple(options), "__module__": __name__,
                                 "__doc__": f"torch.nn.{name}: F.{function}."})
    return cls


ReLU = _activation("ReLU", "relu", ("inplace",), (False,))
LeakyReLU = _activation("LeakyReLU", "leaky_relu", ("negative_slope", "inplace"), (0.01, False))
ELU = _activation("ELU", "elu", ("alpha", "inplace"), (1.0, False))
GELU = _activation("GELU", "gelu", ("approximate",), ("none",))
SiLU = _activation("SiLU", "silu", ("inplace",), (False,))
Sigmoid = _activation("Sigmoid", "sigmoid")
Tanh = _activation("Tanh", "tanh")
Softplus = _activation("Softplus", "softplus", ("beta", "threshold"), (1.0, 20.0))
Softmax = _activation("Softmax", "softmax", ("dim",), (None,))
LogSoftmax = _activation("LogSoftmax", "log_softmax", ("dim",), (None,))


def _gelu_repr(self):
    return f"approximate='{self.approximate}'"


GELU.extra_repr = _gelu_repr


class Dropout(Module):
    """F.dropout(input, p, training): zeroes in train mode, the identity in eval mode."""

    public = ("p", "inplace")

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= float(p) <= 1.0:
            raise ProgramValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = float(p), bool(inplace)

    def forward(self, input):
        return _function("dropout")(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
