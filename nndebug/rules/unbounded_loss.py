"""LOSS_UNBOUNDED_BELOW: the loss falls far below zero and keeps falling, ever faster.

A loss that is a proper divergence or negative log-likelihood has a floor: it falls fast at
first, then slower. One with a term of the wrong sign has none: a VAE's KL written with
``+ 2 log sigma`` (FluxML/model-zoo#147) is lowered without end by shrinking sigma, a
likelihood added where it should be subtracted is lowered by blowing up the density. The
optimizer then follows that term down, the loss goes to minus thousands, and the model
stops learning what the loss was meant for.

Read from the loss curve (``ctx.curve``): the last tenth's median is negative and more than
``UNBOUNDED_RATIO`` times the first tenth's magnitude below zero, and over the last three
quarters the fall does not slow down (a loss that is converging, even to a negative value
as a density's log can, falls ever slower); each quarter's median lies below the one
before.

A loss with a known floor below zero (a Poisson NLL without its log(target!) term: per
element target - target * log(target) at best, ``curve.known_floor``) is named only once it
falls past that floor (real-bug batch 69: a healthy count regression converging at -3.8
from a start of 0.04 was named).

A policy-gradient surrogate (log_prob(action) times advantages of both signs,
``curve.policy_surrogate``) is no objective either: as the policy grows sure, the rare
actions it still samples carry ever more negative log-probabilities, and with standardised
advantages half of them are weighted negatively, so a healthy REINFORCE loss can fall without
end (real-bug batch 44's fixed twin at seeds shifted by 3000: 0.04 to -4.7).

A loss that starts near zero by its nature, a negative signal-to-noise ratio in decibels
(real-bug batch 133: a healthy speech enhancer's -SNR, -0.1 at the start, -7.0 at the
end), is far below its start without lacking a floor; its fall slows as it converges, and most
of it comes in the first half of the run (``SECOND_HALF_FALL``). A loss with no floor falls
about as far in its second half as in its first, or farther.

Limit: a loss starting at exactly 0 and still falling steadily at the end of a short run
(a negative similarity from a zero-initialised head) is measured against MIN_START and
could be named; a curve that levels off, as training curves do, is not.
"""
import numpy as np

from ..findings import Finding
from .context import window_medians
from .curve import known_floor, policy_surrogate
from .graph import rule

UNBOUNDED_MIN_STEPS = 40     # [design] curve points needed to tell a trend from its noise
UNBOUNDED_RATIO = 20.0       # [design] below zero by 20x the starting magnitude: the
                             # FluxML KL-sign case (measured) ends ~1000x below, the flow
                             # with its log-det added 45-78x (seeds shifted by 0-3000); a
                             # density's negative log-likelihood converging below zero (the
                             # flows of the tests) ends within a few times its start
START_POINTS = 5             # [design] the starting magnitude is the untrained loss's, read
                             # on the first steps: the median of the first tenth can already
                             # lie past zero (the flow's: -1.2 to -4.7 across seeds, against
                             # 1.9-3.6 on its first steps)
MIN_START = 1e-3             # [design] a starting magnitude below this counts as this (a
                             # loss starting at 0 says nothing about its scale)
NOT_SLOWING = 0.5            # [design] the last quarter's fall is at least half the one
                             # before it: a converging curve's falls shrink much faster
SECOND_HALF_FALL = 0.4       # [measured] (real-bug batch 133) the fall over the run's second
                             # half, start of the middle tenth to the end, against the fall
                             # over its first: a loss with no floor falls on as far (0.84-1.16
                             # on the flow and CRF sign cases, 2.8-21 on the accelerating VAE
                             # and quantile ones, at seeds shifted by 0 and 1000), a
                             # converging one sheds most of its fall early (healthy -SNR losses
                             # in dB, -0.1 -> -7 and 0.15 -> -13: 0.10-0.17)


@rule(produces="LOSS_UNBOUNDED_BELOW", explains={"LOSS_OSCILLATING"})
def loss_unbounded_below(ctx):
    curve = np.asarray(ctx.curve, dtype=float)
    if len(curve) < UNBOUNDED_MIN_STEPS:
        return None
    tenth = max(len(curve) // 10, 1)
    start = float(np.median(curve[:min(START_POINTS, tenth)]))
    end = float(np.median(curve[-tenth:]))
    if end >= 0 or -end < UNBOUNDED_RATIO * max(abs(start), MIN_START):
        return None
    half = len(curve) // 2
    middle = float(np.median(curve[half - tenth // 2:half + tenth // 2 + 1]))
    if middle - end < SECOND_HALF_FALL * (start - middle):
        return None                  # most of the fall came early: converging (batch 133)
    quarters = window_medians(curve, 4)
    if len(quarters) < 4:
        return None
    falls = [quarters[i] - quarters[i + 1] for i in range(3)]   # every quarter lower
    if min(falls) <= 0 or falls[2] < NOT_SLOWING * falls[1]:
        return None
    if policy_surrogate(ctx):        # its level is no objective (module doc)
        return None
    floor = known_floor(ctx)         # (real-bug batch 69: a Poisson NLL converging below 0)
    if floor is not None and end >= floor:
        return None                  # still above the lowest value the loss can take
    return Finding(
        code="LOSS_UNBOUNDED_BELOW", severity="warning", where="loss",
        step=int(ctx.curve_steps[-1]),
        message=f"The loss fell from {start:.3g} to {end:.3g} and is still falling, no "
                "slower than before: a loss with no floor. A term of it has the wrong sign "
                "(a KL's log-variance term written + 2 log sigma, a log-likelihood or a "
                "flow's log-determinant added where it is subtracted), and the optimizer "
                "lowers the loss by driving that term to minus infinity instead of fitting "
                "the data.",
        evidence={"start": start, "end": end, "quarter_medians": [float(q) for q in quarters],
                  "ratio": UNBOUNDED_RATIO},
        fix="Check the sign of each term against its formula: KL(N(mu, sigma) || N(0, 1)) = "
            "0.5 * (sigma^2 + mu^2 - 1 - 2 log sigma); a negative log-likelihood is "
            "-(log p(z) + log|det|).")
