"""gradcli: a gradient calculator and autograd inspector with its own reverse-mode engine.

`import gradcli` gives the engine with PyTorch's names: `gradcli.tensor`,
`gradcli.sin`, `gradcli.autograd.grad`, `gradcli.no_grad`, ...
"""
from __future__ import annotations

from ._tensor import (Tensor, Size, enable_grad, inference_mode, is_grad_enabled, no_grad,
                      set_grad_enabled)
from . import ops as _ops
from . import autograd

globals().update(_ops.FUNCTIONS)

__version__ = "0.1.0"
