"""ADAM_STEP_EXCEEDS_RATE: an Adam-family optimizer whose steps are far larger than its rate.

Adam divides the first moment by the square root of the second, so each entry moves by
about lr or less whatever the gradient's size: the very first step is exactly lr x
sign(gradient), and later ones stay below lr x (1 - beta1) / sqrt(1 - beta2) (3.2 x lr at
the default betas) in the worst case, and well below lr on average. That bound is what
makes Adam's rate a step size. A hand-written Adam that gets the bias correction wrong
breaks it: corrections divided into the moment in place multiply from step to step, and a
"one minus" taken twice divides the moments by beta^t, so the steps grow geometrically
while ``group["lr"]`` never changes (real-bug batch 171: kozistr/pytorch_optimizer#305,
frgfm/holocron#1). The loss first falls, then blows up, and everything downstream reads as
a rate too high - lowering it only delays the blow-up.

Read from what every record holds: each parameter's update norm (``update_norm``, the
change over the watched step) over the square root of its size is the entry's typical
step; over the highest rate of the optimizer's groups (``record.lrs``) it is at most about
one for any Adam. A median above ``STEP_OVER_RATE`` on most records from the first one
that exceeds it is no schedule and no noise.

Healthy look-alikes stay silent: Adam, AdamW, NAdam, RAdam and Adamax at any rate (the
first step's ratio is 1.0, later ones lower), a warm-up or a decay (the rate each record
reads is the one in use), several optimizer steps per watched step (skipped:
the update spans them), a weight written by hand once (one record, not most), and the
optimizers whose step is scaled by the weights' norm by design (LAMB, LARS, Adafactor).
"""
import numpy as np

from ..findings import Finding
from .context import MAJORITY, observed_list
from .graph import rule

STEP_OVER_RATE = 10.0      # [design] the median parameter's step RMS over the highest group
                           # rate: any Adam stays below ~1 on average (at most (1 - beta1) /
                           # sqrt(1 - beta2) = 3.2 at the defaults, for one entry's worst
                           # history); the broken bias corrections reached 15-5000 (batch 171)
MIN_EXCEEDING_RECORDS = 3  # [design] records over the bound: more than one write by hand
NORM_SCALED = ("lamb", "lars", "adafactor")   # [design] steps scaled by the weight's norm,
                           # or relative to it, by design: no per-entry bound on lr


def _adam_family(settings):
    """Every group has two betas (Adam, its variants, hand-written ones taking betas=),
    and the optimizer is none of the norm-scaled kinds."""
    return bool(settings) and all(
        s.betas is not None and len(s.betas) == 2 and
        not any(kind in s.type.lower() for kind in NORM_SCALED) for s in settings)


def _one_step_per_watched_step(ctx):
    """No watched step held two optimizer steps of the watched optimizer, and no other
    optimizer stepped the same tensors: each record's update is one step."""
    observed = getattr(ctx.run, "observed", None)
    return not (getattr(observed, "multi_step_total", 0) or
                observed_list(ctx, "shared_optimizers"))


def step_over_rate(ctx, sizes):
    """[(step, median over parameters of (step RMS / highest rate))] of the finite records
    that measured their updates at a positive rate."""
    rows = []
    for r in ctx.records:
        if r.update_norm is None or not r.lrs:    # (ctx.records stop before a non-finite one)
            continue
        rate = max((lr for lr in r.lrs if lr is not None), default=None)
        if rate is None or not rate > 0:
            continue
        norms = np.asarray(r.update_norm, float)
        if norms.shape != sizes.shape:
            continue
        with np.errstate(all="ignore"):
            ratios = norms / np.sqrt(sizes) / rate
        ratios = ratios[np.isfinite(ratios) & (norms > 0)]
        if len(ratios):
            rows.append((r.step, float(np.median(ratios))))
    return rows


@rule(produces="ADAM_STEP_EXCEEDS_RATE",
      explains={"LR_TOO_HIGH", "LOSS_DIVERGING", "LOSS_OSCILLATING", "EXPLODING_GRADIENTS",
                "EXPLODING_ACTIVATIONS", "NAN_LOSS"})
def adam_step_exceeds_rate(ctx):
    settings = observed_list(ctx, "optimizer_settings")
    if not _adam_family(settings) or not _one_step_per_watched_step(ctx):
        return None
    sizes = np.array([max(1, int(np.prod(p.shape))) for p in ctx.run.params], float)
    rows = step_over_rate(ctx, sizes)
    over = [i for i, (_, ratio) in enumerate(rows) if ratio > STEP_OVER_RATE]
    if len(over) < MIN_EXCEEDING_RECORDS:
        return None
    since = rows[over[0]:]
    if len(over) < MAJORITY * len(since):
        return None
    step, ratio = rows[over[0]]
    largest = max(r for _, r in since)
    kind = settings[0].type
    return Finding(
        code="ADAM_STEP_EXCEEDS_RATE", severity="error", where=kind, step=step,
        message=f"{kind}'s steps are far larger than its rate: from step {step} each entry moved "
                f"{ratio:.3g} x lr (median over the parameters; up to {largest:.3g} x later), "
                "where Adam's division by the second moment keeps every step at about lr or "
                "less. The rate in the param groups did not change: the update rule itself "
                "makes the steps grow - a bias correction applied in place or inverted "
                "(dividing by beta^t, or by 1 - (1 - beta^t)) in a hand-written Adam.",
        evidence={"steps": [s for s, _ in since][:20],
                  "step_over_rate": [round(r, 3) for _, r in since][:20],
                  "threshold": STEP_OVER_RATE, "optimizer": kind},
        fix="Check the bias correction: m_hat = m / (1 - beta1 ** t) and v_hat = v / "
            "(1 - beta2 ** t) into new tensors (never m.div_() in place), step = lr * m_hat / "
            "(sqrt(v_hat) + eps); or use torch.optim.Adam / AdamW.")
