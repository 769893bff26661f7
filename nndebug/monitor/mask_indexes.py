"""A 0/1 mask used as an index anywhere in the loss's computation (real-bug batch 351).

``rules/mask_as_index.py`` first read this bug on class scores: ``logits[train_mask]`` with a
mask stored as 0/1 integers gathers rows 0 and 1 over and over. The same slip happens on
anything the loss indexes: a batch-hard triplet loss that takes each anchor's negatives as
``dist[i][1 - mask[i]]`` (open-reid#24: ``1 - mask`` turned the boolean mask into integers)
reads the distances to samples 0 and 1 instead of the negatives, and the loss falls anyway.

What is read, on the origin watch's steps (``nonfinite_origins.py``: the first recorded
steps, from the model's forward to the optimizer's step): each indexing call
(``t[idx]``, ``t.gather(dim, idx)``, ``t.index_select(dim, idx)``,
``torch.take_along_dim``) whose index is an integer tensor exactly as long as the dimension
it indexes (the mark of a mask: one entry per element to keep or drop, not a list of
positions), of at least ``MIN_INDEXED`` entries, and holding nothing but 0s and 1s. A list
of positions that long holds other values; a boolean mask is no integer index. The values
are read once per such call (one small host read), on those steps only.

Kept in ``observed.mask_indexes``: ``[(step, operation, indexed size, source)]``, at most
``KEPT``.
"""
INDEXING = frozenset({"__getitem__", "gather", "index_select", "take_along_dim"})
MIN_INDEXED = 8     # [design] entries of the indexed dimension: a mask over 2-7 entries read
                    # as positions 0 and 1 is too easily a real choice of two positions
KEPT = 4            # [design] rows kept: the rule needs one


def note(observed, step, name, args, kwargs, source):
    """Keep the call when its index is a 0/1 mask read as positions (see the module doc)."""
    import torch
    if len(observed.mask_indexes) >= KEPT or not args:
        return
    with torch._C.DisableTorchFunction():     # our own reads do not re-enter the mode
        found = _mask_as_positions(name, args, kwargs)
    if found is not None:
        observed.mask_indexes.append((int(step if step is not None else -1), name, found,
                                      str(source() if callable(source) else source or "")))


def _mask_as_positions(name, args, kwargs):
    """The size of the dimension a 0/1 integer mask indexes as positions, or None."""
    import torch
    source = args[0]
    if not isinstance(source, torch.Tensor) or source.dim() == 0:
        return None
    if name == "__getitem__":
        if len(args) < 2:
            return None
        key = args[1] if isinstance(args[1], tuple) else (args[1],)
        dim = 0
        for entry in key:
            if isinstance(entry, torch.Tensor):
                break
            if not (isinstance(entry, slice) and entry == slice(None)):
                return None            # an int, None or Ellipsis first: not read here
            dim += 1
        else:
            return None
        index = entry
        if index.dim() != 1 or dim >= source.dim():
            return None
        size, length = source.shape[dim], index.numel()
    else:
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
        index = args[2] if len(args) > 2 else kwargs.get("index", kwargs.get("indices"))
        if not isinstance(dim, int) or not isinstance(index, torch.Tensor) or \
                index.dim() == 0 or dim >= source.dim():
            return None
        size = source.shape[dim]
        length = index.numel() if name == "index_select" else \
            (index.shape[dim] if index.dim() > dim else -1)
    if index.dtype in (torch.bool, torch.uint8) or index.is_floating_point() or \
            size < MIN_INDEXED or length != size:
        return None
    return int(size) if bool(((index == 0) | (index == 1)).all()) else None
