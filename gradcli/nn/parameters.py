"""torch.nn.ParameterList and ParameterDict: Parameters registered under "0", "1"... or by key.

A plain tensor put in one becomes a Parameter, as PyTorch's do; their reprs are PyTorch's
(one line per entry with its type, dtype and size).
"""
from __future__ import annotations

from .._tensor import Tensor
from ..errors import ProgramError, ProgramTypeError
from ..ops.factories import Parameter
from .modules import Module

__all__ = ["ParameterList", "ParameterDict"]

_TYPES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "int64": "LongTensor",
          "int32": "IntTensor", "bool": "BoolTensor"}


def _as_parameter(value):
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _size(t) -> str:
    return "x".join(str(s) for s in t.shape)


class ParameterList(Module):
    """A list of Parameters; indexing, len, iteration, append and extend."""

    program_iterable = True
    public = ("append", "extend")

    def __init__(self, values=None):
        super().__init__()
        if values is not None:
            self.extend(values)

    def _index(self, idx) -> int:
        n = len(self._parameters)
        idx = int(idx)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return idx % n

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList(list(self._parameters.values())[idx])
        return self._parameters[str(self._index(idx))]

    def __setitem__(self, idx, value):
        self.register_parameter(str(self._index(idx)), _as_parameter(value))

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters.values()))

    def append(self, value):
        self.register_parameter(str(len(self)), _as_parameter(value))
        return self

    def extend(self, values):
        for value in list(values):
            self.append(value)
        return self

    def forward(self, *args, **kwargs):
        raise ProgramError("ParameterList is not callable: use the Parameters it holds")

    def extra_repr(self):
        return "\n".join(f"  ({k}): Parameter containing: [{_dtype(p)} of size {_size(p)}]"
                         for k, p in self._parameters.items())


def _dtype(p) -> str:
    return "torch." + str(p._data.dtype)


class ParameterDict(Module):
    """A dict of Parameters by string key, in insertion order."""

    program_iterable = True
    public = ("keys", "values", "items", "update", "get", "pop")

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, value):
        if not isinstance(key, str):
            raise ProgramTypeError(f"parameter name should be a string. Got {type(key).__name__}")
        self.register_parameter(key, _as_parameter(value))

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters))

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return list(self._parameters.keys())

    def values(self):
        return list(self._parameters.values())

    def items(self):
        return list(self._parameters.items())

    def get(self, key, default=None):
        return self._parameters.get(key, default)

    def pop(self, key):
        return self._parameters.pop(key)

    def update(self, parameters):
        items = parameters.items() if isinstance(parameters, (dict, ParameterDict)) else parameters
        for key, value in items:
            self[key] = value

    def forward(self, *args, **kwargs):
        raise ProgramError("ParameterDict is not callable: use the Parameters it holds")

    def extra_repr(self):
        return "\n".join(f"  ({k}): Parameter containing: [torch.{_TYPES.get(str(p._data.dtype), 'Tensor')} "
                         f"of size {_size(p)}]" for k, p in self._parameters.items())
