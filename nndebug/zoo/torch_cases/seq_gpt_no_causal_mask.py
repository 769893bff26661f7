"""FUTURE_LEAK: A one-block GPT trained on next-token prediction, but its self-attention has no
causal mask.
"""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.torch_cases._seq_models import TinyGPT, counting_batches

NAME = "torch/seq-gpt-no-causal-mask"
FRAMEWORK = "torch"
EXPECTED = "FUTURE_LEAK"
DESCRIPTION = ('A one-block GPT trained on next-token prediction, but its self-attention has no '
               'causal mask: the output at position t reads position t + 1, the very token it is '
               'asked to predict. The loss falls fast; generation would be rubbish.')
FIX = ('Hide the future before the softmax: scores.masked_fill(triu(ones(T, T), 1), '
       '-inf) (mask="causal" in _seq_models.SelfAttention).')
STEPS = 60


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    model = TinyGPT(vocab=16, dim=16, length=16, heads=2, mask="none")  # BUG: no causal mask
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
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
