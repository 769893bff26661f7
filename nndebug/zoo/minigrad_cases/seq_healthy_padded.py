"""Healthy: a tiny GPT on padded batches, the padding ignored by the loss."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo._padded_sequences import PAD, VOCAB, padded_batches
from nndebug.zoo.minigrad_cases._seq_models import TinyGPT

NAME = "minigrad/seq-healthy-padded"
FRAMEWORK = "minigrad"
EXPECTED = None
DESCRIPTION = ("The twin of seq-padding-not-masked: the same padded batches, and "
               "CrossEntropyLoss(ignore_index=PAD) skips the padded targets. Nothing is wrong.")
FIX = "Nothing to fix."
STEPS = 60


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    model = TinyGPT(vocab=VOCAB, dim=16, length=16, heads=2, mask="causal")
    optimizer = optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
    with nd.watch(model, optimizer, loss_fn=loss_fn, **watch) as mon:
        for ids, targets in padded_batches(steps):
            ids, targets = mg.tensor(ids), mg.tensor(targets)
            optimizer.zero_grad()
            logits = model(ids)                                   # (B, T, vocab)
            loss = loss_fn(logits.reshape(-1, VOCAB), targets.reshape(-1))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
