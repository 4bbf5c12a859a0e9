"""`torch.optim`: the optimizers (`optimizers.py`; Adadelta, Adamax, NAdam and RAdam in
`adaptive.py`, LBFGS in `lbfgs.py`) and, as `optim.lr_scheduler`, the
learning-rate schedulers (`lr_scheduler.py`, which builds on the optimizers and not the
other way round).

`__all__` is what a program reaches as `torch.optim.*` (read by `lang.builtins`); `fma`
is exported for the tests that check the updates' rounding.
"""
from . import lr_scheduler
from .adaptive import Adadelta, Adamax, NAdam, RAdam
from .lbfgs import LBFGS
from .optimizers import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop, fma

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Optimizer", "Adadelta", "Adamax", "NAdam",
           "RAdam", "LBFGS"]
