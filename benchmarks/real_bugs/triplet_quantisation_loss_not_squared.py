"""A triplet-loss hashing model whose quantisation loss forgot its square: the term meant
to pull each real-valued embedding z onto its binary code b = sign(z),
mean(sum((z - b) ** 2)), was written mean(sum(z - b)). That difference is linear in z: its
gradient is the same constant for every unit of every sample, so it is no longer pulled to
its code but pushed down without limit. The loss goes on falling (below zero, ever
faster) while every unit of every embedding drifts negative, every code becomes all -1s,
and Hamming ranking can no longer tell one digit from another.

Reported: "weak-Orthogonal Quantization" - https://github.com/thulab/DeepHash/issues/35
("the implementation doesn't square the quantization loss as the paper suggests"; the
maintainer: "I found it's a bug which I made accidentally", fixed; lambda "small enough
such as 1e-4"). DTQ quantises with learned codebooks; here the codebook is the binary one
(b = sign(z), as sign-binarising hashing models do), on the 8x8 digits: a 64 -> 128 ->
16-unit MLP with linear output, a triplet hinge (margin 4, squared Euclidean distances)
over every valid triplet in a batch of 64, quantisation weight 0.01, Adam 1e-3, 400
steps; 500 held-out digits ranked by the Hamming distance of their codes against the 1297
training digits. Fix: square the difference, mean(sum((z - b) ** 2)).

Measured (held-out mAP under Hamming ranking): 0.106 with the bug (chance: every code the
same), 0.824 fixed; seeds + 1000: 0.104 vs 0.823.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._hash346 import HashMLP, retrieval_map, split

TITLE = "weak-Orthogonal Quantization"
LINK = "https://github.com/thulab/DeepHash/issues/35"
EXPECTED = ("LOSS_UNBOUNDED_BELOW",)
STEPS = 400
BITS = 16
MARGIN = 4.0
Q_WEIGHT = 0.01


def triplet_loss(z, labels):
    dist = (z[:, None, :] - z[None, :, :]).pow(2).sum(2)
    same = labels[:, None] == labels[None, :]
    positive = same & ~torch.eye(len(labels), dtype=torch.bool)
    valid = positive[:, :, None] & ~same[:, None, :]   # anchor, positive, negative
    hinge = (dist[:, :, None] - dist[:, None, :] + MARGIN).clamp(min=0)
    return hinge[valid].mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xq, yq = split()
    model = HashMLP(BITS)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64):
            z = model(x[index])
            b = torch.sign(z).detach()                  # the nearest binary code
            if fixed:
                quantisation = (z - b).pow(2).sum(1).mean()
            else:                                       # BUG: the square is missing
                quantisation = (z - b).sum(1).mean()
            loss = triplet_loss(z, y[index]) + Q_WEIGHT * quantisation
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_map = retrieval_map(model, x, y, xq, yq)
    return mon
