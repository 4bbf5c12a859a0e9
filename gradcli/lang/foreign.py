"""Hints for code written for another language or library: numpy's `np.`, `math.`,
`input()`, `.numpy()`, torch.nn's module classes.

A name close in spelling is often the wrong suggestion for these (`math` is not
`matmul`): the hint says what is missing and what to write instead.
"""
from __future__ import annotations

# Module names a program may use only after importing them (or not at all).
_MODULE_HINTS = {
    "np": "import numpy as np",
    "numpy": "import numpy as np",
    "math": "import math",
}

_NAME_HINTS = {
    "input": "a program reads no input: give an input a value with --set NAME=VALUE",
    "open": "a program cannot read files: give an input a value with --set NAME=VALUE",
}

_TENSOR_ATTRIBUTE_HINTS = {
    "numpy": "gradcli has no numpy arrays: use .tolist() for the values as a list, .item() for one "
             "number, or .detach() for a tensor without the graph",
    "cuda": "gradcli runs on the CPU only: leave out .cuda()",
}

# torch.nn module classes and what to write instead.
_NN_INSTEAD = {
    "Linear": "a weight and a bias tensor: W = torch.randn(n_out, n_in, requires_grad=True); "
              "b = torch.zeros(n_out, requires_grad=True); y = x @ W.T + b (or F.linear(x, W, b))",
    "Sequential": "the layers called one after another on tensors, or a def",
    "Module": "a def that takes the parameters as tensors",
}


def name_hint(name: str, attr: str | None = None) -> str | None:
    """A hint for an unknown name (`attr` when it is used as `name.attr`), or None."""
    module = _MODULE_HINTS.get(name)
    if module is not None:
        instead = f"torch.{attr}" if attr else "torch's functions (torch.sin, torch.exp, ...)"
        return f"{name!r} is not defined: write `{module}` at the top, or use {instead}"
    return _NAME_HINTS.get(name)


def tensor_attribute_hint(attr: str) -> str | None:
    return _TENSOR_ATTRIBUTE_HINTS.get(attr)


def namespace_hint(namespace: str, attr: str, functional: dict) -> str | None:
    """A hint for a missing member of torch.nn: the module classes gradcli lacks."""
    if namespace != "torch.nn" or not attr[:1].isupper():
        return None
    instead = _NN_INSTEAD.get(attr)
    if instead is None:
        wanted = attr.lower().removesuffix("loss")
        match = next((f for f in sorted(functional) if f.replace("_", "") == wanted), None)
        instead = f"the function F.{match} (torch.nn.functional)" if match else \
            "tensors and the functions of torch.nn.functional (F)"
    return f"nn.{attr} is not supported: write {instead}"
