"""A hand-written masked-LM whose labels hold 0 - the padding id - wherever a token was not
chosen (meant as "no loss there"), while the cross-entropy is called without
ignore_index=0: the 0s are counted. Nine positions in ten (padding included) then teach
the model to output the padding id, whatever character it reads there; only the chosen
tenth teaches it to fill in a [MASK]. The loss falls fast and low (predicting the padding
id is easy), while the masked-LM head, which shares its output layer with the token
embedding, learns the real task slowly.

Reported: "do not count padding tokens in loss" -
https://github.com/EleutherAI/gpt-neo/pull/45 ("For BERT-like training. 0's in the labels
should not be counted in the loss"; the merged pull request leaves the label-0 positions
out of the loss). Here character sentences of the sonnets ([CLS] chars [SEP], padded to
40), 15% of the characters chosen with the 80/10/10 replacement, a BiGRU masked-LM with
its output layer tied to the token embedding, Adam 5e-3, 300 steps of 32 sentences.

Fix: leave the 0 labels out of the loss (cross_entropy(..., ignore_index=0)).

Measured (held-out masked-character accuracy, every chosen character a [MASK]): 0.359
with the bug, 0.401 fixed; seeds + 1000: 0.360 vs 0.410 (held-out masked loss 2.18 against
2.04; 2.19 against 2.07).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._mlm309 import (MASK, PAD, SHARE, TRAIN_TEXT, TinyBert,
                                          held_out_rows, masked_scores, random_characters,
                                          sentences, special)

TITLE = "do not count padding tokens in loss"
LINK = "https://github.com/EleutherAI/gpt-neo/pull/45"
EXPECTED = ("PADDING_NOT_MASKED",)
STEPS = 300


def mask_tokens(rows, generator):
    """(inputs, labels): labels are the chosen tokens, 0 (the padding id) everywhere else."""
    chosen = (torch.rand(rows.shape, generator=generator) < SHARE) & ~special(rows)
    labels = rows.masked_fill(~chosen, PAD)
    draw = torch.rand(rows.shape, generator=generator)
    inputs = rows.masked_fill(chosen & (draw < 0.8), MASK)
    swap = chosen & (draw >= 0.8) & (draw < 0.9)
    inputs = torch.where(swap, random_characters(rows.shape, generator), inputs)
    return inputs, labels


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    pool = sentences(TRAIN_TEXT, 4096, seed=0)
    model = TinyBert()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    g = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(pool), steps, batch_size=32, seed=0):
            inputs, labels = mask_tokens(pool[index], g)
            logits = model(inputs)
            if fixed:
                loss = F.cross_entropy(logits.transpose(1, 2), labels, ignore_index=PAD)
            else:
                loss = F.cross_entropy(logits.transpose(1, 2), labels)  # BUG: 0s counted
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy, mon.held_out_masked_loss = masked_scores(model, held_out_rows())
    return mon
