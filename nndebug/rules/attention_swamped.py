"""ATTENTION_UNIFORM, second way (read by ``attention_scale``'s rule, which names the code) (real-bug batch 101, a causal mask in the wrong layout):
every row of an attention's weights exactly uniform over the keys it sees, on every step
observed. An attention function that applies ``scores + (1 - mask) * -1e9`` and is handed
an additive mask (0 / -inf) adds -1e9 to each visible score; in float32 the scores are
lost to rounding next to it and each query averages all the keys it may see. The causal
order survives, so nothing leaks and nothing crashes: the model learns, as a bag of its
past.

Reads ``run.observed.uniform_attention`` (``monitor/uniform_attention.py``): per attention
site (a softmax traced back to q @ k^T) on the first recorded steps, the rows that see at
least two keys and how many of them are uniform to float32 rounding. Healthy look-alikes
that stay silent: rows fully masked but for one key, padded query rows that a -1e9 fill
leaves uniform over all keys (a minority of rows), a query projection initialised to zero
(uniform at step 0 only: the first update moves it).
"""
from ..findings import Finding
from .context import observed_list

UNIFORM_SHARE = 0.9       # [design] padded query rows filled with -1e9 are uniform as well;
                          # they are a minority of a batch, a swamped site has all its rows
MIN_ATTENTION_ROWS = 8    # [design] rows that see 2+ keys per call, at the least
MIN_UNIFORM_STEPS = 2     # [design] recorded steps that agree: a zero-initialised query
                          # projection is uniform at step 0 and no more after one update


def _swamped_sites(rows):
    by_site = {}
    for site, step, checked, uniform in rows:
        by_site.setdefault(site, []).append((step, checked, uniform))
    swamped = {}
    for site, calls in by_site.items():
        if len(calls) >= MIN_UNIFORM_STEPS and all(
                checked >= MIN_ATTENTION_ROWS and uniform >= UNIFORM_SHARE * checked
                for _, checked, uniform in calls):
            swamped[site] = calls
    return swamped


def attention_weights_swamped(ctx):
    """The finding when a site's weights were swamped to uniform, else None (called by
    ``attention_scale.attention_scaled_twice``, the one rule that produces the code)."""
    swamped = _swamped_sites(observed_list(ctx, "uniform_attention"))
    if not swamped:
        return None
    site = sorted(swamped)[0]
    step, checked, uniform = swamped[site][0]
    where = site[:-len(".softmax")] if site.endswith(".softmax") else site
    return Finding(
        code="ATTENTION_UNIFORM", severity="warning", where=where or "model", step=step,
        message=(f"{uniform} of the {checked} query rows of the attention {where or 'model'} "
                 f"that see two keys or more weigh those keys exactly equally (to float32 "
                 f"rounding), on each of the {len(swamped[site])} steps observed, in "
                 f"{len(swamped)} attention site(s). Trained queries and keys never give "
                 "bit-equal weights: a constant far larger than the scores was added to "
                 "every visible score (a -1e9 meant for hidden keys), so each query "
                 "averages all the keys it may see and attention selects nothing."),
        evidence={"site": site, "rows": checked, "uniform_rows": uniform,
                  "sites": sorted(swamped), "share": UNIFORM_SHARE},
        fix=("Check the mask's layout against what the attention function expects: a "
             "function applying scores + (1 - mask) * -1e9 wants 1 = visible, 0 = hidden "
             "(torch.tril(ones)), not an additive 0 / -inf mask; an additive mask is added "
             "as it is, a boolean one goes to masked_fill(~visible, -inf)."))
