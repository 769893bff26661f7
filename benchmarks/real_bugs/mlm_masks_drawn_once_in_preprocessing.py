"""A masked-LM pretraining script that draws the masks once, while preparing the data (as
BERT's create_pretraining_data step writes its masked examples to disk), then trains on
those same masked sentences epoch after epoch. Every sentence is always asked for the same
few characters with the same [MASK]s around them, so after a few passes the model answers
from memory: the training loss keeps falling while the loss on held-out sentences turns
and rises, and the characters of each sentence that were never chosen never teach
anything.

Reported: "Feature request: on-the-fly masking for pretraining (MLM + RTD)" -
https://github.com/keras-team/keras-hub/issues/796 ("the masking is all done statically
(before training ...). This means that on each epoch, the same tokens will be masked for
any given input"). Here 512 character sentences of the sonnets ([CLS] chars [SEP], padded
to 40), 15% of the characters chosen with the 80/10/10 replacement, a BiGRU masked-LM
with its output layer tied to the token embedding, Adam 5e-3, 300 steps of 32 sentences
(about 19 epochs), the held-out masked loss reported every 25 steps.

Fix: mask each batch when it is read (a new draw every time a sentence comes round).

Measured (held-out masked-character accuracy, every chosen character a [MASK]): 0.327
with the bug, 0.400 fixed; seeds + 1000: 0.317 vs 0.383 (held-out masked loss 4.21 against
2.16; 4.28 against 2.19).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._mlm309 import (MASK, SHARE, TRAIN_TEXT, TinyBert, held_out_rows,
                                          mask_for_evaluation, masked_scores,
                                          random_characters, sentences, special)

TITLE = "Feature request: on-the-fly masking for pretraining (MLM + RTD)"
LINK = "https://github.com/keras-team/keras-hub/issues/796"
EXPECTED = ("OVERFITTING",)
STEPS = 300
SENTENCES = 512


def mask_tokens(rows, generator):
    """15% of the real characters chosen, 80/10/10 replaced: (inputs, labels)."""
    chosen = (torch.rand(rows.shape, generator=generator) < SHARE) & ~special(rows)
    labels = rows.masked_fill(~chosen, -100)
    draw = torch.rand(rows.shape, generator=generator)
    inputs = rows.masked_fill(chosen & (draw < 0.8), MASK)
    swap = chosen & (draw >= 0.8) & (draw < 0.9)
    inputs = torch.where(swap, random_characters(rows.shape, generator), inputs)
    return inputs, labels


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    pool = sentences(TRAIN_TEXT, SENTENCES, seed=0)
    g = torch.Generator().manual_seed(0)
    if not fixed:
        stored_inputs, stored_labels = mask_tokens(pool, g)   # BUG: one draw, kept for good
    held = held_out_rows()
    held_inputs, held_labels = mask_for_evaluation(held)
    model = TinyBert()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(len(pool), steps, batch_size=32,
                                                   seed=0), 1):
            if fixed:
                inputs, labels = mask_tokens(pool[index], g)
            else:
                inputs, labels = stored_inputs[index], stored_labels[index]
            logits = model(inputs)
            loss = F.cross_entropy(logits.transpose(1, 2), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 25 == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(held_inputs).transpose(1, 2),
                                               held_labels).item()
                model.train()
            mon.step(loss, val_loss=val_loss)
    mon.held_out_accuracy, mon.held_out_masked_loss = masked_scores(model, held)
    return mon
