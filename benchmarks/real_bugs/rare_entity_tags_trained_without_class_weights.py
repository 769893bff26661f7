"""A BiLSTM tagger for entities that are rare (here about 2% of the words are inside an
entity) trained with plain token cross-entropy: the loss is dominated by the O words, the
easiest way down is to say O everywhere, and in a short run the tagger barely predicts any
entity at all. Token accuracy is about 98% while entity F1 stays low.

Reported: "How to improve the forecast of rare events in the keras entity recognition
problem?" - https://daily-blog.netlify.app/questions/2421795/ (a copy of the Stack
Overflow question: "~90,000 tokens ... only ~600 are labeled with something other than
the standard 'O' label ... the same network works well on a sampled dataset where the
interesting categories are relatively frequent ... on my data there are practically no
non-O tokens predicted"; the asker thinks of a loss that penalises missing non-O tokens
more). Here the PER/LOC BIO sentences of ``_crf_tagging`` with an entity starting at a
word with probability 0.01, Adam, 150 steps of 32 sentences (PyTorch for Keras).

Fix: weight the cross-entropy by class, the entity tags up (inverse square root of their
training frequency).

Measured (held-out entity F1, argmax tags): 0.17 with the bug, 0.57 fixed; seeds + 1000:
0.16 vs 0.68.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._token_tagging import (TAGS, Tagger, data, held_out_f1,
                                                 length_mask, trimmed)

TITLE = "How to improve the forecast of rare events in the keras entity recognition problem?"
LINK = "https://daily-blog.netlify.app/questions/2421795/"
EXPECTED = ("RARE_CLASS_NEVER_PREDICTED",)
STEPS = 150
ENTITY_RATE = 0.01


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, tags, lengths), held = data(entity_rate=ENTITY_RATE)
    real = length_mask(lengths, ids.shape[1])
    counts = torch.bincount(tags[real], minlength=TAGS).float().clamp(min=1)
    weight = (counts.sum() / counts).sqrt()
    weight = weight / weight[0]
    model = Tagger()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(ids), steps, seed=0):
            words, gold, size = trimmed(ids, tags, lengths, index)
            gold = gold.masked_fill(~length_mask(size, words.shape[1]), -100)
            loss = F.cross_entropy(model(words).reshape(-1, TAGS), gold.reshape(-1),
                                   ignore_index=-100,
                                   weight=weight if fixed else None)   # BUG: no weights
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_f1 = held_out_f1(model, held)
    return mon
