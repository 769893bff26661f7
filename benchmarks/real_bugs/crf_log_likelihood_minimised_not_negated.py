"""A BiLSTM-CRF tagger whose loss is the CRF's log-likelihood itself, not its negative: the
forward-algorithm layer returns log p(gold tags | sentence) (at most 0), and the loop hands
it to ``backward()`` as it is, so the optimizer makes the gold paths ever less likely. The
loss goes far below zero, nothing errors, and the decoder ends up choosing tags the data
never has.

Reported: "bi-LSTM with CRF not training properly" -
https://github.com/kmkurn/pytorch-crf/issues/81 (the reporter's BiLSTM learned alone, but
with the CRF layer on top the loss was "a really big negative" number and decoding gave the
padding tag everywhere; the reporter found the cause: the CRF returns a log-likelihood, so
the loss has to be its negative, as the library's documentation says). Here: the
hand-written CRF of benchmarks/real_bugs/_crf_tagging.py on synthetic BIO sentences (two
entity types whose type shows in the entity's last word), a BiLSTM for the emissions.
Fix: ``loss = -log_likelihood.mean()``.

Measured (300 Adam steps, batch 32, 1,200 training sentences, entity F1 of the Viterbi
paths on 400 held-out sentences): seed 0, 0.000 with the bug (final loss near -3,000)
against 0.892 fixed; seeds shifted by 1000, 0.073 against 0.901.
"""
from benchmarks.real_bugs._crf_tagging import held_out_f1, negative_mean, train_tagger

TITLE = "bi-LSTM with CRF not training properly"
LINK = "https://github.com/kmkurn/pytorch-crf/issues/81"
EXPECTED = ("LOSS_SIGN_FLIPPED", "LOSS_UNBOUNDED_BELOW")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    if fixed:
        loss_of = negative_mean
    else:                           # BUG: the log-likelihood minimised, not its negative
        def loss_of(likelihood):
            return likelihood.mean()
    mon, model, held = train_tagger(steps, loss_of=loss_of, **watch)
    mon.held_out_f1 = held_out_f1(model, held)
    return mon
