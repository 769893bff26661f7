"""A hand-written siamese sentence encoder (SBERT-style) built with two encoders, one for
the first sentence of each pair and one for the second, where the SBERT paper's "siamese"
means one network with tied weights applied to both. The loss only ever compares a
first-tower embedding with a second-tower one, so the two towers learn two different maps
that agree with each other on the training pairs, and nothing makes either tower put two
similar sentences together on its own. The loss falls as the shared model's does; the damage
shows where a sentence encoder is used - one encoder embedding every sentence, the way an
SBERT model embeds a corpus once and compares any two of them.

Reported: "Implementation of Siamese transformer" -
https://github.com/huggingface/sentence-transformers/issues/298 (a user re-implementing
SBERT "closely referring to the SBERT figure" loads ``model_a`` and ``model_b`` as two
separate pretrained models; the maintainer, in issue 199 of the same repository: "Only one
Bert is used", the tied weights are one network). Here the synthetic STS-like pairs of
``_sbert296``, two transformer encoders with masked mean pooling (one per side), the cosine
of the two embeddings regressed on score / 5 with MSE, Adam (lr 1e-3), 300 steps of 32
pairs; the first tower is kept as "the" encoder.

Fix: one encoder applied to both sentences of the pair.

Measured (held-out Spearman against the gold score, 600 pairs, both sentences embedded by
the kept encoder): 0.898 with the bug, 0.926 fixed; seeds + 1000: 0.899 vs 0.927
(a modest but steady loss: the towers see the same kind of sentences on both sides, so
they drift apart only partly).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._sbert296 import Encoder, held_out_spearman, pairs, trimmed

TITLE = "Implementation of Siamese transformer"
LINK = "https://github.com/huggingface/sentence-transformers/issues/298"
EXPECTED = ("SIAMESE_TOWERS_NOT_SHARED",)
STEPS = 300


class TwoTowers(nn.Module):
    def __init__(self):
        super().__init__()
        self.model_a = Encoder()
        self.model_b = Encoder()               # BUG: a second, untied encoder

    def forward(self, first, second):
        return F.cosine_similarity(self.model_a(first), self.model_b(second), dim=-1)


class Siamese(nn.Module):
    def __init__(self):
        super().__init__()
        self.model_a = Encoder()

    def forward(self, first, second):
        return F.cosine_similarity(self.model_a(first), self.model_a(second), dim=-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (a, b, score), held = pairs()
    model = Siamese() if fixed else TwoTowers()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(a), steps, seed=0):
            optimizer.zero_grad()
            loss = F.mse_loss(model(trimmed(a[index]), trimmed(b[index])), score[index] / 5)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_spearman = held_out_spearman(model.model_a, model.model_a, held)
    return mon
