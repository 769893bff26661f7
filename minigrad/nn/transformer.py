"""The transformer encoder layer (and a stack of them), with torch's names and options.

A layer is self-attention then a feed-forward block, each with a residual
connection, a layer norm and dropout. ``norm_first=False`` (torch's default, the
original paper) normalises after each residual sum; ``norm_first=True`` (GPT-2
style) normalises each block's input instead.
"""
import copy

import numpy as np

from .. import ops
from . import functional as F
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm
from .sequence_functional import causal_mask

_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


def _activation(activation):
    if callable(activation):
        return activation
    if activation not in _ACTIVATIONS:
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return _ACTIVATIONS[activation]


class TransformerEncoderLayer(Module):
    """Self-attention + feed-forward, torch's submodule names: ``self_attn``, ``linear1``,
    ``dropout``, ``linear2``, ``norm1``, ``norm2``, ``dropout1``, ``dropout2``."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, device=device, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, device=device, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, device=device, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation_name = activation if isinstance(activation, str) else None
        self.activation = _activation(activation)

    def _self_attention(self, x, mask, padding_mask, is_causal):
        out = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=padding_mask,
                             need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(out)

    def _feed_forward(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        if is_causal and src_mask is None:   # build the mask the hint describes
            length = src.shape[1] if (self.self_attn.batch_first and src.ndim == 3) else src.shape[0]
            src_mask = ~causal_mask(length, length)
        x = src
        if self.norm_first:
            x = ops.add(x, self._self_attention(self.norm1(x), src_mask, src_key_padding_mask,
                                                is_causal))
            x = ops.add(x, self._feed_forward(self.norm2(x)))
        else:
            x = self.norm1(ops.add(x, self._self_attention(x, src_mask, src_key_padding_mask,
                                                           is_causal)))
            x = self.norm2(ops.add(x, self._feed_forward(x)))
        return x


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer`` (``layers.0``, ...), then optional ``norm``."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=bool(is_causal))
        return x if self.norm is None else self.norm(x)


# torch keeps the mask helper on the class; so do we (True above the diagonal = blocked)
def generate_square_subsequent_mask(size, dtype=np.float32):
    """Float (size, size) mask: 0 on and below the diagonal, -inf above (torch's helper)."""
    return np.triu(np.full((size, size), -np.inf, dtype=dtype), k=1)
