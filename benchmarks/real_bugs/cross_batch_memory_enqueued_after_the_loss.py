"""A cross-batch memory for an NT-Xent loss adds the current batch's embeddings to the
memory only AFTER the loss has been computed against it. The loss of each batch is then
taken against older batches only: the other view of each image, in the same batch, is
never there, so an image has a positive only when a stale copy of itself from the end of
the previous epoch is still in the memory. Most steps find no positive pair at all and
give a loss of exactly zero (no gradient); the rest pull views towards embeddings of an
older network. Training runs without an error, the loss looks "converged" at zero, and
the encoder learns a fraction of what the loss was meant to teach.

Reported: "Loss goes up with CrossBatchMemory?" -
https://github.com/KevinMusgrave/pytorch-metric-learning/issues/24 (the maintainer found
the bug: "The paper says to add the current batch to the memory queue before computing
the loss. I'm not doing that. Instead I'm adding it to the memory queue after the loss is
computed", so the loss never considered the relationships within the current batch; fixed
in the library by enqueueing first). Here: a digits MLP backbone with a batch-normalised
projection head, two random views per digit labelled with the digit's index (the two
views are the positive pair), a memory of the last 1,024 embeddings, NT-Xent per positive
pair at temperature 0.2 (an embedding never counts as its own positive), Adam; a
nearest-centroid probe reads the backbone. Fix: enqueue the batch, then compute the loss.

Measured (400 steps, batch 128 images; nearest-centroid probe on the backbone's normalised
features, fit on 900 clean digits, scored on views of the other 897): seed 0, 0.400 for
the bug against 0.537 for the fixed twin; seeds shifted by 1000, 0.412 against 0.512 (the
untrained backbone scores 0.23 at seed 0).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._ssl179 import digits, encoder, head, probe_accuracy, view

TITLE = "Loss goes up with CrossBatchMemory?"
LINK = "https://github.com/KevinMusgrave/pytorch-metric-learning/issues/24"
EXPECTED = ("CONTRASTIVE_BATCH_MISSING_FROM_MEMORY",)
STEPS = 400
MEMORY = 1024
TEMPERATURE = 0.2


def memory_nt_xent(embeddings, labels, memory, memory_labels, own=None):
    """NT-Xent of each (anchor, positive) pair: anchors the batch's embeddings, positives
    and negatives the memory's entries with the same / another label. ``own``: the memory
    rows holding the anchors themselves (left out). No positive pair: a zero loss."""
    rows = torch.arange(len(embeddings))
    logits = embeddings @ memory.T / TEMPERATURE
    positive = labels[:, None] == memory_labels[None, :]
    negative = ~positive
    if own is not None:
        positive[rows, own] = False
        negative[rows, own] = False
    if not positive.any():
        return (embeddings * 0).sum()
    negatives = torch.logsumexp(logits.masked_fill(~negative, float("-inf")), 1,
                                keepdim=True)
    return -(logits - torch.logaddexp(logits, negatives))[positive].mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    backbone = encoder()
    model = torch.nn.Sequential(backbone, head(32, 32))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    memory, memory_labels = torch.zeros(0, 32), torch.zeros(0, dtype=torch.long)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 128):
            xb = x[index]
            embeddings = F.normalize(model(torch.cat([view(xb), view(xb)])), dim=1)
            labels = torch.cat([index, index])
            if fixed:
                memory = torch.cat([memory, embeddings.detach()])[-MEMORY:]
                memory_labels = torch.cat([memory_labels, labels])[-MEMORY:]
                own = torch.arange(len(memory) - len(labels), len(memory))
                loss = memory_nt_xent(embeddings, labels, memory, memory_labels, own)
            else:   # BUG: the loss against the memory first, the batch enqueued after
                loss = memory_nt_xent(embeddings, labels, memory, memory_labels)
                memory = torch.cat([memory, embeddings.detach()])[-MEMORY:]
                memory_labels = torch.cat([memory_labels, labels])[-MEMORY:]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_probe_accuracy = probe_accuracy(backbone, x, y)
    return mon
