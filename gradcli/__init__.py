"""gradcli: a gradient calculator and autograd inspector with its own reverse-mode engine.

`import gradcli` gives the engine with PyTorch's names: `gradcli.tensor`,
`gradcli.sin`, `gradcli.autograd.grad`, `gradcli.no_grad`, ...
"""
from __future__ import annotations

import gc as _gc

# The imports below (numpy's included) make some 40,000 objects that live as long as the
# process: the op table, classes, functions. The cyclic collector, run every 700 new objects
# at its default threshold, would walk them again and again and find nothing, and once more
# when re-enabled (25M instructions of a 500M command-line start): it is paused while they
# are made, they are moved to the oldest generation, and it is restored as it was
# (tests/engine/test_import_gc.py).
_collecting = _gc.isenabled()
_gc.disable()
try:
    from ._tensor import (Tensor, Size, enable_grad, is_grad_enabled, no_grad,
                          set_grad_enabled)
    from . import ops as _ops
    from . import autograd
    from .graph.saved_hooks import inference_mode
    from .dtypes import NAMES as _DTYPE_NAMES, dtype
finally:
    if _collecting:
        if not _gc.get_freeze_count():
            # into the oldest generation, where the collector's frequent young passes do not
            # walk them (freeze then unfreeze: no collection, none left frozen)
            _gc.freeze()
            _gc.unfreeze()
        _gc.enable()

globals().update(_DTYPE_NAMES)

globals().update(_ops.FUNCTIONS)
Tensor = _ops.convert.Tensor  # the class (torch.Tensor(...) the constructor is in FUNCTIONS)

__version__ = "0.1.0"
