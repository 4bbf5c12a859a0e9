"""Every name of `torch.nn` as far as gradcli goes: modules (`modules`), losses (`loss`), `init`,
the other layer files; gathered here and imported on the first read of one (`gradcli.nn`)."""
from __future__ import annotations

from . import init  # noqa: F401
from . import utils  # noqa: F401
from .loss import *  # noqa: F401,F403
from .loss import __all__ as _loss_all
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyConv1d, LazyConv2d, LazyLinear  # noqa: F401
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: F401
from .spatial import *  # noqa: F401,F403
from .spatial import __all__ as _spatial_all
from .activation import *  # noqa: F401,F403
from .activation import __all__ as _activation_all
from .parameters import ParameterDict, ParameterList  # noqa: F401
from .transformer import *  # noqa: F401,F403
from .transformer import __all__ as _transformer_all
from .criteria import *  # noqa: F401,F403
from .criteria import __all__ as _criteria_all
from . import namespaces  # noqa: F401

_tail = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyBatchNorm1d", "LazyBatchNorm2d",
         "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
         *_spatial_all, *_activation_all, "ParameterList", "ParameterDict", *_transformer_all,
         *_criteria_all]
__all__ = list(_modules_all) + [name for name in _loss_all if name not in _modules_all] + _tail
