"""A next-character model ported from TensorFlow calls F.softmax(scores) without a dim.
TensorFlow's softmax works over the last axis unless told otherwise; PyTorch's implicit choice
(kept for old Lua Torch code) is dim 0 for a 3-D tensor - for (batch, time, vocab) scores that
is the BATCH axis. Each character's 'probabilities' are normalised across the windows of the
batch, every prediction depends on the other samples, and the model it trains predicts badly
when its scores are read the right way.

Reported: "Throw an error instead of warning on Softmax Implicit dimension" -
https://github.com/pytorch/pytorch/pull/37399 ("I have been debugging my model for hours
until I realized I'm doing softmax along the wrong dimension because I didn't specify the
Dim"; the deprecation warning was lost in the output; the PR was declined for backward
compatibility, see also pytorch/pytorch#1763: "Like TensorFlow, ... default to the right-most
dimension"). Here an embedding-tanh-linear next-character model on the sonnets, trained on
log(F.softmax(scores)) with NLLLoss.

Measured (300 steps, 32 windows of 32 characters; cross-entropy of the scores over the
vocabulary, mean of the last 20 steps): bug 3.46, fixed 2.37 (uniform: 4.1).

Fix: F.softmax(scores, dim=-1) (or log_softmax(dim=-1) with NLLLoss, or cross_entropy on the
scores).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import characters, next_character_batches

TITLE = "Throw an error instead of warning on Softmax Implicit dimension"
LINK = "https://github.com/pytorch/pytorch/pull/37399"
EXPECTED = ("BATCH_MIXING", "LOG_PROBS_NORMALISED_OVER_BATCH")
STEPS = 300
LENGTH = 32


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = nn.Sequential(nn.Embedding(vocab, 32), nn.Tanh(), nn.Linear(32, vocab))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for inputs, targets in next_character_batches(ids, steps, LENGTH):
            optimizer.zero_grad()
            scores = model(inputs)                          # (batch, time, vocab)
            if fixed:
                probs = F.softmax(scores, dim=-1)
            else:
                probs = F.softmax(scores)               # BUG: implicit dim is 0, the batch
            loss = F.nll_loss(torch.log(probs).transpose(1, 2), targets)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
