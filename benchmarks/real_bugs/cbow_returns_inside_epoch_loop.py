"""A hand-written CBOW trainer whose ``return`` sits INSIDE the epoch loop: the function
hands back the vectors at the end of the first epoch, whatever ``n_epochs`` says. Every
later epoch is silently skipped; the loss printed for epoch 1 looks ordinary, and raising
the epoch count changes nothing.

Reported: "Error in CBOW" - https://github.com/monarch-initiative/embiggen/issues/197 (the
CBOW implementation "has a return statement inside the epoch loop, hence it never did more
than a single epoch"; a maintainer: "I was thinking that there must be a bug somewhere
because I did not see any improvements in AUC score when I increased number of epochs").
Here a CBOW with negative sampling written the same way (the averaged context vectors
against the target's output vector, 5 noise words from the unigram^0.75 distribution,
Adam at 0.01, dim 32) on the batch-123 corpus (benchmarks/real_bugs/_word_embeddings.py)
with its topic share lowered to 0.3 (1000 sentences, windows of 2 words on each side),
6 epochs of shuffled batches of 128 windows. Fix: return after the loop.

Measured (neighbour precision of the context vectors: the share of each content word's 5
nearest words from its own topic, chance 0.12): seed 0: 0.20 with the bug (46
optimizer steps), 0.96 fixed (276); seeds shifted by 1000: 0.14 against 0.98.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._w2v import (VOCAB, cbow_windows, draw_noise, neighbour_precision,
                                       noise_distribution, sentences)

TITLE = "Error in CBOW"
LINK = "https://github.com/monarch-initiative/embiggen/issues/197"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 400
SENTENCES, TOPIC_SHARE = 1000, 0.3
EPOCHS, DIM, NEG, BATCH, LR = 6, 32, 5, 128, 0.01


class CBOW(nn.Module):
    def __init__(self, vocab=VOCAB, dim=DIM):
        super().__init__()
        self.context = nn.Embedding(vocab, dim)              # the vectors handed out
        self.output = nn.Embedding(vocab, dim)
        nn.init.uniform_(self.context.weight, -0.5 / dim, 0.5 / dim)
        nn.init.zeros_(self.output.weight)

    def forward(self, contexts, targets, negatives):
        h = self.context(contexts).mean(1)                           # B x D
        positive = (self.output(targets) * h).sum(1)
        negative = torch.bmm(self.output(negatives), h.unsqueeze(2)).squeeze(2)
        return -(F.logsigmoid(positive) + F.logsigmoid(-negative).sum(1)).mean()


def train(model, optimizer, contexts, targets, noise, mon, fixed, steps):
    done = 0
    for _ in range(EPOCHS):
        order = torch.randperm(len(targets))
        for start in range(0, len(order) - BATCH + 1, BATCH):
            if done == steps:
                return model
            pick = order[start:start + BATCH]
            optimizer.zero_grad()
            loss = model(contexts[pick], targets[pick], draw_noise(noise, BATCH, NEG))
            loss.backward()
            optimizer.step()
            mon.step(loss)
            done += 1
        if not fixed:
            return model     # BUG: inside the epoch loop - only the first epoch is trained
    return model


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ids, _ = sentences(SENTENCES, rng, TOPIC_SHARE)
    contexts, targets = cbow_windows(ids)
    noise = noise_distribution(ids)
    model = CBOW()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        train(model, optimizer, contexts, targets, noise, mon, fixed, steps)
    mon.neighbour_precision = neighbour_precision(model.context.weight)
    return mon
