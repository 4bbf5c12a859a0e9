"""torch.autograd's API: grad, backward, Function, gradcheck, gradgradcheck, functional."""
from __future__ import annotations

from . import functional
from .engine import backward, grad
from .function import Function, FunctionCtx
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = ["Function", "FunctionCtx", "GradcheckError", "backward", "functional", "grad",
           "gradcheck", "gradgradcheck"]
