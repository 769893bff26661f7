"""ATTENTION_SATURATED: a tiny GPT whose attention logits are not divided by sqrt(head dim)."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.minigrad_cases._attention_models import SoftmaxGPT
from nndebug.zoo.minigrad_cases._seq_models import counting_batches

NAME = "minigrad/seq-attention-unscaled"
FRAMEWORK = "minigrad"
EXPECTED = "ATTENTION_SATURATED"
DESCRIPTION = ("A one-block GPT (head dim 64) computes attention as softmax(q @ k^T) without "
               "the 1/sqrt(64): the logits are 8 times too large, the attention rows start "
               "sharply peaked and grow one-hot, where the softmax passes almost no gradient "
               "to the queries and keys.")
FIX = "scores = q @ k.transpose(-2, -1) / math.sqrt(head_dim) (scaled=True)."
STEPS = 30


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    model = SoftmaxGPT(vocab=16, dim=64, length=16, heads=1, scaled=False)  # BUG: no 1/sqrt(d)
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
