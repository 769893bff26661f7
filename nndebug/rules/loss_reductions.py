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
        return None
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
