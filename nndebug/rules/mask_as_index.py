"""A 0/1 mask used as an index: the loss reads one or two rows, over and over.

``logits[train_mask]`` selects the training rows only when ``train_mask`` is a boolean
tensor. Stored as 0/1 integers (as some graph datasets and hand-written samplers give
it), the same expression is an index: it gathers row 0 and row 1, once for every entry
of the mask. The loss then sees hundreds of rows that are two rows repeated (one, where
the mask's first entries agree), the model fits those samples, the loss falls, and
nothing crashes (real-bug batch 160: a GCN at 0.36 test accuracy against 0.87, a
GraphSAGE sampler at 0.31 against 0.70).

The monitor compares, on the first recorded loss calls, the different rows among the
loss's first rows of class scores with those among the model's own output rows
(``LossCall.distinct_rows`` and ``model_distinct_rows``, ``monitor/gathered_rows.py``).
The model scores distinct samples apart; the loss reads at most two of them.

Healthy runs stay silent: a selection by a boolean mask (the twins; every row the loss
reads is a different row), a data set that really holds a few samples (the model's rows
are as few: BATCHES_FROM_FEW_SAMPLES' domain), a collapsed network (its own rows agree),
a binary output (two columns: two saturated scores are no index).

The labels are gathered with the same mask, so only one or two label ids ever reach the
loss: TARGET_IDS_OFFSET's "ids below k never named" is then a symptom this explains.

The same slip anywhere else in the loss's computation (real-bug batch 351: a batch-hard
triplet loss taking each anchor's negatives as ``dist[i][1 - mask[i]]``) is read by its
index, not by the rows it picked: an integer index exactly as long as the dimension it
indexes, holding only 0s and 1s (``monitor/mask_indexes.py``, ``mask_read_as_positions``).
"""
from ..findings import Finding
from .context import CLASS_INDEX_LOSSES, observed_list
from .graph import rule

MIN_LOSS_ROWS = 16         # [design] loss rows read: one or two values among 16 rows of
                           # distinct samples do not happen by chance
MIN_CLASS_COLUMNS = 3      # [design] class scores (a binary output saturates to two values)
GATHERED_ROWS = 2          # [design] rows 0 and 1: what a 0/1 mask read as indices picks
MIN_MODEL_ROWS = 16        # [measured] the model's own rows held at least this many
                           # different ones (256 and 38 in real-bug batch 160's cases)
GATHERED_CALLS_NEEDED = 4  # [design] every compared call (monitor/gathered_rows.py: the
                           # first four) agrees: the mask is there from step 0


@rule(produces="MASK_USED_AS_INDEX", explains={"TARGET_IDS_OFFSET"})
def mask_used_as_index(ctx):
    calls = [c for c in observed_list(ctx, "loss_calls")
             if c.distinct_rows is not None and c.model_distinct_rows is not None
             and c.loss in CLASS_INDEX_LOSSES and len(c.output_shape) == 2
             and c.output_shape[0] >= MIN_LOSS_ROWS and c.output_shape[1] >= MIN_CLASS_COLUMNS]
    if len(calls) < GATHERED_CALLS_NEEDED or any(
            c.distinct_rows > GATHERED_ROWS or c.model_distinct_rows < MIN_MODEL_ROWS
            for c in calls):
        return mask_read_as_positions(ctx)
    first = calls[0]
    return Finding(
        code="MASK_USED_AS_INDEX", severity="warning", step=first.step,
        message=f"The {first.output_shape[0]} rows of class scores {first.loss} reads are "
                f"{max(c.distinct_rows for c in calls)} row(s) repeated, on each of the "
                f"first {len(calls)} recorded calls, while the model's own output rows "
                f"were {first.model_distinct_rows} different ones: the scores were gathered "
                "with an index of 0s and 1s. A 0/1 mask stored as integers indexes rows 0 "
                "and 1 instead of selecting rows, so the model fits those samples and never "
                "trains on the rest.",
        evidence={"steps": [c.step for c in calls],
                  "loss_rows": [c.output_shape[0] for c in calls],
                  "distinct_loss_rows": [c.distinct_rows for c in calls],
                  "distinct_model_rows": [c.model_distinct_rows for c in calls]},
        fix="Select with a boolean mask: out[mask.bool()] (or out[mask.nonzero().squeeze(1)] "
            "for ids); the same for the labels and for seed nodes handed to a sampler.")


def mask_read_as_positions(ctx):
    """The same slip anywhere in the loss's computation (``observed.mask_indexes``,
    ``monitor/mask_indexes.py``; real-bug batch 351: a batch-hard triplet loss reading each
    anchor's negatives as ``dist[i][1 - mask[i]]``, open-reid#24): an integer index exactly
    as long as the dimension it indexes, holding only 0s and 1s, met on the first recorded
    steps. A list of positions that long holds other values; a boolean mask selects."""
    rows = observed_list(ctx, "mask_indexes")
    if not rows:
        return None
    step, operation, size, source = rows[0]
    call = {"__getitem__": "t[index]"}.get(operation, operation)
    return Finding(
        code="MASK_USED_AS_INDEX", severity="warning", step=step,
        message=f"At step {step} the loss's computation indexed a dimension of {size} "
                f"entries ({call}{' at ' + source if source else ''}) with an integer tensor "
                f"of {size} entries holding only 0s and 1s: a mask, one entry per element, "
                "read as positions. An integer index picks elements 0 and 1 over and over "
                "instead of selecting where the mask is 1 (1 - mask, mask.long() or a mask "
                "stored as 0/1 integers are such indexes), so the loss reads the wrong "
                "values and still falls.",
        evidence={"step": step, "operation": operation, "indexed_size": size,
                  "source": source, "calls": len(rows)},
        fix="Select with a boolean mask: t[mask.bool()] or t[mask == 0] for its complement "
            "(t.masked_fill(~mask, value) to keep the shape), never with 1 - mask or an "
            "integer 0/1 tensor.")
