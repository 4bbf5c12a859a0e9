"""`torch.nn`'s modules, laid out as PyTorch's `torch/nn/modules/`: the base (`module.py`),
the containers (`container.py`) and the layers by family.

`gradcli.nn.modules.<Name>` names every layer, and the helpers the rest of the package
reads (`module_paths`, `module_tensors`, NODE_MODULE) come from here too: all read from
`public.py`, imported on the first read of one (PEP 562), so that importing the Module
base (`gradcli.nn.modules.module`) loads no layer.
"""
from __future__ import annotations

__all__ = [
    "Module", "Parameter", "Linear", "Bilinear", "Identity", "Flatten", "Unflatten",
    "Sequential", "ModuleList", "ModuleDict",
    "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softplus", "Softmax",
    "LogSoftmax", "Dropout",
    "Conv1d", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "Embedding", "LayerNorm",
    "BatchNorm1d", "BatchNorm2d",
]


def public_names(package: str):
    """A package's PEP 562 `__getattr__`: its names read from its `public.py` on first use."""
    import importlib

    def __getattr__(name: str):
        if name == "public":  # being imported: the import system finds it in sys.modules
            raise AttributeError(name)
        try:
            return getattr(importlib.import_module(package + ".public"), name)
        except AttributeError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
    return __getattr__


__getattr__ = public_names(__name__)
