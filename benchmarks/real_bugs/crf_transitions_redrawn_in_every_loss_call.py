"""A BiLSTM-CRF tagger whose CRF transition matrix is never trained: the loss asks the
CRF log-likelihood for the transition scores without handing it the model's own matrix, so
every call draws a fresh random one (Glorot-uniform, as the library's default does), uses
it for that step's loss and returns it; the script keeps the returned matrix on the model
as a constant (not a trainable weight) and decodes with it. Each step the BiLSTM fits its
emissions to another random set of transitions, and the decoder finally scores paths with
whichever random matrix the last step drew, not with transitions learned from the data
(I-PER after B-PER, never I-LOC after O).

Reported: "model.py里面transition_params的trainable状态是否应该改为True" (should
transition_params be trainable?) -
https://github.com/saiwaiyanyu/bi-lstm-crf-ner-tf2.0/issues/2 (a TF2 BiLSTM-CRF NER
tutorial repository: ``crf_log_likelihood`` was called without ``transition_params`` and
its result stored as a non-trainable variable; a commenter: the transition_params "obtained
this way are randomly generated each time"; the maintainer confirmed it as a bug and fixed
it by passing the model's trainable matrix into the likelihood). Here: the hand-written
CRF of benchmarks/real_bugs/_crf_tagging.py on its synthetic BIO sentences (two entity
types whose type shows in the entity's last word), a BiLSTM for the emissions, Adam.
Fix: one trainable transition matrix (an ``nn.Parameter`` of the model) given to the
likelihood at every step and used by the decoder.

Measured (300 Adam steps, batch 32, entity F1 of the Viterbi paths on 400 held-out
sentences): seed 0, 0.859 with the bug against 0.892 fixed; seeds shifted by 1000, 0.885
against 0.901 (a modest but steady harm: the BiLSTM's emissions carry most of the tagging,
the random transitions spoil the paths where the type is read from the next word).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._crf_tagging import (TAGS, BiLstmCrf, data, held_out_f1,
                                               index_batches, length_mask, trimmed)

TITLE = "model.py里面transition_params的trainable状态是否应该改为True"
LINK = "https://github.com/saiwaiyanyu/bi-lstm-crf-ner-tf2.0/issues/2"
EXPECTED = ("RANDOM_FEATURES_REDRAWN_EVERY_CALL",)
STEPS = 300


def default_transitions():
    """What the likelihood draws when it is given no transition matrix: Glorot-uniform."""
    limit = (6.0 / (TAGS + TAGS)) ** 0.5
    return torch.empty(TAGS, TAGS).uniform_(-limit, limit)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, tags, lengths), held = data()
    model = BiLstmCrf()
    if not fixed:
        # the transitions are no weight of the model: a constant the loss call returns
        del model.transitions
        model.register_buffer("transitions", default_transitions())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(ids), steps, seed=0):
            words, gold, size = trimmed(ids, tags, lengths, index)
            emissions = model(words, size)
            if not fixed:
                # BUG: no transition matrix passed, so the likelihood draws a new one;
                # the script keeps what it returns for decoding
                model.transitions = default_transitions()
            likelihood = model.log_likelihood(emissions, gold,
                                              length_mask(size, words.shape[1]))
            loss = -likelihood.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_f1 = held_out_f1(model, held)
    return mon
