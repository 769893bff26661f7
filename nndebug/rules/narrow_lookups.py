"""NEGATIVES_FROM_FEW_IDS: one of the lookups a step makes into an embedding table reads
only ids below the table's WIDTH (its embedding dimension), drawn across that whole small
range, while another lookup of the same table in the same step reads ids far beyond it:
sampled negatives drawn from ``randint(0, table.shape[1])`` where ``shape[0]`` was meant
(``run.observed.narrow_lookups``, ``monitor/narrow_lookups.py``; benfred/implicit#747).

Every negative is one of the first few items; the rest are only ever positives, their
scores rise for all users alike and the model ranks by how often an item was a positive,
not by taste. The limit is the table's width - the number of factors, or a couple more
where bias columns are stored beside them (implicit's ``n_factors + 2``) - which a real
range of ids does not sit on. Healthy look-alikes stay silent: two fields of one shared
table each in a range of its own (the narrow range would have to end exactly at the
width), a small vocabulary of special tokens (not drawn evenly across the range), a
positive and a negative drawn from the same full range.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

WIDTH_SLACK = 2            # [design] the range may end this far above the width: bias columns
                           # stored beside the factors (implicit's item_vectors, n_factors + 2)
NARROW_TABLE_SHARE = 0.25  # [design] the narrow range spans at most this share of the rows
NARROW_COVERAGE = 0.75     # [design] it reads at least this share of the ids below its end:
                           # drawn across the range (a sample of 64+ uniform draws over 16-34
                           # ids covers ~all of them)
MIN_NARROW_IDS = 16        # [design] ids read by the narrow lookup at least
BEYOND_FACTOR = 2.0        # [design] a sibling lookup of the step reads ids this many times
                           # beyond the narrow range's end


def _narrow(rows, width, calls):
    """(the narrow lookup's range end, the sibling's) when ``calls`` hold one (module doc)."""
    for end, distinct, read in calls:
        if not (width <= end <= width + WIDTH_SLACK) or end > NARROW_TABLE_SHARE * rows:
            continue
        if read < MIN_NARROW_IDS or distinct < NARROW_COVERAGE * end:
            continue
        beyond = max(other_end for other_end, _, _ in calls)
        if beyond >= BEYOND_FACTOR * end:
            return end, beyond
    return None


@rule(produces="NEGATIVES_FROM_FEW_IDS")
def negatives_from_few_ids(ctx):
    by_layer = {}
    for layer, rows, width, step, calls in observed_list(ctx, "narrow_lookups"):
        by_layer.setdefault(layer, []).append((step, _narrow(rows, width, calls), rows, width))
    for layer, steps in by_layer.items():
        if not steps or any(found is None for _, found, _, _ in steps):
            continue          # on every step with several lookups, or none
        step, (end, beyond), rows, width = steps[0]
        return Finding(
            code="NEGATIVES_FROM_FEW_IDS", severity="warning", where=layer, step=step,
            message=f"On each of {len(steps)} step(s) one lookup into {layer} ({rows} rows of "
                    f"width {width}) read only ids 0..{end - 1}, drawn across that range, "
                    f"while another lookup of the same step read ids up to {beyond - 1}: the "
                    f"narrow range ends at the table's width ({width}), not its {rows} rows. "
                    "Sampled negatives drawn from range(table.shape[1]) are all among the "
                    "first few ids; the others are only ever positives, so their scores rise "
                    "for everyone alike.",
            evidence={"layer": layer, "rows": rows, "width": width, "range_end": end,
                      "other_lookup_end": beyond, "steps": [s for s, _, _, _ in steps]},
            fix="Draw the ids from the table's row count: torch.randint(0, "
                "table.weight.shape[0], ...) (num_embeddings), not shape[1] (the embedding "
                "dimension).")
    return None
