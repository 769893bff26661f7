"""A Cox proportional-hazards model is fitted through an adapter between two conventions
for the same column: the caller's ``C = 1`` means "censored", the partial likelihood's
``status = 1`` means "the event was observed". The adapter hands C over unchanged, so
every censored subject enters the loss as a death at its censoring time and every
observed death as censored. The partial likelihood is as smooth and trainable as
before, the loss falls, and nothing checks which way the flag points; the model learns
the censoring process (who leaves the study early) instead of the hazard.

Reported: "[BUG] fix `CoxPH` handling of `statsmodels` `status` variable" -
https://github.com/sktime/skpro/pull/306 ("In `statsmodels`, `status=1` means uncensored,
and `status=0` means censored. In `sktime`, `C=1` means censored, and `C=0` means
uncensored. This flipping was missing in the adapter"; the fix passes ``1 - C`` as the
status). Here a small network reads the digit images of right-censored subjects
(``_survival_digits``: the true hazard grows with the digit, about 40% censored),
trained with a Cox partial likelihood (risk sets from the durations) on the flag as the
caller stores it, Adam, batches of 64.
Fix: status = 1 - C (the event indicator the partial likelihood expects).

Measured (300 steps, 397 held-out subjects; held-out concordance against the real
events, 0.5 = chance, ``mon.extra``): seed 0: 0.501 for the bug against 0.745 for the
fixed twin; seeds shifted by 1000: 0.540 against 0.768.
"""
import torch

from benchmarks.real_bugs._survival_digits import survival, train_risk_model

TITLE = "[BUG] fix `CoxPH` handling of `statsmodels` `status` variable"
LINK = "https://github.com/sktime/skpro/pull/306"
EXPECTED = ("CENSORING_FLAG_REVERSED",)
STEPS = 300
HELD_OUT = 397


def partial_likelihood(log_h, duration, status):
    """Breslow partial likelihood, risk sets from the durations (no sort needed)."""
    at_risk = duration[None, :] >= duration[:, None]                # row i: j at risk at t_i
    log_risk = torch.logsumexp(log_h[None, :].masked_fill(~at_risk, float("-inf")), dim=1)
    return -((log_h - log_risk) * status).sum() / status.sum().clamp(min=1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, duration, event, _ = survival(seed=0)
    censored = 1.0 - event                            # the caller's column: C = 1 censored
    # BUG (unfixed): C handed over as the status, where status = 1 means an observed event
    status = 1.0 - censored if fixed else censored
    return train_risk_model(x, duration, event, partial_likelihood, steps, HELD_OUT, watch,
                            given_event=status)
