"""A Cox partial-likelihood loss picks the events' terms with ``terms[event]``, where
``event`` is the batch's 0/1 event indicator as an integer tensor. Integer indexing is a
gather, not a mask: every 0 selects row 0 and every 1 selects row 1 of the time-sorted
batch, so the loss is the partial likelihood of the two earliest subjects, repeated, and
the other 62 subjects' own terms never enter it (they appear only inside those two
denominators, where they are pushed down as a block). No error, the loss falls, and the
risk ranking the model learns is far weaker than the full likelihood gives.

Reported: "Cox partial likelihood doesn't seem to index over all events" -
https://github.com/Novartis/torchsurv/issues/117 (torchsurv's ``_partial_likelihood_cox``
returned ``(log_hz_sorted - log_denominator)[event_sorted]``; the reporter showed that a
0/1 event tensor "repeatedly indexes just the first and second values"; fixed in PR #141,
whose author found that a one-parameter model "did not converge properly"). Here a small
network reads the digit images of right-censored subjects (``_survival_digits``: the true
hazard grows with the digit's value, about 40% censored) and is trained with that loss.
Fix: index with a boolean mask (``event.bool()``), or multiply the terms by the indicator
and divide by the number of events.

Measured (300 Adam steps, batch 64, 397 held-out subjects, seed 0): the bug's held-out
concordance 0.674; the fixed twin 0.752 (the true hazards give 0.80).
"""
import torch

from benchmarks.real_bugs._survival_digits import survival, train_risk_model

TITLE = "Cox partial likelihood doesn't seem to index over all events"
LINK = "https://github.com/Novartis/torchsurv/issues/117"
EXPECTED = ("LOSS_READS_FEW_ROWS",)
STEPS = 300
HELD_OUT = 397


def neg_partial_log_likelihood(log_hz, duration, event, fixed):
    """torchsurv's form: sort by time ascending, the risk set of row i is rows i.. (a
    reversed log-cumsum-exp), the events' terms averaged."""
    order = torch.argsort(duration)
    log_hz_sorted, event_sorted = log_hz[order], event[order]
    log_denominator = torch.logcumsumexp(log_hz_sorted.flip(0), dim=0).flip(0)
    terms = log_hz_sorted - log_denominator
    if fixed:
        return -terms[event_sorted.bool()].mean()
    return -terms[event_sorted.long()].mean()       # BUG: 0/1 integers gather rows 0 and 1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, duration, event, _ = survival(seed=0)
    return train_risk_model(x, duration, event,
                            lambda risk, time, flag: neg_partial_log_likelihood(risk, time, flag, fixed),
                            steps, HELD_OUT, watch)
