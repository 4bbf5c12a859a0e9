"""`torch.nn` as far as gradcli goes: modules (`modules`), losses (`loss`), `init`."""
from __future__ import annotations

from .loss import *  # noqa: F401,F403
from .loss import __all__ as _loss_all

__all__ = list(_loss_all)
