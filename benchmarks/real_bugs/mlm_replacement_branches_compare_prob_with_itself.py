"""A hand-written BERT masking step whose 80/10/10 branches compare the draw with a multiple
of itself: a token is chosen for prediction when prob < 0.15, and then "[MASK] if prob <
prob * 0.8, a random token if prob * 0.8 <= prob < prob * 0.9, else keep it". For any
positive prob the first two tests are false, so every chosen token is kept as it was: the
labels are the chosen tokens, and each one stands in the input at its own position. The
model learns to copy its input there, the loss falls to almost nothing, and it never
learns to fill in a [MASK], which it never sees.

Reported: "update dataset.py" - https://github.com/codertimo/BERT-pytorch/pull/23 ("if
condition prob < prob * 0.8 can't be true"; the repository's masking now rescales the
draw, prob /= 0.15, before comparing it with 0.8 and 0.9). Here the tutorial's loop on
character sentences of the sonnets ([CLS] chars [SEP], padded to 40), a BiGRU masked-LM
(BERT's Transformer in the report; the bug is in the data) under BERT's head, its output
layer tied to the token embedding, Adam 5e-3, 300 steps of 32 sentences.

Fix: rescale the draw to the chosen share first (prob / 0.15), then [MASK] below 0.8, a
random character below 0.9, the token kept otherwise.

Measured (held-out masked-character accuracy, every chosen character a [MASK]): 0.002
with the bug, 0.404 fixed; seeds + 1000: 0.009 vs 0.392 (held-out masked loss 7.3 against
2.1: the bug run has never seen a [MASK]).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._mlm309 import (MASK, SHARE, TRAIN_TEXT, TinyBert,
                                          held_out_rows, masked_scores, random_characters,
                                          sentences, special)

TITLE = "update dataset.py"
LINK = "https://github.com/codertimo/BERT-pytorch/pull/23"
EXPECTED = ("LOSS_READS_UNMASKED_TOKENS", "TARGETS_IN_INPUTS")
STEPS = 300


def random_word(rows, generator, fixed):
    """The tutorial's per-token draw, vectorised: (inputs, labels)."""
    prob = torch.rand(rows.shape, generator=generator)
    chosen = (prob < SHARE) & ~special(rows)
    replacement = random_characters(rows.shape, generator)
    if fixed:
        prob = prob / SHARE
        to_mask, to_random = prob < 0.8, (prob >= 0.8) & (prob < 0.9)
    else:
        to_mask = prob < prob * 0.8                              # BUG: never true
        to_random = (prob * 0.8 <= prob) & (prob < prob * 0.9)   # BUG: never true
    inputs = rows.masked_fill(chosen & to_mask, MASK)
    swap = chosen & to_random
    inputs = torch.where(swap, replacement, inputs)
    labels = rows.masked_fill(~chosen, -100)
    return inputs, labels


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    pool = sentences(TRAIN_TEXT, 4096, seed=0)
    model = TinyBert()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    g = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(pool), steps, batch_size=32, seed=0):
            rows = pool[index]
            inputs, labels = random_word(rows, g, fixed)
            logits = model(inputs)
            loss = F.cross_entropy(logits.transpose(1, 2), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy, mon.held_out_masked_loss = masked_scores(model, held_out_rows())
    return mon
