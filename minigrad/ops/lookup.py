"""Embedding lookup: rows of a weight matrix picked by integer ids.

``out = weight[ids]``. In backward every id sends its gradient row back to the
weight row it came from with a scatter-*add* (``scatter_add_rows``): an id that appears
three times in the batch was used three times, so its row collects three
gradients. (Plain assignment would keep only the last one - a classic bug.)
"""
import numpy as np

from ..autograd import Function
from .registry import register


def check_ids(ids, num_rows):
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"embedding ids must be integers, got dtype {ids.dtype}; "
                        "convert them with ids.astype(np.int64) (or tensor.long())")
    if ids.size and (ids.min() < 0 or ids.max() >= num_rows):
        bad = ids.min() if ids.min() < 0 else ids.max()
        raise IndexError(f"embedding id {int(bad)} is out of range: the weight has {num_rows} rows, "
                         f"so ids must lie in 0..{num_rows - 1}")
    return ids


@register("embedding")
class Embedding(Function):
    @staticmethod
    def forward(ctx, weight, ids=None, padding_idx=None):
        if weight.ndim != 2:
            raise ValueError(f"embedding expects a 2-D weight (num_embeddings, embedding_dim), "
                             f"got shape {weight.shape}")
        ids = check_ids(ids, weight.shape[0])
        ctx.ids, ctx.num_rows, ctx.padding_idx = ids, weight.shape[0], padding_idx
        return weight[ids]

    @staticmethod
    def backward(ctx, grad):
        rows = grad.reshape(-1, grad.shape[-1])
        ids = ctx.ids.reshape(-1)
        if ctx.padding_idx is not None:  # the padding row is a constant, as in torch
            keep = ids != ctx.padding_idx % ctx.num_rows
            rows, ids = rows[keep], ids[keep]
        return (scatter_add_rows(ids, rows, ctx.num_rows),)


def scatter_add_rows(ids, rows, num_rows):
    """``out[i] = sum of rows[k] where ids[k] == i``: ``np.add.at`` written faster.

    ``np.add.at`` handles one row at a time (~1 ms for 1,024 ids of 128 floats); sorting
    the ids (stable: each id's rows keep their order) groups each id's rows together, and
    ``np.add.reduceat`` sums every group in one call (~0.15 ms). How many rows each id has
    (``np.bincount``) says where its group starts; ids below 2^15 are sorted as 16-bit
    integers, which NumPy sorts by radix. Ids that are all different (a position
    embedding's 0..T-1) need no sum: each row is assigned where it goes (~5 us instead of
    ~25 for T = 32).
    """
    out = np.zeros((num_rows, rows.shape[-1]), dtype=rows.dtype)
    if ids.size == 0:
        return out
    counts = np.bincount(ids.astype(np.intp, copy=False), minlength=num_rows)
    if counts.max() == 1:
        out[ids] = rows
        return out
    order = np.argsort(ids.astype(np.int16) if num_rows <= 1 << 15 else ids, kind="stable")
    present = np.flatnonzero(counts)                    # the ids that occur, in sorted order
    starts = np.cumsum(counts[present]) - counts[present]   # where each one's rows begin
    out[present] = np.add.reduceat(rows.take(order, axis=0), starts, axis=0)
    return out
