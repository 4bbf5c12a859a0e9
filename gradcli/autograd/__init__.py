"""torch.autograd's API: grad, backward, Function, gradcheck, functional."""
from __future__ import annotations

from .engine import backward, grad

__all__ = ["backward", "grad"]
