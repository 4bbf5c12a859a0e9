"""Every name of `torch.nn`'s modules, gathered from the files that define them: the base
(`module.py`: Module, Parameter handling, hooks), the containers (`container.py`) and the
layers by family (`linear.py`, `activation.py`, `conv.py`, `sparse.py`, `normalization.py`),
laid out as PyTorch's `torch/nn/modules/`. Imported on the first read of a name of
`gradcli.nn.modules` (its `__init__`), so the Module base alone loads no layer.
"""
from __future__ import annotations

from ...ops.factories import Parameter
from .module import CALL_STACK, NODE_MODULE, Module, module_paths, module_tensors  # noqa: F401
from .linear import Bilinear, Flatten, Identity, Linear, Unflatten
from .container import ModuleDict, ModuleList, Sequential
from .activation import (ELU, GELU, Dropout, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax,
                         Softplus, Tanh)
from .conv import AdaptiveAvgPool2d, AvgPool2d, Conv1d, Conv2d, MaxPool2d
from .sparse import Embedding
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
# the helpers layers are written with, for layer files elsewhere in gradcli.nn that import
# them from here as they did from the single-file modules.py
from .module import _addindent, _check_name, _dt, _function, _is_hook  # noqa: F401
from .linear import _uniform_parameter  # noqa: F401
from .activation import _activation  # noqa: F401
from .conv import _ConvNd, _Pool2d, _tuple  # noqa: F401
from .normalization import _BatchNorm  # noqa: F401
