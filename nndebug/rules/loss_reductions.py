"""LOSS_TERMS_REDUCED_DIFFERENTLY: the loss adds a term summed over the batch to one
averaged over it.

``F.mse_loss(recon, x) + kl.sum()`` (a VAE: zdebruine/MMVAE#19): the KL term weighs every
sample as much as the whole reconstruction term does, so it outweighs the reconstruction by
the batch size times the pixels the mean also divided by; the encoder gives up on its input
and the decoder draws one average image. Each term is a fine loss alone, every parameter
trains, the loss falls: only the balance of the sum is off, and it moves with the batch
size.

Read from ``run.observed.loss_reductions`` (``monitor/loss_reductions.py``): on the first
recorded steps, each addend of the loss's top-level sum that fully reduces a tensor carrying
the model output's batch axis, with its reduction ('sum' or 'mean') and the constant it is
scaled by. A summed addend divided by at least the batch size (``x.sum() / len(x)``, a
per-sample sum averaged by hand) counts as averaged: it weighs a sample no more than a mean
does. Healthy losses stay silent: every term summed, every term averaged (weighted or not),
per-sample sums averaged over the batch, a penalty over the parameters (no batch axis: it
is not read at all).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

REDUCTION_MIN_BATCH = 8      # [design] with a batch of a few samples a sum is a few means:
                             # the imbalance is the batch size, small below 8
REDUCTION_MIN_STEPS = 3      # [design] measured steps showing the mix: the loop's habit
REDUCTION_MOST_STEPS = 0.5   # [design] on more than half of the measured steps
UNDONE = 1.0 + 1e-6          # [convention] a sum scaled by at most 1/batch weighs a sample
                             # as a mean does (float rounding of 1/batch allowed)


def batch_treatment(term):
    """'summed', 'averaged' or None (the scale of a sum is not known) for one addend
    ``(operation, reduction, scale, batch)``."""
    _, reduction, scale, batch = term
    if reduction == "mean":
        return "averaged"
    if reduction != "sum" or scale is None:
        return None
    return "averaged" if abs(scale) * batch <= UNDONE else "summed"


def mixed_steps(rows):
    """[(step, batch, summed addend, averaged addend)] of the rows whose loss adds a term
    summed over a batch of at least REDUCTION_MIN_BATCH to a term averaged over it."""
    mixed = []
    for step, terms in rows:
        by = {}
        for term in terms:
            if term[3] >= REDUCTION_MIN_BATCH:
                by.setdefault(batch_treatment(term), term)
        if "summed" in by and "averaged" in by:
            mixed.append((step, by["summed"][3], by["summed"], by["averaged"]))
    return mixed


@rule(produces="LOSS_TERMS_REDUCED_DIFFERENTLY",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def loss_terms_reduced_differently(ctx):
    rows = observed_list(ctx, "loss_reductions")
    mixed = mixed_steps(rows)
    if len(mixed) < REDUCTION_MIN_STEPS or len(mixed) <= REDUCTION_MOST_STEPS * len(rows):
        return batch_total_inside_term(ctx)    # the other way a term outweighs (batch 83)
    step, batch, summed, averaged = mixed[0]
    return Finding(
        code="LOSS_TERMS_REDUCED_DIFFERENTLY", severity="warning", where="loss", step=step,
        message=f"The loss adds a term summed over the batch ({summed[0]}, a 'sum') to a "
                f"term averaged over it ({averaged[0]}, a 'mean'), on {len(mixed)} of "
                f"{len(rows)} measured steps: with a batch of {batch} the summed term counts "
                f"each sample {batch} times as much as the averaged term does (more where the "
                "mean also ran over pixels or classes), and the "
                "balance changes with the batch size. The averaged term barely trains (a "
                "VAE's KL summed next to an averaged reconstruction collapses the posterior "
                "and draws one average image).",
        evidence={"steps": [s for s, _, _, _ in mixed][:10], "batch": batch,
                  "summed": summed[0], "averaged": averaged[0],
                  "summed_scale": summed[2], "min_batch": REDUCTION_MIN_BATCH},
        fix="Reduce every term the same way over the batch: sum each term over a sample's "
            "units (pixels, latent units, classes) and average over the batch, e.g. "
            "F.mse_loss(recon, x, reduction='none').flatten(1).sum(1).mean() + "
            "kl.sum(1).mean(); or divide each summed term by len(x). Then weigh the terms "
            "with an explicit constant (beta) if one should count more.")


# --- real-bug batch 83: a whole batch's total inside a per-sample term --------------------
# ``kl = -0.5 * torch.sum(1 + log_var - mean ** 2 - log_var.exp())`` without ``dim`` is the
# batch's total KL; times a per-event mask, or added to a per-sample reconstruction, it lands
# on every sample and the loss's final sum or mean counts it once per sample: that term weighs
# batch-size times too much against the terms beside it (EDAPINENUT/GNTPP#4, a VAE's
# posterior collapsing onto the prior). Read from ``run.observed.batch_totals_in_terms``
# (``monitor/batch_totals.py``): a full sum of a (batch, ...) tensor reached from a
# per-sample reduction of the loss through additions and products only - no per-sample
# quantity (centring with a mean, dividing by a sum and partial sums are not counted).
BATCH_TOTAL_MIN_STEPS = 2     # [design] steps whose loss held such a term: two of the first
                              # recorded steps make it the loop's habit, not one odd batch


def batch_total_inside_term(ctx):
    rows = observed_list(ctx, "batch_totals_in_terms")
    if len(rows) < BATCH_TOTAL_MIN_STEPS:
        return None
    step, inner, reduction, outer = rows[0]
    inner_text = " x ".join(str(n) for n in inner)
    outer_text = " x ".join(str(n) for n in outer)
    return Finding(
        code="LOSS_TERMS_REDUCED_DIFFERENTLY", severity="warning", where="loss", step=step,
        message=f"A term of the loss is a full sum of a {inner_text} tensor - the whole "
                f"batch's total, batch axis included - broadcast back onto every sample of "
                f"the {outer_text} per-sample loss (multiplied by a mask or weights, or added "
                f"to a per-sample term) and reduced again with a {reduction}: each sample "
                f"carries the whole batch's total, so that term counts about {inner[0]} times "
                "as much as the per-sample terms beside it (a KL summed this way collapses a "
                "VAE's posterior onto the prior).",
        evidence={"steps": sorted({row[0] for row in rows}), "summed_shape": list(inner),
                  "per_sample_shape": list(outer), "outer_reduction": reduction},
        fix="Sum over the sample's own axes only (torch.sum(..., dim=-1) for a per-event KL), "
            "then apply the mask and reduce over the batch with the other terms.")
