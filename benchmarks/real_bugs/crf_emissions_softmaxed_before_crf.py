"""A BiLSTM-CRF tagger whose emission scores go through a softmax before the CRF: each
word's tag scores are squashed into probabilities in [0, 1], so no emission can outweigh a
transition by more than one unit, and the CRF - itself a softmax over whole tag paths -
works on scores that cannot express a confident word. The loss still falls; the tagger
learns worse.

Reported: "Don't use softmax before CRF" - https://github.com/heshenghuan/LSTM-CRF/issues/4
(the maintainer of an LSTM-CRF tagger found that applying a softmax to the scores before
the CRF's log-likelihood caused a sharp drop in performance, and took it out; the same
answer in https://github.com/kmkurn/pytorch-crf/issues/60: the CRF replaces the softmax,
remove it). Here: the hand-written CRF of benchmarks/real_bugs/_crf_tagging.py on the
synthetic BIO sentences, the softmax applied to the BiLSTM's emissions in training and in
decoding.
Fix: give the CRF the linear layer's raw scores.

Measured (300 Adam steps, batch 32, entity F1 of the Viterbi paths on 400 held-out
sentences): seed 0, 0.723 with the bug against 0.892 fixed; seeds shifted by 1000, 0.668
against 0.901.
"""
import torch

from benchmarks.real_bugs._crf_tagging import entity_f1, gold_lists, train_tagger, trimmed

TITLE = "Don't use softmax before CRF"
LINK = "https://github.com/heshenghuan/LSTM-CRF/issues/4"
EXPECTED = ("SOFTMAX_BEFORE_CRF",)
STEPS = 300


def emissions(model, words, size, fixed):
    scores = model(words, size)
    if fixed:
        return scores
    return torch.softmax(scores, dim=-1)      # BUG: probabilities handed to the CRF


@torch.no_grad()
def held_out_f1(model, held, fixed, batch_size=100):
    ids, tags, lengths = held
    model.eval()
    predicted = []
    for start in range(0, len(ids), batch_size):
        index = torch.arange(start, min(start + batch_size, len(ids)))
        words, _, size = trimmed(ids, tags, lengths, index)
        predicted += model.viterbi(emissions(model, words, size, fixed), size)
    model.train()
    return entity_f1(predicted, gold_lists(tags, lengths))


def run(fixed=False, steps=STEPS, **watch):
    mon, model, held = train_tagger(
        steps, emissions_of=lambda model, words, size: emissions(model, words, size, fixed),
        **watch)
    mon.held_out_f1 = held_out_f1(model, held, fixed)
    return mon
