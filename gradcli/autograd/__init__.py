"""torch.autograd's API: grad, backward, Function, gradcheck, gradgradcheck, functional."""
from __future__ import annotations

import importlib

from . import functional
from .engine import backward, grad
from .function import Function, FunctionCtx

__all__ = ["Function", "FunctionCtx", "GradcheckError", "backward", "functional", "grad",
           "gradcheck", "gradgradcheck"]

_CHECKS = ("GradcheckError", "gradcheck", "gradgradcheck")


def __getattr__(name: str):
    """gradcheck's names, imported when first asked for: a run that checks nothing does not
    load the checker. (Its module is named like its function: the function wins, as in an
    eager `from .gradcheck import gradcheck`.)"""
    if name in _CHECKS:
        module = importlib.import_module(f"{__name__}.gradcheck")
        globals().update({n: getattr(module, n) for n in _CHECKS})
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
