"""The vocabulary is built without an unknown token, but its lookup still sends every
out-of-vocabulary word to id 0 - which, with no specials first, is the most frequent word
of the corpus. Every rare word then reads (and trains) that word's embedding: sentences are
stuffed with fake copies of it, and when the word matters the model learns it as noise.

Reported: "Apparent bug for ``torchtext.data.vocab.Vocab`` causing collisions between OOV
words and in vocab words." - https://github.com/pytorch/text/issues/447 (with
``specials_first=False`` "there is a collision between OOV words and the highest frequency
word in the vocabulary": ``stoi['the'] == stoi['dfsddfsdfds'] == 0``; the default unknown
index is 0 whatever sits there). Here a bag-of-embeddings classifier of the batch-215 corpus
(benchmarks/real_bugs/_emb.py), whose most frequent word is a cue of class 0; the vocabulary
keeps 300 words, padding is its last id (as with specials last) and the rare filler words
(about 8% of the filler tokens) are out of vocabulary. Fix: an unknown token of its own.

Measured harm (held-out accuracy, 1000 sentences, 4 classes): 0.966 vs 0.998 fixed at seed 0;
seeds + 1000: 0.972 vs 0.997.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._emb import VOCAB_WORDS, BagClassifier, accuracy, batches, corpus, encode

TITLE = ("Apparent bug for ``torchtext.data.vocab.Vocab`` causing collisions between OOV "
         "words and in vocab words.")
LINK = "https://github.com/pytorch/text/issues/447"
EXPECTED = ("UNKNOWN_ID_DOMINATES_INPUTS",)
STEPS = 300
PAD = VOCAB_WORDS            # the words at 0..299 (frequency order), then <pad>


def lookup(ranks, fixed):
    # BUG when not fixed: the default index for unknown words is 0, the most frequent word
    unk = VOCAB_WORDS + 1 if fixed else 0
    return encode(ranks, pad=PAD, unk=unk, offset=0)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(int(torch.randint(10 ** 6, ())))
    train_ranks, train_y = corpus(2000, g)
    train_ids = lookup(train_ranks, fixed)
    model = BagClassifier(VOCAB_WORDS + 2, dim=32, padding_idx=PAD)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(train_ids, train_y, steps, g, pad=PAD):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    test_ranks, test_y = corpus(1000, g)
    mon.heldout_accuracy = accuracy(model, lookup(test_ranks, fixed), test_y)
    return mon
