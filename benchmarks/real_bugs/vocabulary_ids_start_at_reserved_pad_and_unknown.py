"""The word-to-id dictionary numbers the vocabulary from 0, although ids 0 and 1 are
reserved for padding (null) and the unknown token: the two most frequent words share their
ids with padding and with every out-of-vocabulary word. The first is masked away as padding
(and reads the zero padding row), the second is indistinguishable from the rare words.

Reported: "Word vector fix" - https://github.com/greenelab/snorkeling/pull/96 (sentences
were encoded with word indices starting at 0, "problematic because 0 and 1 are reserved for
null character and unknown token character. This means two important words were getting
drowned out for null's and unknowns, which lead to poor discriminative model performance";
fixed by shifting the word indices past the reserved ones). Here a bag-of-embeddings
classifier of the batch-215 corpus (benchmarks/real_bugs/_emb.py) with padding 0 (the
embedding's padding_idx, masked out of the mean) and unknown 1; its most frequent words are
cue words, as the report's were important ones. Fix: word rank r at id r + 2.

Measured harm (held-out accuracy, 1000 sentences, 4 classes): 0.917 vs 0.996 fixed at seed 0;
seeds + 1000: 0.914 vs 0.993.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._emb import VOCAB_WORDS, BagClassifier, accuracy, batches, corpus, encode

TITLE = "Word vector fix"
LINK = "https://github.com/greenelab/snorkeling/pull/96"
EXPECTED = ("PADDING_IDX_ON_REAL_IDS",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(int(torch.randint(10 ** 6, ())))
    offset = 2 if fixed else 0      # BUG when not fixed: words numbered from 0, over 0 and 1
    train_ranks, train_y = corpus(2000, g)
    train_ids = encode(train_ranks, offset=offset)
    model = BagClassifier(VOCAB_WORDS + 2, dim=32, padding_idx=0)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(train_ids, train_y, steps, g):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    test_ranks, test_y = corpus(1000, g)
    mon.heldout_accuracy = accuracy(model, encode(test_ranks, offset=offset), test_y)
    return mon
