"""Healthy: a tiny GPT with a causal mask learns to continue counting sequences. (minigrad)"""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.minigrad_cases._seq_models import TinyGPT, counting_batches

NAME = "minigrad/seq-healthy-gpt"
FRAMEWORK = "minigrad"
EXPECTED = None
DESCRIPTION = ('A one-block GPT (token + learned positional embedding, causal self-attention, '
               'MLP) trained on next-token prediction with targets shifted by one: nothing is '
               'wrong, and the dependency probes that nd.watch runs once early stay silent.')
FIX = 'Nothing to fix.'
STEPS = 60


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    model = TinyGPT(vocab=16, dim=16, length=16, heads=2, mask="causal")
    optimizer = optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, loss_fn=loss_fn, **watch) as mon:
        for ids, targets in counting_batches(steps):
            optimizer.zero_grad()
            logits = model(ids)                                   # (B, T, vocab)
            loss = loss_fn(logits.reshape(-1, 16), targets.reshape(-1))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
