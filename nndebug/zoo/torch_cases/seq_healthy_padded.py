"""Healthy: a tiny GPT on padded batches, the padding ignored by the loss."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo._padded_sequences import PAD, VOCAB, padded_batches
from nndebug.zoo.torch_cases._seq_models import TinyGPT

NAME = "torch/seq-healthy-padded"
FRAMEWORK = "torch"
EXPECTED = None
DESCRIPTION = ("The twin of seq-padding-not-masked: the same padded batches, and "
               "CrossEntropyLoss(ignore_index=PAD) skips the padded targets. Nothing is wrong.")
FIX = "Nothing to fix."
STEPS = 60


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    model = TinyGPT(vocab=VOCAB, dim=16, length=16, heads=2, mask="causal")
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
    with nd.watch(model, optimizer, loss_fn=loss_fn, **watch) as mon:
        for ids, targets in padded_batches(steps):
            ids, targets = torch.from_numpy(ids), torch.from_numpy(targets)
            optimizer.zero_grad()
            logits = model(ids)                                   # (B, T, vocab)
            loss = loss_fn(logits.reshape(-1, VOCAB), targets.reshape(-1))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
