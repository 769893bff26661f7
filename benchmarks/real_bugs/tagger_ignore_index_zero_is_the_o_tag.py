"""A BiLSTM tagger whose cross-entropy is given ``ignore_index=0`` to skip the padding,
while tag 0 is also the O tag (the padded positions hold 0 too): every O word, about two
thirds of the real words, leaves the loss. The tagger is only ever asked to choose among
the entity tags, so it tags O words as entities and precision collapses; the training
loss, over entity words only, falls nicely.

Reported: "Tagger ignoring 0 class for cross_entropy" -
https://github.com/nyu-mll/jiant/issues/925 ("we put ignore_index as pad_index. I've
definitely had it happen where I have 0 as a target class for the tagger, and this has led
to some wonky runs because the cross_entropy ignores all 0 class in the target"). Here the
PER/LOC BIO sentences of ``_crf_tagging`` (O=0, padding tags 0), batches padded to their
longest sentence, Adam, 200 steps of 32 sentences.

Fix: give the padding its own label (-100) and ignore that, so O stays a trained class.

Measured (held-out entity F1, argmax tags): 0.40 with the bug, 0.90 fixed; seeds + 1000:
0.39 vs 0.87.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._token_tagging import (TAGS, Tagger, data, held_out_f1,
                                                 length_mask, trimmed)

TITLE = "Tagger ignoring 0 class for cross_entropy"
LINK = "https://github.com/nyu-mll/jiant/issues/925"
EXPECTED = ("IGNORE_INDEX_ON_MAJORITY_CLASS",)
STEPS = 200
PAD_INDEX = 0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, tags, lengths), held = data()
    model = Tagger()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(ids), steps, seed=0):
            words, gold, size = trimmed(ids, tags, lengths, index)
            if fixed:
                gold = gold.masked_fill(~length_mask(size, words.shape[1]), -100)
                ignore = -100
            else:
                ignore = PAD_INDEX              # BUG: 0 is the padding AND the O tag
            scores = model(words)
            loss = F.cross_entropy(scores.reshape(-1, TAGS), gold.reshape(-1),
                                   ignore_index=ignore)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_f1 = held_out_f1(model, held)
    return mon
