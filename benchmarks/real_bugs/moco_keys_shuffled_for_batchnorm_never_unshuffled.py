"""MoCo's key batch is shuffled before the key encoder (the "shuffle BN" trick, so that a
query and its positive key do not share batch statistics) and the keys are never put
back in the original order: the "positive" key of query i is the key of another, random
image of the batch. Every step the loss asks each view to match a stranger and to push
away (through the queue) keys from earlier batches; the encoder learns to satisfy an
arbitrary pairing that changes every step. The InfoNCE loss still moves, nothing
errors, and the features end no better than an untrained encoder's.

Reported: "an issue about shuffling BN" - https://github.com/CoinCheung/DenseCL/issues/1
("In your moco.py, I think 'dense_k' and 'feat_k' also need to be unshuffled back";
the author: "Yes, it is my fault. I am fixing it"; the reporter also saw "the top1 acc of
dense logits can achieve 100% in the second epoch"). Here a digits MLP encoder trained
MoCo-style (queue of 256 keys, momentum 0.99, temperature 0.2) on two random views of
each digit (shift, pixel mask, noise); the encoder has no BatchNorm, so the shuffle's
only effect is the order it leaves behind. A nearest-centroid probe reads the query
encoder on augmented held-out digits.
Fix: k = k[idx_unshuffle] (the inverse permutation) before the loss and the enqueue.

Measured (300 steps, batch 128): held-out probe accuracy 0.255 for the bug against 0.562
for the fixed twin at seed 0; seeds + 1000: 0.254 against 0.594 (the untrained encoder
scores 0.227 and 0.251: the bug's features are no better).
"""
import copy

import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._ssl179 import digits, probe_accuracy, two_view_batches
from benchmarks.real_bugs._ssl_digits import encoder, info_nce

TITLE = "an issue about shuffling BN"
LINK = "https://github.com/CoinCheung/DenseCL/issues/1"
EXPECTED = ("CONTRASTIVE_POSITIVES_MISPAIRED",)
STEPS = 300
QUEUE = 256
MOMENTUM = 0.99


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    query = encoder()
    key = copy.deepcopy(query)
    for p in key.parameters():
        p.requires_grad_(False)
    queue = F.normalize(torch.randn(QUEUE, 32), dim=1)
    optimizer = torch.optim.Adam(query.parameters(), lr=1e-3)
    with nd.watch(query, optimizer, **watch) as mon:
        for im_q, im_k in two_view_batches(x, steps):
            q = query(im_q)
            with torch.no_grad():
                for pk, pq in zip(key.parameters(), query.parameters()):
                    pk.mul_(MOMENTUM).add_(pq.detach(), alpha=1 - MOMENTUM)
                idx_shuffle = torch.randperm(len(im_k))
                idx_unshuffle = torch.argsort(idx_shuffle)
                k = key(im_k[idx_shuffle])
                if fixed:
                    k = k[idx_unshuffle]
                # BUG (fixed=False): the keys stay in the shuffled order
            loss = info_nce(q, k, queue)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            queue = torch.cat([F.normalize(k, dim=1), queue])[:QUEUE]
            mon.step(loss)
    mon.held_out_probe_accuracy = probe_accuracy(query, x, y)
    return mon
