"""Embedding: a lookup table of trainable vectors, one row per index."""
import numpy as np

from ..tensor import get_default_dtype
from . import functional as F
from . import init
from .arguments import check_device
from .module import Module, Parameter


class Embedding(Module):
    """Map integer ids to rows of ``weight`` (num_embeddings, embedding_dim), drawn N(0, 1).

    ``padding_idx`` marks a row that starts at zero and is never trained.
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        check_device(device)
        if max_norm is not None or scale_grad_by_freq or sparse:
            raise NotImplementedError("minigrad's Embedding does not support max_norm, "
                                      "scale_grad_by_freq or sparse")
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None:
            if not -self.num_embeddings <= padding_idx < self.num_embeddings:
                raise ValueError(f"padding_idx must be within num_embeddings "
                                 f"({self.num_embeddings}), got {padding_idx}")
            padding_idx %= self.num_embeddings
        self.padding_idx = padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        dtype = np.dtype(dtype or get_default_dtype())
        if _weight is None:
            self.weight = Parameter(np.empty((self.num_embeddings, self.embedding_dim),
                                             dtype=dtype), dtype=dtype,
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight.data[self.padding_idx] = 0

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self):
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None):
        rows, dim = embeddings.shape
        return cls(rows, dim, padding_idx=padding_idx, _weight=embeddings, _freeze=freeze)
