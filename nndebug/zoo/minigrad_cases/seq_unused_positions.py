"""POSITIONS_IGNORED: the positional embedding is looked up with position ids that are all
zero. (minigrad)
"""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.minigrad_cases._seq_models import TinyGPT, counting_batches

NAME = "minigrad/seq-unused-positions"
FRAMEWORK = "minigrad"
EXPECTED = 'POSITIONS_IGNORED'
DESCRIPTION = ("The model adds a learned positional embedding, but looks it up with position ids "
               "that are all zero (zeros_like(ids) where arange(T) was meant, like a position_ids "
               "buffer left unfilled): every position gets the same vector, and attention cannot "
               "tell positions apart.")
FIX = 'Look the embedding up with the positions: x = tok(ids) + pos_emb(arange(T)).'
STEPS = 60


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    model = TinyGPT(vocab=16, dim=16, length=16, heads=2, pos="zeros")  # BUG: position ids all zero
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
