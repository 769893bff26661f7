"""PADDING_NOT_MASKED: a tiny GPT on padded batches, the loss trained on the padding too."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo._padded_sequences import VOCAB, padded_batches
from nndebug.zoo.torch_cases._seq_models import TinyGPT

NAME = "torch/seq-padding-not-masked"
FRAMEWORK = "torch"
EXPECTED = "PADDING_NOT_MASKED"
DESCRIPTION = ("A one-block GPT on batches of sequences padded at the end with id 0; the "
               "targets are padded with 0 too, and CrossEntropyLoss does not ignore it: a "
               "third of what the model is trained on is 'predict padding after padding'. "
               "The loss falls and looks fine; it measures padding, not the task.")
FIX = ("Tell the loss which id is padding: nn.CrossEntropyLoss(ignore_index=PAD) (or set "
       "padded targets to -100, the default ignore_index).")
STEPS = 60


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    model = TinyGPT(vocab=VOCAB, dim=16, length=16, heads=2, mask="causal")
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()        # BUG: padded targets (id PAD) are not ignored
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
