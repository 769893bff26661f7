"""A memory-saving chunked cross-entropy (the logits cut into chunks of ``chunk_len`` rows,
each chunk's loss computed on its own so the float32 softmax of the whole vocabulary never
sits in memory at once) whose ``reduction="mean"`` path adds up the chunks' MEANS with
``+=``. The result is ``num_chunks`` times the true mean: 32 chunks of 32 tokens here, so
the loss and every gradient are 32x too large and plain SGD takes steps 32x the rate it was
tuned for. Nothing raises; the loss is merely "higher", and with one chunk (a short smoke
test) it is exact.

Reported: "ChunkedCrossEntropy returns num_chunks x the loss for reduction='mean' and
wrong-shaped output for 'none'" - https://github.com/NVIDIA-NeMo/Automodel/issues/3803 (the
fallback loop accumulates each chunk's ``compute_loss(..., reduction)`` with ``loss +=``;
against ``F.cross_entropy`` on 4,096 tokens the "mean" loss was 128x at the default
``chunk_len=32`` and exact only when a single chunk covers the sequence; fixed in
https://github.com/NVIDIA-NeMo/Automodel/pull/3804 by summing per-token losses over the
chunks and dividing once by the number of counted tokens). Here a next-character model on
the sonnets (8 previous characters embedded, an MLP over them), 1,024 predicted characters
per step in chunks of 32, SGD with momentum at a rate tuned for the true mean (under Adam, which
divides the scale out, the 32x would cost little). Fix: the
chunks' summed losses divided by the total number of tokens.

Measured (300 steps; held-out next-character accuracy on the last 10% of the text, which
training never reads): seed 0, 0.077 for the bug against 0.276 for the fixed twin; seeds
shifted by 1000, 0.086 against 0.262.
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters

TITLE = ("ChunkedCrossEntropy returns num_chunks x the loss for reduction='mean' and "
         "wrong-shaped output for 'none'")
LINK = "https://github.com/NVIDIA-NeMo/Automodel/issues/3803"
EXPECTED = ("LOSS_SCALED_BY_CHUNK_COUNT", "LR_TOO_HIGH")
STEPS = 300
CONTEXT, TOKENS, CHUNK_LEN = 8, 1024, 32       # 32 chunks per step (the report's chunk_len)


class NextChar(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, 24)
        self.mlp = nn.Sequential(nn.Linear(CONTEXT * 24, 256), nn.Tanh(), nn.Linear(256, vocab))

    def forward(self, context):
        return self.mlp(self.embed(context).flatten(1))


def chunked_cross_entropy(logits, targets, fixed):
    total = 0.0
    for logit_chunk, target_chunk in zip(logits.split(CHUNK_LEN), targets.split(CHUNK_LEN)):
        if fixed:
            total = total + F.cross_entropy(logit_chunk, target_chunk, reduction="sum")
        else:      # BUG: each chunk's MEAN added up - num_chunks times the mean
            total = total + F.cross_entropy(logit_chunk, target_chunk, reduction="mean")
    return total / len(targets) if fixed else total


def windows(ids, starts):
    offsets = torch.arange(CONTEXT + 1)
    rows = ids[starts[:, None] + offsets]
    return rows[:, :-1], rows[:, -1]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ids, vocab = characters()
    split = int(len(ids) * 0.9)
    model = NextChar(vocab)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            starts = torch.from_numpy(rng.integers(0, split - CONTEXT - 1, TOKENS))
            context, target = windows(ids, starts)
            optimizer.zero_grad()
            loss = chunked_cross_entropy(model(context), target, fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    context, target = windows(ids, torch.arange(split, len(ids) - CONTEXT - 1))
    with torch.no_grad():
        mon.held_out_accuracy = round(float((model(context).argmax(1) == target)
                                            .float().mean()), 3)
    return mon
