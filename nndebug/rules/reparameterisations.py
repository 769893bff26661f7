"""VAE_KL_TERM_MISSING and VAE_NOISE_SCALED_BY_VARIANCE: what the loss does with the scale
of a reparameterised draw ``z = mu + eps * std`` in the model's forward.

- The KL term dropped from a VAE's loss (facebookresearch/irmae#1): the predicted ``std``
  reaches the loss only through the noise it scales. The reconstruction only ever wants
  less noise, and nothing pulls the posterior towards the prior: the VAE trains as a plain
  autoencoder, and decoding prior samples gives no data.
- The variance drawn as the standard deviation, ``eps * exp(logvar)``, while the KL term
  reads ``exp(logvar)`` as the variance (rachtsingh/ibp_vae#3): the noise the decoder sees
  and the posterior the KL charges for are two different distributions.

Read from ``run.observed.reparameterisations`` (``monitor/reparameterisations.py``): on
the first recorded steps, the draws reaching the loss whose scale is used nowhere else,
and those whose ``exp(s)`` scale sits beside another, unsquared, ``exp(s)`` in the loss.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

REPARAMETERISATION_MIN_STEPS = 2  # [design] measured steps showing it: the loss's structure,
                                  # not one branch taken once


def _showing(ctx, column):
    """The measured rows where ``column`` (2: unpenalised, 3: variance-scaled) is > 0, when
    every measured row shows it and at least REPARAMETERISATION_MIN_STEPS do."""
    rows = observed_list(ctx, "reparameterisations")
    showing = [row for row in rows if row[column] > 0]
    if len(showing) < REPARAMETERISATION_MIN_STEPS or len(showing) < len(rows):
        return []
    return showing


@rule(produces="VAE_KL_TERM_MISSING")
def vae_kl_term_missing(ctx):
    """VAE_KL_TERM_MISSING: a VAE whose loss has no KL term: its encoder's scale never learns to
    match the prior."""
    showing = _showing(ctx, 2)
    if not showing:
        return None
    step, draws, unpenalised, _ = showing[0]
    return Finding(
        code="VAE_KL_TERM_MISSING", severity="warning", where="loss", step=step,
        message=f"The model draws z = mu + eps * std with a predicted std ({unpenalised} "
                f"draw{'s' if unpenalised > 1 else ''} on each of {len(showing)} measured "
                "steps), and the loss reads that std only through the noise it scales: no "
                "KL or log-density term penalises it. The reconstruction only ever asks for "
                "less noise, so nothing keeps the posterior near the prior; the model trains "
                "as a plain autoencoder and samples from the prior decode to nothing.",
        evidence={"steps": [row[0] for row in showing][:10], "draws": int(draws),
                  "unpenalised": int(unpenalised),
                  "min_steps": REPARAMETERISATION_MIN_STEPS},
        fix="Add the KL term to the loss: loss = recon + beta * "
            "(-0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1).mean()).")


@rule(produces="VAE_NOISE_SCALED_BY_VARIANCE")
def vae_noise_scaled_by_variance(ctx):
    """VAE_NOISE_SCALED_BY_VARIANCE: the reparameterised draw multiplies the noise by the variance
    (or log-variance) where the standard deviation is meant."""
    showing = _showing(ctx, 3)
    if not showing:
        return None
    step = showing[0][0]
    return Finding(
        code="VAE_NOISE_SCALED_BY_VARIANCE", severity="warning", where="forward", step=step,
        message="The model draws z = mu + eps * exp(s), and the loss also takes exp(s), "
                f"unsquared, of the same s (on each of {len(showing)} measured steps): the "
                "KL term reads exp(s) as the variance while the draw uses it as the standard "
                "deviation. The noise the decoder sees and the posterior the KL charges for "
                "are two different distributions.",
        evidence={"steps": [row[0] for row in showing][:10],
                  "min_steps": REPARAMETERISATION_MIN_STEPS},
        fix="Draw with the standard deviation: z = mu + eps * torch.exp(0.5 * logvar) "
            "(or, if s is a log standard deviation, write the KL with exp(2 * s)).")
