"""TARGETS_IN_INPUTS: Next-token prediction with the labels left unshifted."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.torch_cases._seq_models import TinyGPT, counting_batches

NAME = "torch/seq-unshifted-labels"
FRAMEWORK = "torch"
EXPECTED = "TARGETS_IN_INPUTS"
DESCRIPTION = ('Next-token prediction with the labels left unshifted: the target of each '
               'position is the input at that same position, so the causal model learns to copy '
               'its input - perfectly and uselessly.')
FIX = 'Shift once: inputs = seq[:, :-1], targets = seq[:, 1:].'
STEPS = 60


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    model = TinyGPT(vocab=16, dim=16, length=16, heads=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, loss_fn=loss_fn, **watch) as mon:
        for ids, targets in counting_batches(steps, shift=0):  # BUG: labels not shifted
            optimizer.zero_grad()
            logits = model(ids)                                   # (B, T, vocab)
            loss = loss_fn(logits.reshape(-1, 16), targets.reshape(-1))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
