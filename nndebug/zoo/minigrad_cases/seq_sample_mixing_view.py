"""BATCH_MIXING: The embeddings (B, T, E) are turned into (T, B, E) with view instead of
transpose, then read back as batch-first. (minigrad)
"""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.minigrad_cases._seq_models import TinyGPT, counting_batches

NAME = "minigrad/seq-sample-mixing-view"
FRAMEWORK = "minigrad"
EXPECTED = 'BATCH_MIXING'
DESCRIPTION = ('The embeddings (B, T, E) are turned into (T, B, E) with view instead of transpose, '
               "then read back as batch-first: every sample's output now reads pieces of other "
               'samples.')
FIX = ('Swap dimensions with transpose/permute, never view/reshape: x.transpose(0, 1) '
       '(or keep everything batch-first).')
STEPS = 60


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    # BUG: view, not transpose, turns (B, T, E) into (T, B, E)
    model = TinyGPT(vocab=16, dim=16, length=16, heads=2, seq_first_view=True)
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
