"""Data-parallel SimCLR: each worker (rank) concatenates its own two views ``[z_i; z_j]``
and the loss all-gathers them, which stacks the workers one after the other:
``[z_i(rank 0); z_j(rank 0); z_i(rank 1); z_j(rank 1)]``. The positive-pair mask,
though, was built for the single-process layout ``[z_i(all); z_j(all)]``, where row k's
positive is row k + N. With two workers every row's "positive" is then a view of a
DIFFERENT image (rank 0's first views are paired with rank 1's first views, ...), and the
true other view of the same image is pushed away as a negative. Training runs, the loss
falls (it learns to pair arbitrary images), and the encoder ends no better than untrained.

Reported: "Fix mask issue in distributed nt_xent loss" -
https://github.com/Spijkervet/SimCLR/pull/46 (fixes issue #30: the ``all_gather`` result
used to build the mask "should be something like ``[z_i1, ..., z_iw, z_j1, ..., z_jw]``
instead of ``[z_i1, z_j1, z_i2, z_j2, ..., z_iw, z_jw]``"; merged, the gathered
embeddings are regrouped view-major before the mask is applied). Here the two workers
are simulated in one process (the batch split in two halves, each half's views
concatenated, the halves stacked in rank order, exactly what the gather returns): a
digits MLP backbone with a batch-normalised projection head, NT-Xent at temperature 0.2,
Adam; a nearest-centroid probe reads the backbone. Fix: regroup the gathered embeddings
view-major (all first views, then all second views) before the loss.

Measured (400 steps, global batch 128 images, 64 per simulated worker; nearest-centroid
probe on the backbone's normalised features, fit on 900 clean digits, scored on views of
the other 897): seed 0, 0.220 for the bug against 0.470 for the fixed twin; seeds shifted
by 1000, 0.235 against 0.456 (the untrained backbone scores 0.23 at seed 0).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._ssl179 import (digits, encoder, head, probe_accuracy,
                                          two_view_batches)
from benchmarks.real_bugs._ssl_digits import nt_xent

TITLE = "Fix mask issue in distributed nt_xent loss"
LINK = "https://github.com/Spijkervet/SimCLR/pull/46"
EXPECTED = ("CONTRASTIVE_POSITIVES_MISPAIRED",)
STEPS = 400
WORKERS = 2
TEMPERATURE = 0.2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    backbone = encoder()
    model = torch.nn.Sequential(backbone, head(32, 32))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for v1, v2 in two_view_batches(x, steps):
            z1, z2 = model(v1), model(v2)
            # what each worker holds, and what all_gather returns: the workers in order
            local = [torch.cat([a, b])
                     for a, b in zip(z1.chunk(WORKERS), z2.chunk(WORKERS))]
            gathered = torch.cat(local)
            n = len(v1)
            if fixed:   # regrouped view-major: all first views, then all second views
                per = n // WORKERS
                first = torch.cat([g[:per] for g in local])
                second = torch.cat([g[per:] for g in local])
            else:       # BUG: the rank-major gather read as [first views; second views]
                first, second = gathered[:n], gathered[n:]
            loss = nt_xent(first, second, TEMPERATURE)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_probe_accuracy = probe_accuracy(backbone, x, y)
    return mon
