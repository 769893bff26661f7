"""ATTENTION_UNIFORM (real-bug batch 79, transformer blocks written by users): an
attention's logits divided by sqrt(head_dim) twice - the queries (or keys, or scores)
scaled by hand and then again by the kernel or a second division - so that q.k ends up
head_dim times smaller than scaled dot-product attention makes it and the attention rows
stay close to uniform. Neither the weights (often invisible: a fused kernel) nor the loss
curve (the model still learns, more slowly) shows it; the graph does.

Reads ``run.observed.attention_scales`` (``monitor/attention_scales.py``): for each attention
site on the first recorded steps, its head size and the constant factors between the
matmul q @ k^T (or the kernel) and the projections that made q and k. Named when at least
two of those factors scale down, each by about 1/sqrt(head_dim) or more, and together
they come to about 1/head_dim. Healthy look-alikes that stay silent: one 1/sqrt(d)
(the kernel, or a hand-written division), d**-0.25 on the query and on the key (the
product is 1/sqrt(d)), a deliberate 1/d scale passed once (muP), a scale of 1 passed to the
kernel after the queries were divided by sqrt(d).

When no site is scaled twice, the rule asks ``attention_swamped`` (real-bug batch 101)
whether a site's weights were exactly uniform over the visible keys on every step observed
(a -1e9 added to every visible score: a mask in the wrong layout); one rule names the code.
"""
import math

from ..findings import Finding
from .attention_swamped import attention_weights_swamped
from .context import observed_list
from .graph import rule

SCALED_TWICE_TOLERANCE = 1.25   # [design] the product of the factors within this ratio of
                                # 1/head_dim (a second 1/sqrt(d) is exact; a rounded sqrt is not)
SCALED_TWICE_MIN_HEAD = 8       # [design] heads of fewer than 8 dims: 1/d and 1/sqrt(d) are
                                # within a factor 2.8, too close to call a mistake


def _scaled_twice(row):
    site, step, head_dim, factors, kernel = row
    if head_dim < SCALED_TWICE_MIN_HEAD:
        return False
    down = [f for f in factors if 0 < f < 1]
    if len(down) < 2:
        return False
    product = math.prod(factors)
    if not product > 0:
        return False
    return abs(math.log(product * head_dim)) <= math.log(SCALED_TWICE_TOLERANCE)


@rule(produces="ATTENTION_UNIFORM")
def attention_scaled_twice(ctx):
    rows = [row for row in observed_list(ctx, "attention_scales") if _scaled_twice(row)]
    if not rows:
        return attention_weights_swamped(ctx)     # batch 101: a -1e9 on every visible score
    site, step, head_dim, factors, kernel = rows[0]
    sites = sorted({row[0] for row in rows})
    shown = ", ".join(f"{f:.4g}" for f in factors)
    where = site[:-len(".softmax")] if site.endswith(".softmax") else site
    return Finding(
        code="ATTENTION_UNIFORM", severity="warning", where=where or "model", step=step,
        message=(f"The attention logits of {where or 'the model'} are scaled by {shown} "
                 f"({'one of them the kernel scaled_dot_product_attention' if kernel else 'between the matmul q @ k^T and the projections'}), "
                 f"together {math.prod(factors):.4g} = about 1/{head_dim}, with heads of "
                 f"{head_dim}: divided by sqrt(head_dim) twice. The logits come out "
                 f"{head_dim} times smaller than scaled dot-product attention makes them and "
                 "the attention rows stay close to uniform: the block averages its context "
                 "until the query and key weights have grown sqrt(head_dim)-fold."),
        evidence={"site": site, "head_dim": head_dim, "factors": factors,
                  "product": math.prod(factors), "kernel": kernel, "sites": sites,
                  "tolerance": SCALED_TWICE_TOLERANCE},
        fix=("Scale once: F.scaled_dot_product_attention already divides by sqrt(head_dim) "
             "(leave q alone, or pass scale=1.0 if q is scaled by hand); a hand-written "
             "attention divides q @ k^T by sqrt(head_dim) once."))
