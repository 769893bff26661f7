"""A full-softmax skip-gram that builds its two tables - centre vectors v and outside
vectors u - but looks EVERY word up in the centre table: ``outside_embedding =
self.embedding_center(outside)`` and ``all_vocabs_embedding =
self.embedding_center(all_vocabs)``. The outside table is never read (no gradient ever
reaches it), and each word's probability of appearing next to itself is its own squared
norm: the softmax over the vocabulary is dominated by the centre word's own score, so
co-occurring words can only be made likely by dragging every word's vector towards its
neighbours'. It trains, the loss falls; the vectors come out worse.

Reported: "embedding_outside not used in Skipgram.forward() (01 - Word2Vec
(Skipgram).ipynb)" -
https://github.com/chaklam-silpasuwanchai/Python-fo-Natural-Language-Processing/issues/6
(the class defines ``embedding_center`` and ``embedding_outside`` but forward uses only
``embedding_center``, "even for the outside words and vocab logits"; the author: "You might
be correct! I will fix it"). Here the notebook's model (two nn.Embedding tables, default
N(0, 1) init, ``exp(u_o.v_c) / sum_w exp(u_w.v_c)`` over the whole vocabulary, the mean of
its minus log, Adam) at dim 32, Adam at 0.05 where the notebook trains 2-d vectors on a toy
corpus at 0.001, on the corpus of benchmarks/real_bugs/_w2v.py that tells the two kinds of
similarity apart: 16 groups of 4 interchangeable words that never share a sentence, each
group with 6 cue words of its own, plus 32 Zipf-frequent function words (6000 sentences of
10 words, window 2), batches of 128 (centre, outside) pairs. Fix: the outside and
vocabulary vectors from ``embedding_outside``.

Measured (synonym precision of the centre vectors: the share of each interchangeable
word's 3 nearest words that are its group's other interchangeable words, chance 0.016):
seed 0: 0.005 with the bug, 0.21 fixed; seeds shifted by 1000: 0.016 (chance) against
0.22. (On batch 123's topic corpus, where the words that meet are also the words that
share contexts, the bug does no harm: its vectors even cluster the topics faster.)
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._w2v import (SYN_VOCAB, skipgram_pairs, synonym_precision,
                                       synonym_sentences)

TITLE = ("embedding_outside not used in Skipgram.forward() (01 - Word2Vec (Skipgram).ipynb)")
LINK = "https://github.com/chaklam-silpasuwanchai/Python-fo-Natural-Language-Processing/issues/6"
EXPECTED = ("NO_GRADIENT", "PARAMS_NOT_UPDATING")
STEPS = 300
SENTENCES, DIM, BATCH, LR = 6000, 32, 128, 0.05


class Skipgram(nn.Module):
    def __init__(self, voc_size=SYN_VOCAB, emb_size=DIM, fixed=False):
        super().__init__()
        self.embedding_center = nn.Embedding(voc_size, emb_size)
        self.embedding_outside = nn.Embedding(voc_size, emb_size)
        self.fixed = fixed

    def forward(self, center, outside, all_vocabs):
        center_embedding = self.embedding_center(center)              # (B, 1, D)
        table = self.embedding_outside if self.fixed else self.embedding_center  # BUG
        outside_embedding = table(outside)                            # (B, 1, D)
        all_vocabs_embedding = table(all_vocabs)                      # (B, V, D)
        top_term = torch.exp(outside_embedding.bmm(center_embedding.transpose(1, 2)).squeeze(2))
        lower_term = all_vocabs_embedding.bmm(center_embedding.transpose(1, 2)).squeeze(2)
        lower_term_sum = torch.sum(torch.exp(lower_term), 1, keepdim=True)
        return -torch.mean(torch.log(top_term / lower_term_sum))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ids = synonym_sentences(SENTENCES, rng)
    centre, context = skipgram_pairs(ids)
    model = Skipgram(fixed=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    all_vocabs = torch.arange(SYN_VOCAB).expand(BATCH, SYN_VOCAB)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.randint(0, len(centre), (BATCH,))
            optimizer.zero_grad()
            loss = model(centre[pick, None], context[pick, None], all_vocabs)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.neighbour_precision = synonym_precision(model.embedding_center.weight)
    return mon
