"""DIFFUSION_NOISE_SCALE_WRONG: a noise-predicting denoiser's training inputs mix the clean
signal and the noise with coefficients that follow no forward process: neither
``a^2 + b^2 = 1`` (variance preserving, DDPM's sqrt(alpha_bar) / sqrt(1 - alpha_bar), EDM's
c_in up to a constant), nor ``a = 1`` (variance exploding, x_0 + sigma * noise), nor
``a + b = 1`` (a straight-line interpolation). The usual slip: the noise scaled by
``1 - alpha_bar``, the variance, where ``sqrt(1 - alpha_bar)`` was meant (then
``a^2 + b = 1``): every level but the last is less noisy than the schedule says, the loss
looks fine, and the sampler, walking the schedule's own levels, shows the network inputs it
never trained on. Ryota-Kawamura/How-Diffusion-Models-Work#1 (DeepLearning.AI's course
notebook).

Reads ``run.observed.diffusion_noise_levels`` (``monitor/diffusion_noise_levels.py``): per
sample of the first training batches whose loss target is standard normal noise of the
input's shape, the noise coefficient b and log a^2 + log mean(x_0^2). Under a family
``a^2 = f(b)``, ``log signal - log f(b)`` is log mean(x_0^2), which does not depend on the
noise level: its least-squares slope against b is near 0 for the family that made the
inputs and far from 0 for the others.
"""
import numpy as np

from ..findings import Finding
from .context import observed_list
from .graph import rule

NOISE_LEVEL_RANGE = (0.05, 0.9)   # [design] noise coefficients read: near 0 the signal's
                                  # share of b's estimate dominates, near 1 the remaining
                                  # signal is too small to measure
NOISE_LEVEL_MIN_SAMPLES = 40      # [design] samples in that range, batches pooled
NOISE_LEVEL_MIN_SPREAD = 0.3      # [design] 10th-90th percentile span of b: several noise
                                  # levels in the batch, a diffusion run (a single sigma of
                                  # a denoising autoencoder says nothing about the family)
NOISE_FAMILY_SLOPE = 0.4          # [measured] |slope| of log mean(x_0^2) against b at which a
                                  # family no longer fits: the family that made the inputs
                                  # gives 0.02-0.19 (digits, 64-256 samples: DDPM, x + sigma
                                  # * noise, (1 - t) x + t noise), the nearest wrong family
                                  # 0.59-0.78 (the noise scaled by 1 - alpha_bar read as VP)

FAMILIES = (("variance preserving (a^2 + b^2 = 1)", lambda b: 1 - b * b),
            ("variance exploding (a = 1)", lambda b: np.ones_like(b)),
            ("straight-line interpolation (a + b = 1)", lambda b: (1 - b) ** 2))
VARIANCE_AS_STD = lambda b: 1 - b      # noqa: E731  a^2 + b = 1: the noise scaled by 1 - ab


def _slope(b, signal, family):
    return float(np.polyfit(b, signal - np.log(family(b)), 1)[0])


@rule(produces="DIFFUSION_NOISE_SCALE_WRONG")
def diffusion_noise_scale_wrong(ctx):
    rows = observed_list(ctx, "diffusion_noise_levels")
    if not rows:
        return None
    b = np.concatenate([np.asarray(row[1], dtype=float) for row in rows])
    signal = np.concatenate([np.asarray(row[2], dtype=float) for row in rows])
    keep = (b > NOISE_LEVEL_RANGE[0]) & (b < NOISE_LEVEL_RANGE[1]) & np.isfinite(signal)
    b, signal = b[keep], signal[keep]
    if b.size < NOISE_LEVEL_MIN_SAMPLES:
        return None
    low, high = np.percentile(b, [10, 90])
    if high - low < NOISE_LEVEL_MIN_SPREAD:
        return None
    slopes = {name: _slope(b, signal, family) for name, family in FAMILIES}
    if min(abs(s) for s in slopes.values()) < NOISE_FAMILY_SLOPE:
        return None
    variance_slope = _slope(b, signal, VARIANCE_AS_STD)
    as_variance = abs(variance_slope) < NOISE_FAMILY_SLOPE
    steps = [int(row[0]) for row in rows]
    shown = ", ".join(f"{name}: {s:+.2f}" for name, s in slopes.items())
    cause = ("they fit a^2 + b = 1: the noise was scaled by 1 - alpha_bar, the variance, "
             "where sqrt(1 - alpha_bar), the standard deviation, was meant"
             if as_variance else "they follow no forward process the sampler can undo")
    return Finding(
        code="DIFFUSION_NOISE_SCALE_WRONG", severity="warning", where="loss", step=steps[0],
        message=f"The model's training inputs are its loss target (standard normal noise) "
                f"times b plus a signal times a, with b from {low:.2f} to {high:.2f} over "
                f"{b.size} samples of steps {steps[:4]}; the signal's coefficient a does "
                f"not follow b as any forward process has it (slope of log mean(x_0^2) "
                f"against b under each, 0 when it fits: {shown}): {cause}. The sampler "
                "walks the schedule's own noise levels, where the network never trained.",
        evidence={"steps": steps[:10], "samples": int(b.size),
                  "noise_levels": [round(float(low), 3), round(float(high), 3)],
                  "slopes": {k: round(v, 3) for k, v in slopes.items()},
                  "variance_as_std_slope": round(variance_slope, 3),
                  "threshold_slope": NOISE_FAMILY_SLOPE},
        fix="Noise x_0 with the marginal of the schedule: x_t = sqrt(alpha_bar_t) * x_0 + "
            "sqrt(1 - alpha_bar_t) * noise (the square root of 1 - alpha_bar, not "
            "1 - alpha_bar itself), the same the sampler assumes.")
