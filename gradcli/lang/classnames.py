"""The names classes print with, as PyTorch and Python print them.

`print(type(m))` is `<class 'torch.nn.modules.linear.Linear'>` in PyTorch, `print(int)`
`<class 'int'>`: a class a program holds (a Builtin whose function is a class, the
Tensor class, a builtin such as `int`) prints with its PyTorch or Python name, never
gradcli's module path. PyTorch's paths are recorded in `data/torch_classes.json`
(benchmarks/record_torch_classes.py). Installed as `errors.CLASS_NAME` when the
builtins are made, so that Builtin's and Tensor's reprs (which cannot import the
language) find it.
"""
from __future__ import annotations

import json

_TORCH: dict = {}
# the language's own classes, by what they stand for
_OWN: dict = {}


def torch_classes() -> dict:
    """PyTorch 2.13's class paths by short name (`Linear` -> `torch.nn.modules.linear.Linear`)."""
    if not _TORCH:
        from importlib import resources  # with tempfile, shutil, random: not at start-up

        text = resources.files("gradcli.lang").joinpath("data/torch_classes.json").read_text()
        _TORCH.update(json.loads(text)["classes"])
    return _TORCH


def register(fn, qualified: str) -> None:
    """`fn` (a builtin's function, a class) prints as `<class 'qualified'>`."""
    _OWN[fn] = qualified


def register_torch(cls, name: str) -> None:
    """A library class the language makes (DataLoader) prints with PyTorch's path for `name`
    (looked up when first printed: the table is not read at start-up)."""
    _OWN[cls] = _Torch(name)


class _Torch(str):
    """A name to look up in PyTorch's table when printed."""


def class_name(fn) -> str | None:
    """The name `fn` prints with as a class, or None if it is no class (a plain function)."""
    try:
        own = _OWN.get(fn)
    except TypeError:   # an unhashable callable: no class
        return None
    if own is not None:
        return torch_classes().get(own, own) if own.__class__ is _Torch else own
    if not isinstance(fn, type):
        return None
    if fn.__module__.startswith("gradcli"):
        return torch_classes().get(fn.__name__, fn.__name__)
    return fn.__qualname__
