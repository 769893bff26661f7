"""VAE_NOISE_NOT_STANDARD_NORMAL, VAE_MEAN_AND_SCALE_FROM_ONE_OUTPUT,
VAE_STD_NEVER_BELOW_PRIOR and VAE_SAMPLE_NOT_DECODED: how a VAE's reparameterised draw
``z = mu + eps * std`` is built, and whether the loss reads one at all.

- The noise is not N(0, 1) (``rand_like`` for ``randn_like``, dferendo/RecommendationSystem#3;
  ``epsilon_std = 0.01``, keras-team/keras#4211): the KL term charges for N(mu, std^2)
  while the decoder is trained on other draws, so the loss is no longer the bound.
- The mean and the log variance are one output (``fc_mean(h), fc_mean(h)``,
  giannifranchi/LP_BNN#3): the posterior's log variance equals its mean in every unit.
- The log variance made non-negative (``softplus``, masato-ka/airc-rl-agent#43): the
  posterior's std is never below 1, the prior's, so no code is more certain than the prior.
- The draw computed and the mean decoded (``z = reparameterise(mu, logvar)`` then
  ``decode(mu)``, dmis-lab/VAECox#6): the loss holds the KL of mu and logvar but reads no
  noise at all, so the log variance is trained by the KL alone and the model is a plain
  autoencoder whose posterior samples decode badly.

Read from ``run.observed.posterior_draws`` (``monitor/posterior_draws.py``): the draws of
the first recorded steps that reach the loss and whose scale a KL term also reads. Torch
runs only, as the other graph readers (minigrad keeps no saved tensors to read).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

DRAW_MIN_STEPS = 2           # [design] as reparameterisations.py: measured steps showing it,
                             # the loss's structure, not one branch taken once
NOISE_MEAN_LIMIT = 0.25      # [design] as reparameterisations.py: |mean| of >= 16 standard
                             # normal values is under 0.25 (~68% odds at 16, > 99.9% at 256)
NOISE_STD_RANGE = (0.7, 1.3)  # [design] as reparameterisations.py: the sample std of >= 32
                              # standard normal values lies there (> 99%)


def _steps_showing(ctx, showing):
    """The measured steps where some posterior draw satisfies ``showing``, when every
    measured step with posterior draws does and at least DRAW_MIN_STEPS do."""
    rows = [(row[0], row[1]) for row in observed_list(ctx, "posterior_draws") if row[1]]
    steps = [(step, [draw for draw in draws if showing(draw)]) for step, draws in rows]
    steps = [(step, draws) for step, draws in steps if draws]
    if len(steps) < DRAW_MIN_STEPS or len(steps) < len(rows):
        return []
    return steps


def _not_standard_normal(draw):
    mean, std = draw[0], draw[1]
    low, high = NOISE_STD_RANGE
    return abs(mean) >= NOISE_MEAN_LIMIT or not low < std < high


def _noise_reading(mean, std):
    if 0.4 < mean < 0.6 and 0.2 < std < 0.35:
        return "uniform on [0, 1) (torch.rand_like, not torch.randn_like)"
    if abs(mean) < NOISE_MEAN_LIMIT and std < NOISE_STD_RANGE[0]:
        return f"normal noise scaled down to std {std:.3g} (an epsilon_std below 1)"
    return "some other distribution than N(0, 1)"


@rule(produces="VAE_NOISE_NOT_STANDARD_NORMAL")
def vae_noise_not_standard_normal(ctx):
    """VAE_NOISE_NOT_STANDARD_NORMAL: the noise of z = mu + eps * std is not drawn from N(0, 1)
    (uniform, or scaled)."""
    steps = _steps_showing(ctx, _not_standard_normal)
    if not steps:
        return None
    step, draws = steps[0]
    mean, std = draws[0][0], draws[0][1]
    return Finding(
        code="VAE_NOISE_NOT_STANDARD_NORMAL", severity="warning", where="forward", step=step,
        message=f"The model draws z = mu + eps * std, and the loss's KL term reads the same "
                f"std, but eps has mean {mean:.3g} and std {std:.3g} (on each of {len(steps)} "
                f"measured steps): {_noise_reading(mean, std)}. The KL term charges for the "
                "posterior N(mu, std^2) while the decoder is trained on other draws, so the "
                "loss is not the variational bound: the learned std means nothing and "
                "decoding prior samples (or the model's own posterior) gives worse data.",
        evidence={"steps": [s for s, _ in steps][:10], "noise_mean": mean, "noise_std": std,
                  "mean_limit": NOISE_MEAN_LIMIT, "std_range": list(NOISE_STD_RANGE),
                  "min_steps": DRAW_MIN_STEPS},
        fix="Draw eps from a standard normal: eps = torch.randn_like(std) (randn, not rand; "
            "no epsilon_std other than 1).")


@rule(produces="VAE_MEAN_AND_SCALE_FROM_ONE_OUTPUT")
def vae_mean_and_scale_from_one_output(ctx):
    """VAE_MEAN_AND_SCALE_FROM_ONE_OUTPUT: the mean and the scale of the posterior are the same
    tensor of the encoder."""
    steps = _steps_showing(ctx, lambda draw: draw[2] > 0)
    if not steps:
        return None
    step = steps[0][0]
    return Finding(
        code="VAE_MEAN_AND_SCALE_FROM_ONE_OUTPUT", severity="warning", where="forward",
        step=step,
        message="The model draws z = mu + eps * std where mu and the log variance under std "
                f"are one computed output (the same layer on the same input; on each of "
                f"{len(steps)} measured steps): the posterior's log variance equals its "
                "mean in every unit. A code cannot move from 0 without its noise growing "
                "(mu > 0) or vanishing (mu < 0), and the log-variance head, if there is one, "
                "is never trained.",
        evidence={"steps": [s for s, _ in steps][:10], "min_steps": DRAW_MIN_STEPS},
        fix="Compute the log variance with its own head: mu, logvar = fc_mu(h), fc_logvar(h) "
            "(or split one output in two: mu, logvar = fc(h).chunk(2, dim=-1)).")


@rule(produces="VAE_STD_NEVER_BELOW_PRIOR")
def vae_std_never_below_prior(ctx):
    """VAE_STD_NEVER_BELOW_PRIOR: the posterior's standard deviation is made >= 1 on its way
    from the encoder (an exp of a softplus or relu), so it is never narrower than the prior."""
    steps = _steps_showing(ctx, lambda draw: draw[3] > 0)
    if not steps:
        return None
    step = steps[0][0]
    return Finding(
        code="VAE_STD_NEVER_BELOW_PRIOR", severity="warning", where="forward", step=step,
        message="The model draws z = mu + eps * exp(s) where s is made non-negative on its "
                "way from the encoder's output (a softplus, relu, sigmoid or exp of the log "
                f"variance), and every std drawn is >= 1 (on each of {len(steps)} measured "
                "steps): the posterior is never narrower than the N(0, 1) prior. No code "
                "can be more certain than the prior, so the decoder tells inputs apart only "
                "by means pushed far out, which the KL charges for: blurred reconstructions.",
        evidence={"steps": [s for s, _ in steps][:10], "min_steps": DRAW_MIN_STEPS},
        fix="Leave the log variance unbounded: logvar = fc_logvar(h) (clamp it to a wide "
            "range such as [-30, 20] for stability; use softplus only for a std itself).")


@rule(produces="VAE_SAMPLE_NOT_DECODED")
def vae_sample_not_decoded(ctx):
    """VAE_SAMPLE_NOT_DECODED: the decoder reads the mean, not the reparameterised draw z."""
    rows = observed_list(ctx, "posterior_draws")
    showing = [row[0] for row in rows if len(row) > 2 and row[2] > 0]
    if len(showing) < DRAW_MIN_STEPS or len(showing) < len(rows):
        return None
    return Finding(
        code="VAE_SAMPLE_NOT_DECODED", severity="warning", where="forward", step=showing[0],
        message="The loss holds a Gaussian KL term of two encoder outputs (mu ** 2 of one, "
                "exp of the other) but reads no noise draw at all (on each of "
                f"{len(showing)} measured steps): the reconstruction is computed from mu, "
                "not from z = mu + eps * std. The log variance is then trained by the KL "
                "alone (it settles at 0 whatever the data), the decoder never learns to "
                "decode posterior samples, and the model is a plain autoencoder with an L2 "
                "pull on its codes.",
        evidence={"steps": showing[:10], "min_steps": DRAW_MIN_STEPS},
        fix="Decode the sample: z = mu + torch.randn_like(std) * std; recon = decode(z) "
            "(decode mu only at evaluation, in eval mode).")
