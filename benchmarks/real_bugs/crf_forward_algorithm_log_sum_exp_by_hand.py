"""A BiLSTM-CRF tagger whose forward algorithm computes the log-sum-exp by hand, as
``log(sum(exp(x)))``, with no maximum taken out first. The forward scores grow with every
word (each adds an emission and a transition), so once the emissions become confident a
long sentence's scores pass about 88, ``exp`` overflows float32 to inf, the partition
becomes inf and the loss inf or NaN; the NaN gradient reaches every weight and the tagger
is lost from that step on. Early in training the scores are small and the loss falls
normally.

Reported: "Bi-LSTM+CRF model loss appears \"nan\"" -
https://github.com/candle-org/MindAct/issues/171 (training a Bi-LSTM+CRF on CoNLL-2000
chunking, "loss will appear nan"; the maintainer's answer: use the framework's logsumexp
"to avoid overflow problem"). Here: the hand-written CRF of
benchmarks/real_bugs/_crf_tagging.py on its synthetic BIO sentences (4 to 16 words), a
BiLSTM for the emissions, Adam; only the forward algorithm's log-sum-exp differs.
Fix: ``torch.logsumexp`` (the maximum subtracted before ``exp``, added back after the log).

Measured (300 Adam steps, batch 32, entity F1 of the Viterbi paths on 400 held-out
sentences): seed 0, 0.000 with the bug (the loss turns NaN within the run and every weight
is NaN after it) against 0.892 fixed; seeds shifted by 1000, 0.000 against 0.901.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._crf_tagging import (BiLstmCrf, data, held_out_f1, index_batches,
                                               length_mask, trimmed)

TITLE = 'Bi-LSTM+CRF model loss appears "nan"'
LINK = "https://github.com/candle-org/MindAct/issues/171"
EXPECTED = ("NAN_BORN_IN_FORWARD", "NAN_LOSS")
STEPS = 300


def log_sum_exp(scores, dim):
    return torch.log(torch.sum(torch.exp(scores), dim=dim))   # BUG: no maximum taken out


def log_partition(model, emissions, mask, fixed):
    """The forward algorithm (as the model's own, with the log-sum-exp chosen here)."""
    reduce = torch.logsumexp if fixed else log_sum_exp
    alpha = model.start + emissions[:, 0]
    for t in range(1, emissions.shape[1]):
        nxt = reduce(alpha[:, :, None] + model.transitions[None], dim=1) + emissions[:, t]
        alpha = torch.where(mask[:, t, None], nxt, alpha)
    return reduce(alpha + model.end, dim=1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, tags, lengths), held = data()
    model = BiLstmCrf()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(ids), steps, seed=0):
            words, gold, size = trimmed(ids, tags, lengths, index)
            emissions = model(words, size)
            mask = length_mask(size, words.shape[1])
            likelihood = model.gold_score(emissions, gold, mask) - \
                log_partition(model, emissions, mask, fixed)
            loss = -likelihood.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_f1 = held_out_f1(model, held)
    return mon
