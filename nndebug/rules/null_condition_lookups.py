"""CONDITION_MOSTLY_NULL: a class (condition) embedding looked up with one id per sample
reads its LAST row - the null class of classifier-free guidance - for most of its lookups
(``run.observed.null_condition_lookups``, ``monitor/null_condition_lookups.py``).

The recipes drop a label to the null class with a probability of 0.1-0.2 (Ho & Salimans,
"Classifier-Free Diffusion Guidance", 2022: p_uncond 0.1 or 0.2; DiT's class_dropout_prob
0.1). Half of all lookups or more at that row is not such a dropout: the mask is inverted
(eje24/iap-diffusion-labs#3) or the labels never reach the network, which is handed the
null class every time (thorinf/consistency-mnist#3). The conditional field is then fitted
on a tenth of the labels, or none, and samples asked for a class follow it far less.

Healthy look-alikes stay silent: a class or timestep embedding read evenly (its last row
about 1/rows of the lookups), a guidance dropout at its usual rate, a token or segment table
looked up with sequences (2-D ids: padding at the last row is common there), a table with
a padding_idx, a two-row table (token types all 0 on single-sentence tasks: not the last
row, and too small for classes plus a null).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

NULL_SHARE = 0.75          # [design] share of the lookups at the last row: the recipes'
                           # dropout is 0.1-0.2 (Ho & Salimans 2022; DiT 0.1), the inverted
                           # mask gives 0.8-0.9, labels never passed 1.0; a categorical input
                           # whose last category is the majority (a tabular "other" at 60%)
                           # stays below three quarters
MIN_IDS = 64               # [design] ids read at least (one batch of 64 or a few smaller ones)


@rule(produces="CONDITION_MOSTLY_NULL")
def condition_mostly_null(ctx):
    for layer, rows, lookups, read, at_last, distinct in observed_list(
            ctx, "null_condition_lookups"):
        if read < MIN_IDS or at_last < NULL_SHARE * read:
            continue
        share = at_last / read
        return Finding(
            code="CONDITION_MOSTLY_NULL", severity="warning", where=layer, step=ctx.first_step,
            message=f"{share:.0%} of the {read} ids the first {lookups} training lookup(s) "
                    f"of {layer} read are its last row ({rows - 1}), the null class of "
                    f"classifier-free guidance ({distinct} distinct id(s) read). The label "
                    "dropout keeps 0.1-0.2 of labels at the null class, not most of them: the "
                    "conditional model learns from few labels or none, and samples asked for "
                    "a class do not follow it.",
            evidence={"layer": layer, "rows": rows, "lookups": lookups, "ids_read": read,
                      "null_share": share, "distinct_ids": distinct,
                      "threshold": NULL_SHARE},
            fix="Check the label dropout's mask (null where rand < p, not rand > p) and that "
                "the batch's labels are passed to the network (not a default null label).")
    return None
