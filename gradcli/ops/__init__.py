"""The ops: the op table, the public functions made from it, and the Tensor methods.

`OPS` is the table (one `Op` per node kind). `FUNCTIONS` maps each public name of
SPEC 2.3 to its function; most come straight from one op (`defop` exports them),
a few (`sum`, `pow`, `max`, `matmul`, indexing) choose between ops by their
arguments, as PyTorch's overloads do. The Tensor's methods and operators are
attached from the same table (tensor_methods.py, once, last), so `x.sin()`, `torch.sin(x)` and the language's
`sin(x)` are one thing.
"""
from __future__ import annotations

from .apply import apply
from .registry import ARRAYS, FUNCTIONS, METHODS, NN_FUNCTIONS, OPS, TENSORS, export

# Each module defines its ops (and dispatching functions) on import.
from . import arith, division, elementwise, broadcast, select, shape, indexing, reduce, extremes, sorting, linalg, einsum, nn, factories, convert  # noqa: E402,F401
from . import views  # noqa: E402,F401  (view tracking and in-place ops)
from . import batching, dual  # noqa: E402  (vmap's and forward mode's state)
from . import batching_guards  # noqa: E402  (vmap: the functions that read tensors' values)
from . import indexed  # noqa: E402,F401  (index_select/index_add, all/any, torch.sin_)
from . import conv  # noqa: E402,F401  (conv, pooling, embedding, layer_norm, batch_norm)
from . import losses  # noqa: E402,F401  (l1, smooth_l1, huber, bce_with_logits, kl_div)
from . import layers  # noqa: E402,F401  (conv_transpose, interpolate, pad, prelu, attention, 1-d pools)
from . import criteria  # noqa: E402,F401  (margin, ranking, embedding and likelihood losses)
from . import activations  # noqa: E402,F401  (selu, celu, mish, hardswish, glu, threshold, ...)
from . import tensor_methods  # noqa: E402  (last: every Tensor method and operator, attached once)
from . import sampling  # noqa: E402,F401  (random sampling, nonzero/unique, scatter, type_as)

batching_guards.install_guards()   # (before the methods are attached: some are guarded)
tensor_methods.attach()

globals().update(FUNCTIONS)


def _load_batching_rules() -> None:
    """vmap's per-op rules, on its first batch level: only vmap runs them."""
    from . import batching_rules  # noqa: F401  (fills batching.RULES as it loads)


batching.USES.__dict__.update(apply=apply, OPS=OPS, FUNCTIONS=FUNCTIONS, dual=dual,
                              inplace=views._inplace, load_rules=_load_batching_rules)

__all__ = ["ARRAYS", "FUNCTIONS", "METHODS", "NN_FUNCTIONS", "OPS", "TENSORS", "apply", "export",
           *FUNCTIONS]
