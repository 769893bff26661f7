"""Healthy: the twin of seq-attention-unscaled, its attention logits scaled by 1/sqrt(head dim)."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.minigrad_cases._attention_models import SoftmaxGPT
from nndebug.zoo.minigrad_cases._seq_models import counting_batches

NAME = "minigrad/seq-healthy-attention"
FRAMEWORK = "minigrad"
EXPECTED = None
DESCRIPTION = ("A one-block GPT (head dim 64) whose attention is softmax(q @ k^T / sqrt(64)), "
               "F.softmax in the torch case, an nn.Softmax module in the minigrad one: attention "
               "starts near uniform and sharpens "
               "as it learns. Nothing is wrong.")
FIX = "Nothing to fix."
STEPS = 30


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    model = SoftmaxGPT(vocab=16, dim=64, length=16, heads=1, scaled=True)
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
