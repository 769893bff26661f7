"""An RMSNorm that squares its input in the input's own dtype: under float16 autocast the
hidden activations reaching it are fp16, and any activation above 256 in magnitude squares
past fp16's largest number (65504) to inf. The mean of the squares is then inf,
``rsqrt(inf + eps)`` is 0, and the whole row normalises to exactly zero - no NaN (x * 0 is
0), no inf anywhere downstream, no skipped scaler step: those rows just predict the output
bias and pass no gradient to anything below the norm. The larger the row, the surer it is
silently zeroed.

Reported: "RMSNorm的代码问题" (a problem in the RMSNorm code) -
https://github.com/jingyaogong/minimind/issues/301 (minimind's RMSNorm computed
``x.pow(2).mean(-1)`` on the input as it came and only cast ``x`` to float32 for the
product, where Llama's reference casts to float32 before the square; the maintainer
agreed that the missing cast was a slip that lets the low-precision square go wrong and
fixed it to square the float32 copy).

Here a bag-of-words topic classifier (10 topics, 500 words, each topic favouring 10 of
them; documents of 10 to 3000 words, log-uniform, half of each document's words from its
topic): a summed ``EmbeddingBag(500, 64)``, Linear(64, 128), the RMSNorm, ReLU,
Linear(128, 10); the norm is what makes the sum independent of the document's length.
1400 documents to train, 400 held out, forward under ``torch.autocast("cpu",
dtype=torch.float16)`` with ``GradScaler("cpu")``, Adam at 3e-3, batches of 64. Fix: the
square and mean of ``x.float()``.

Measured (held-out accuracy): seed 0: 0.67 with the bug against 1.00 (0.9975) for the
fixed twin; seeds shifted by 1000: 0.69 against 0.995. 35% (33%) of the held-out
documents reach the norm with some activation above 256: the bug run zeroes them.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches

TITLE = "RMSNorm的代码问题"
LINK = "https://github.com/jingyaogong/minimind/issues/301"
EXPECTED = ("NORM_STATISTICS_OVERFLOW",)
STEPS = 300
TOPICS, WORDS, FAVOURED, LONGEST, SHORTEST = 10, 500, 10, 3000, 10
TRAIN, TEST = 1400, 400


class RMSNorm(nn.Module):
    def __init__(self, width, fixed, eps=1e-5):
        super().__init__()
        self.fixed, self.eps = fixed, eps
        self.weight = nn.Parameter(torch.ones(width))

    def forward(self, x):
        squares = x.float().pow(2) if self.fixed else x.pow(2)   # BUG: squared in fp16
        scale = torch.rsqrt(squares.mean(-1, keepdim=True).float() + self.eps)
        return self.weight * (x.float() * scale).type_as(x)


class BagClassifier(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.bag = nn.EmbeddingBag(WORDS, 64, mode="sum", padding_idx=0)
        self.body = nn.Sequential(nn.Linear(64, 128), RMSNorm(128, fixed), nn.ReLU(),
                                  nn.Linear(128, TOPICS))

    def forward(self, ids):
        return self.body(self.bag(ids))


def documents(count, generator):
    """(ids (count, LONGEST) int64, 0 = padding; topics (count,)); word 0 is never used."""
    favoured = torch.arange(1, 1 + TOPICS * FAVOURED).view(TOPICS, FAVOURED)
    topics = torch.randint(0, TOPICS, (count,), generator=generator)
    span = math.log(LONGEST / SHORTEST)
    lengths = (SHORTEST * torch.exp(span * torch.rand(count, generator=generator))).long()
    ids = torch.randint(1, WORDS, (count, LONGEST), generator=generator)
    pick = torch.randint(0, FAVOURED, (count, LONGEST), generator=generator)
    on_topic = torch.rand(count, LONGEST, generator=generator) < 0.5
    ids = torch.where(on_topic, favoured[topics][torch.arange(count)[:, None], pick], ids)
    ids[torch.arange(LONGEST)[None, :] >= lengths[:, None]] = 0
    return ids, topics


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    draws = torch.Generator().manual_seed(torch.randint(0, 2**31, ()).item())
    ids, topics = documents(TRAIN + TEST, draws)
    model = BagClassifier(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    scaler = torch.amp.GradScaler("cpu")
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, 64):
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.float16):
                loss = nn.functional.cross_entropy(model(ids[index]).float(), topics[index])
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            mon.step(loss)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
        hit = model(ids[TRAIN:]).float().argmax(-1) == topics[TRAIN:]
        hidden = model.body[0](model.bag(ids[TRAIN:]))
    mon.held_out_accuracy = hit.float().mean().item()
    mon.held_out_rows_overflowing = (hidden.abs() > 256).any(-1).float().mean().item()
    return mon
