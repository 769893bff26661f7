"""Gradient caching (GradCache) for a large-batch contrastive loss in little memory, written
without restoring the random state between its two passes. Pass one encodes the whole
batch chunk by chunk under ``no_grad``, computes the in-batch InfoNCE loss on those cached
embeddings and its gradient with respect to each embedding; pass two re-encodes each chunk
WITH gradients and back-propagates the cached embedding gradients through it. The encoder
has dropout, and pass two draws NEW masks: the embedding gradients belong to one network,
the Jacobian they are pushed through to another. The loss logged is pass one's and looks
like a contrastive loss falling slowly; nothing errors.

Reported: "Gradient caching vs Model dropout" - https://github.com/luyug/GC-DPR/issues/12
("The backbone model has randomized dropout process, the dropout will make the 1 & 2 to be
inconsistent. 1's dropout process will be different from 2, so 1's gradient can not be
directly applied to 2"; the maintainer: the training code snapshots the random states with
a ``RandContext`` in the first forward and restores them at the beginning of the second,
which is the fix). Here an encoder MLP with Dropout(0.3) learns 32-d embeddings of the
digits from two noisy, pixel-dropped views of each image (a SimCLR-style in-batch InfoNCE,
temperature 0.1), batches of 256 in 4 cached chunks, Adam. Fix: the CPU random state saved
before each chunk's pass-one forward and restored before its pass-two forward.

Measured (300 steps; 1-nearest-neighbour class accuracy of the 360 held-out digits'
embeddings against the training digits', eval mode): seed 0, 0.672 for the bug against 0.925
for the fixed twin; seeds shifted by 1000, 0.781 against 0.914.
"""
import torch
from torch import nn
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._mem158 import digits_split

TITLE = "Gradient caching vs Model dropout"
LINK = "https://github.com/luyug/GC-DPR/issues/12"
EXPECTED = ("RECOMPUTED_FORWARD_DIFFERS",)
STEPS = 300
BATCH, CHUNKS, TEMPERATURE, DROPOUT = 256, 4, 0.1, 0.3


def noisy_view(x):
    return (x + 0.25 * torch.randn_like(x)) * (torch.rand_like(x) > 0.2)


def nearest_neighbour_accuracy(model, x_train, y_train, x_test, y_test):
    model.eval()
    with torch.no_grad():
        bank = F.normalize(model(x_train), dim=1)
        queries = F.normalize(model(x_test), dim=1)
        share = float((y_train[(queries @ bank.T).argmax(1)] == y_test).float().mean())
    model.train()
    return round(share, 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = digits_split()
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(DROPOUT),
                          nn.Linear(128, 128), nn.ReLU(), nn.Dropout(DROPOUT),
                          nn.Linear(128, 32))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x_train), steps, BATCH):
            queries = noisy_view(x_train[index]).chunk(CHUNKS)
            documents = noisy_view(x_train[index]).chunk(CHUNKS)
            # pass one: every chunk's embeddings without a graph, and the loss on them
            states, cached_q, cached_d = [], [], []
            with torch.no_grad():
                for q, d in zip(queries, documents):
                    states.append(torch.get_rng_state())
                    cached_q.append(model(q))
                    cached_d.append(model(d))
            emb_q = torch.cat(cached_q).requires_grad_()
            emb_d = torch.cat(cached_d).requires_grad_()
            logits = F.normalize(emb_q, dim=1) @ F.normalize(emb_d, dim=1).T / TEMPERATURE
            loss = F.cross_entropy(logits, torch.arange(len(logits)))
            loss.backward()                       # gradients of the cached embeddings only
            # pass two: each chunk again with a graph, the cached gradients pushed through it
            optimizer.zero_grad()
            for i, (q, d, grad_q, grad_d) in enumerate(zip(
                    queries, documents, emb_q.grad.chunk(CHUNKS), emb_d.grad.chunk(CHUNKS))):
                if fixed:                         # RandContext: pass one's dropout masks
                    outer = torch.get_rng_state()
                    torch.set_rng_state(states[i])
                # BUG (fixed=False): this forward draws new dropout masks
                surrogate = (model(q) * grad_q).sum() + (model(d) * grad_d).sum()
                surrogate.backward()
                if fixed:
                    torch.set_rng_state(outer)
            optimizer.step()
            mon.step(loss)
    mon.held_out_nn_accuracy = nearest_neighbour_accuracy(model, x_train, y_train,
                                                          x_test, y_test)
    return mon
