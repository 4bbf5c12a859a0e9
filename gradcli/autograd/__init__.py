"""torch.autograd's API: grad, backward, Function, gradcheck, gradgradcheck, functional."""
from __future__ import annotations

from . import functional
from .engine import backward, grad
from .function import Function, FunctionCtx
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from ..ops import dual as _dual

_dual.ENGINE_GRAD[0] = grad   # forward mode's TRANSPOSE rules (ops, below the engine) run `grad`

__all__ = ["Function", "FunctionCtx", "GradcheckError", "backward", "functional", "grad",
           "gradcheck", "gradgradcheck"]
