"""Embedding: a table of vectors looked up by index."""
from __future__ import annotations

from ...errors import ProgramValueError
from ...ops import FUNCTIONS
from ...ops.factories import Parameter
from .. import init
from .module import Module, _dt, _function, _tensor_arg


class Embedding(Module):
    """A lookup table, weight ~ N(0, 1); the padding_idx row is zero and gets no gradient."""

    public = ("num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
              "scale_grad_by_freq", "sparse")

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None:
            padding_idx = int(padding_idx)
            if not -self.num_embeddings <= padding_idx < self.num_embeddings:
                raise ProgramValueError("Padding_idx must be within num_embeddings")
            padding_idx %= self.num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(FUNCTIONS["empty"](self.num_embeddings, self.embedding_dim,
                                                       **_dt(dtype)))
            init.normal_(self.weight)
            if padding_idx is not None:
                self.weight._data[padding_idx] = 0
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def forward(self, input):
        weight = _tensor_arg(self.weight, "embedding", "weight", 2)
        return _function("embedding")(input, weight, self.padding_idx, self.max_norm,
                                      self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s
