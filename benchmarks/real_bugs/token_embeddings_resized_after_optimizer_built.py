"""The token embedding is resized for newly added tokens AFTER the optimizer was built: the
optimizer still holds the old embedding matrix, which is no longer in the model, so the new
matrix - the old rows copied plus the added tokens' rows - never takes a step. The added
tokens keep their small random initialisation and the whole table stays at its start.

Reported: "Resizing embedding matrix before sending it to the optimizer." -
https://github.com/huggingface/transformers/pull/3532 (the language-model fine-tuning
script called resize_token_embeddings after passing the parameters to the optimizer, "so
the wrong set of params for the embedding table were optimized"; the author "spent a couple
of hours trying to figure out why my token embeddings were not being updated with their
corresponding gradient"). Here a bag-of-embeddings classifier of the batch-215 corpus
(benchmarks/real_bugs/_emb.py) whose 8 cue words are the added tokens: the base vocabulary
maps them to the unknown id; after adding them, the table grows by 8 rows initialised as
transformers does (normal, std 0.02). Fix: resize first, then build the optimizer.

Measured harm (held-out accuracy, 1000 sentences, 4 classes): 0.246 vs 0.954 fixed at seed 0;
seeds + 1000: 0.263 vs 0.971.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._emb import (CUES, VOCAB_WORDS, BagClassifier, accuracy, batches,
                                       corpus, encode)

TITLE = "Resizing embedding matrix before sending it to the optimizer."
LINK = "https://github.com/huggingface/transformers/pull/3532"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 300
BASE_VOCAB = VOCAB_WORDS + 2 - CUES      # pad 0, unk 1, the filler words; cues are unknown


def resize_token_embeddings(model, size):
    """As transformers does: a new table, the old rows copied, new rows normal(0, 0.02)."""
    old = model.emb
    new = nn.Embedding(size, old.embedding_dim, padding_idx=old.padding_idx)
    nn.init.normal_(new.weight, std=0.02)
    with torch.no_grad():
        new.weight[:old.num_embeddings] = old.weight
    model.emb = new


def data(generator, count):
    ranks, labels = corpus(count, generator)
    # base vocabulary: filler rank r (8..299) at row r - 6; the cue words (ranks 0..7) are
    # the added tokens, rows BASE_VOCAB.. once the table is resized
    ids = encode(ranks, offset=2 - CUES)
    cue = (ranks >= 0) & (ranks < CUES)
    return torch.where(cue, BASE_VOCAB + ranks, ids), labels


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(int(torch.randint(10 ** 6, ())))
    train_ids, train_y = data(g, 2000)
    model = BagClassifier(BASE_VOCAB, dim=16)
    if fixed:
        resize_token_embeddings(model, BASE_VOCAB + CUES)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    if not fixed:   # BUG: the tokens are added after the optimizer holds the old table
        resize_token_embeddings(model, BASE_VOCAB + CUES)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(train_ids, train_y, steps, g):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    test_ids, test_y = data(g, 1000)
    mon.heldout_accuracy = accuracy(model, test_ids, test_y)
    return mon
