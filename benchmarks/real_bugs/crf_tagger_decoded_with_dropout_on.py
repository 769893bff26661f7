"""A BiLSTM-CRF tagger with dropout (p=0.5 on the BiLSTM's outputs, as beginner taggers
use) whose prediction code never calls ``model.eval()``: the Viterbi decoder runs on
emissions computed with dropout still active, so half of each word's features are zeroed
at random and the rest doubled at every prediction. The decoded tags are noisy, differ
from one call to the next for the same sentence, and the held-out score is below what
the trained model can do. Training is untouched.

Reported: "같은 문장을 추론하는데도 다른 결과가 나오는 경우가 간혹 생깁니다" (the same
sentence sometimes gets different results at inference) -
https://github.com/eagle705/pytorch-bert-crf-ner/issues/21 (a BERT-CRF NER model; the
maintainer asked whether inference ran in eval() with dropout off; the reporter found, in
translation, that model.eval() had been left out of the inference step). Here: the
hand-written CRF of benchmarks/real_bugs/_crf_tagging.py on its synthetic BIO sentences,
its BiLSTM with a dropout layer before the emission layer, Adam; held-out sentences
decoded in batches of 100 under torch.no_grad().
Fix: ``model.eval()`` before decoding (and ``model.train()`` after).

Measured (300 Adam steps, batch 32, entity F1 of the Viterbi paths on 400 held-out
sentences, the same trained model in both runs): seed 0, 0.892 with the bug against 0.920
fixed; seeds shifted by 1000, 0.879 against 0.900 (a modest but steady harm: the tagger is
robust to most of the noise, and the CRF's transitions are untouched by the dropout).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._crf_tagging import (BiLstmCrf, data, entity_f1, gold_lists,
                                               index_batches, length_mask, trimmed)

TITLE = "같은 문장을 추론하는데도 다른 결과가 나오는 경우가 간혹 생깁니다"
LINK = "https://github.com/eagle705/pytorch-bert-crf-ner/issues/21"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 300


class DropoutBiLstmCrf(BiLstmCrf):
    """The shared BiLSTM-CRF with dropout on the BiLSTM's outputs."""

    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.5)

    def forward(self, ids, lengths):
        x = nn.utils.rnn.pack_padded_sequence(self.embed(ids), lengths, batch_first=True,
                                              enforce_sorted=False)
        out, _ = self.lstm(x)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True,
                                                  total_length=ids.shape[1])
        return self.emit(self.drop(out))


@torch.no_grad()
def predict(model, held, fixed, batch_size=100):
    ids, tags, lengths = held
    if fixed:
        model.eval()             # dropout off for prediction
    # BUG (fixed=False): no model.eval(), the dropout stays on
    predicted = []
    for start in range(0, len(ids), batch_size):
        index = torch.arange(start, min(start + batch_size, len(ids)))
        words, _, size = trimmed(ids, tags, lengths, index)
        predicted += model.viterbi(model(words, size), size)
    model.train()
    return entity_f1(predicted, gold_lists(tags, lengths))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, tags, lengths), held = data()
    model = DropoutBiLstmCrf()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(ids), steps, seed=0):
            words, gold, size = trimmed(ids, tags, lengths, index)
            likelihood = model.log_likelihood(model(words, size), gold,
                                              length_mask(size, words.shape[1]))
            loss = -likelihood.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_f1 = predict(model, held, fixed)
    return mon
