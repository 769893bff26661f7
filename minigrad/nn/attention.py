"""Multi-head attention with torch's arguments, parameter names and layouts.

Parameters, as torch names them: ``in_proj_weight`` (3E, E) holds the query, key
and value projections stacked in that order, ``in_proj_bias`` (3E,), and
``out_proj`` a Linear(E, E). Heads are a reshape, never a loop: (N, L, E) becomes
(N, heads, L, E / heads) and every head runs in the same batched matmul.
"""
import math

import numpy as np

from .. import ops
from ..tensor import Tensor, as_tensor, get_default_dtype
from . import functional as F
from . import init
from .linear import Linear
from .arguments import check_device
from .module import Module, Parameter


def _as_bool_or_float(mask, name):
    array = mask.data if isinstance(mask, Tensor) else np.asarray(mask)
    if array.dtype != bool and array.dtype.kind != "f":
        raise TypeError(f"MultiheadAttention: {name} must be boolean (True = ignore) or float "
                        f"(added to the scores), got dtype {array.dtype}")
    return array


def _blocked_to_additive(array, dtype):
    """torch's MultiheadAttention convention: in a boolean mask True means *may not* attend."""
    if array.dtype == bool:
        return np.where(array, -np.inf, 0.0).astype(dtype)
    return array.astype(dtype, copy=False)


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of size ``embed_dim // num_heads``.

    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)`` returns ``(output, weights)`` with
    weights (N, L, S) averaged over heads (or (N, heads, L, S)), or None when
    ``need_weights=False``. Inputs are (L, N, E), or (N, L, E) with ``batch_first``,
    or unbatched (L, E). Masks follow torch: a boolean True *blocks* a position.
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        check_device(device)
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("minigrad's MultiheadAttention does not support "
                                      "add_bias_kv or add_zero_attn")
        if (kdim not in (None, embed_dim)) or (vdim not in (None, embed_dim)):
            raise NotImplementedError("minigrad's MultiheadAttention needs kdim = vdim = embed_dim")
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})")
        self.embed_dim, self.num_heads = int(embed_dim), int(num_heads)
        self.kdim = self.vdim = self.embed_dim
        self._qkv_same_embed_dim = True
        self.head_dim = self.embed_dim // self.num_heads
        self.dropout, self.batch_first = float(dropout), batch_first
        self.add_zero_attn = False
        dtype = np.dtype(dtype or get_default_dtype())
        e = self.embed_dim
        self.in_proj_weight = Parameter(np.empty((3 * e, e), dtype=dtype), dtype=dtype)
        if bias:
            self.in_proj_bias = Parameter(np.empty(3 * e, dtype=dtype), dtype=dtype)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(e, e, bias=bias, dtype=dtype)
        self.bias_k = self.bias_v = None
        self._reset_parameters()

    def _reset_parameters(self):
        """torch's: xavier-uniform input projection, zero biases, default out_proj weight."""
        init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)

    def _project(self, x, part):
        e = self.embed_dim
        weight = self.in_proj_weight[part * e:(part + 1) * e]
        bias = None if self.in_proj_bias is None else self.in_proj_bias[part * e:(part + 1) * e]
        return F.linear(x, weight, bias)

    def _heads(self, x):
        """(N, L, E) -> (N, heads, L, head_dim)."""
        n, length, _ = x.shape
        return ops.permute(ops.reshape(x, (n, length, self.num_heads, self.head_dim)), (0, 2, 1, 3))

    def _mask(self, attn_mask, key_padding_mask, batch, length, source, dtype):
        """One additive mask broadcastable to (N, heads, L, S), or None."""
        total = None
        if attn_mask is not None:
            array = _blocked_to_additive(_as_bool_or_float(attn_mask, "attn_mask"), dtype)
            if array.shape == (length, source):
                total = array
            elif array.shape == (batch * self.num_heads, length, source):
                total = array.reshape(batch, self.num_heads, length, source)
            else:
                raise ValueError(f"MultiheadAttention: attn_mask must have shape {(length, source)} "
                                 f"or {(batch * self.num_heads, length, source)}, got {array.shape}")
        if key_padding_mask is not None:
            array = _blocked_to_additive(
                _as_bool_or_float(key_padding_mask, "key_padding_mask"), dtype)
            if array.shape != (batch, source):
                raise ValueError(f"MultiheadAttention: key_padding_mask must have shape "
                                 f"{(batch, source)} (batch, source length), got {array.shape}")
            padding = array.reshape(batch, 1, 1, source)
            total = padding if total is None else total + padding
        return total

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        query, key, value = as_tensor(query), as_tensor(key), as_tensor(value)
        if is_causal and attn_mask is None:
            raise RuntimeError("MultiheadAttention: is_causal=True is a hint and needs attn_mask "
                               "as well (e.g. a causal (L, L) mask), as in torch")
        unbatched = query.ndim == 2
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(f"MultiheadAttention: expected 3-D (batched) or 2-D (unbatched) "
                             f"query, key and value, got shapes {query.shape}, {key.shape}, "
                             f"{value.shape}")
        if query.shape[-1] != self.embed_dim:
            raise ValueError(f"MultiheadAttention: was expecting embedding dimension of "
                             f"{self.embed_dim}, but got {query.shape[-1]}")
        if unbatched:
            query, key, value = (ops.reshape(t, (1,) + t.shape) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = np.asarray(getattr(key_padding_mask, "data", key_padding_mask))
                key_padding_mask = key_padding_mask.reshape(1, -1)
        elif not self.batch_first:   # (L, N, E) -> (N, L, E)
            query, key, value = (ops.permute(t, (1, 0, 2)) for t in (query, key, value))
        batch, length, source = query.shape[0], query.shape[1], key.shape[1]
        q = self._heads(self._project(query, 0))
        k = self._heads(self._project(key, 1))
        v = self._heads(self._project(value, 2))
        mask = self._mask(attn_mask, key_padding_mask, batch, length, source, query.dtype)
        dropout_p = self.dropout if self.training else 0.0
        weights = None
        if need_weights:   # spelled out, because the weights themselves are returned
            scores = ops.matmul(q, ops.permute(k, (0, 1, 3, 2)))
            scores = ops.mul(scores, 1.0 / math.sqrt(self.head_dim))
            if mask is not None:
                scores = ops.add(scores, Tensor(mask, dtype=mask.dtype, _copy=False))
            weights = ops.softmax(scores, axis=-1)
            if dropout_p:
                weights = F.dropout(weights, dropout_p, training=True)
            heads = ops.matmul(weights, v)
        else:
            heads = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)
        merged = ops.reshape(ops.permute(heads, (0, 2, 1, 3)), (batch, length, self.embed_dim))
        out = self.out_proj(merged)
        if unbatched:
            out = ops.reshape(out, out.shape[1:])
        elif not self.batch_first:
            out = ops.permute(out, (1, 0, 2))
        if weights is not None:
            if average_attn_weights:
                weights = ops.mean(weights, axis=1)
            if unbatched:
                weights = ops.reshape(weights, weights.shape[1:])
        return out, weights

    def extra_repr(self):
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}"
