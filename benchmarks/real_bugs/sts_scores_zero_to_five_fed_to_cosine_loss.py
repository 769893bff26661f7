"""A hand-written SBERT-style regression on sentence pairs whose gold scores are left on the
STS scale, 0 to 5, while the model's output is the cosine similarity of the two sentence
embeddings, which never leaves [-1, 1]. Every pair scored above 1 (most of them) asks for a
cosine the model cannot give, so the squared error keeps pulling every pair's cosine up to
1: the embeddings crowd into one direction and the graded differences between pairs - the
whole point of the score - are squeezed out. The loss falls (to a floor set by the
unreachable targets) and nothing errors.

Reported: "Label range." - https://github.com/huggingface/sentence-transformers/issues/1095
(a user training on their own pairs: "I thought to set the label range 0-5 like STS
dataset. In this case, should I normalize the labels"; the maintainer: with the cosine
similarity loss the "label range has to be in -1 to 1"). Here the synthetic STS-like pairs
of ``_sbert296`` (0-5 scores), one transformer encoder with masked mean pooling applied to
both sentences, the cosine of the two embeddings regressed on the score with MSE, Adam
(lr 1e-3), 300 steps of 32 pairs.

Fix: divide the scores by 5 (targets in [0, 1], as the SBERT STS example does).

Measured (held-out Spearman of the cosine against the gold score, 600 pairs): 0.79 with the
bug, 0.93 fixed; seeds + 1000: 0.68 vs 0.93.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._sbert296 import Encoder, held_out_spearman, pairs, trimmed

TITLE = "Label range."
LINK = "https://github.com/huggingface/sentence-transformers/issues/1095"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 300


class SiameseCosine(nn.Module):
    """One encoder for both sentences; the output is their cosine similarity."""

    def __init__(self):
        super().__init__()
        self.encoder = Encoder()

    def forward(self, first, second):
        return F.cosine_similarity(self.encoder(first), self.encoder(second), dim=-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (a, b, score), held = pairs()
    target = score / 5 if fixed else score       # BUG: 0-5 scores against a cosine in [-1, 1]
    model = SiameseCosine()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(a), steps, seed=0):
            optimizer.zero_grad()
            loss = F.mse_loss(model(trimmed(a[index]), trimmed(b[index])), target[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_spearman = held_out_spearman(model.encoder, model.encoder, held)
    return mon
