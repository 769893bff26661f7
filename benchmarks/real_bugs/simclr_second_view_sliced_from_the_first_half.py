"""SimCLR's two views are run through the encoder as one concatenated batch, and the
embeddings are split back into the two views with the same slice twice (``[:n]`` for both,
where the second should be ``[n:]``). Each image's "positive" is then its own embedding,
similarity 1 by construction: the loss can only push different images apart, nothing
pulls two augmentations of one image together, and the second view's half of the batch
gets no gradient at all. The loss still falls steadily (the negatives spread out), no
error, no NaN; the features end up barely better than the untrained encoder's.

Reported: "Minor bug fixes for SimCLR loss and ViT-S hyperparameter" -
https://github.com/microsoft/A-CLIP/pull/4 (the contributor found that the SimCLR loss
"does not compare the two different augmentations": ``losses.py`` fed
``image_ssl_embed[:bs]`` as both ``aug1_embed`` and ``aug2_embed``; the fix takes the
second view from ``image_ssl_embed[bs:]``). Here: a digits MLP backbone with a
batch-normalised projection head, NT-Xent at temperature 0.2 on two random views per
digit (shift, pixel mask, noise), Adam; a nearest-centroid probe reads the backbone.
Fix: the second view's embeddings are the second half of the batch.

Measured (400 steps, batch 128; nearest-centroid probe on the backbone's normalised
features, fit on 900 clean digits, scored on views of the other 897): seed 0, 0.268 for
the bug against 0.479 for the fixed twin; seeds shifted by 1000, 0.239 against 0.448 (the
untrained backbone scores 0.23 at seed 0).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._ssl179 import (digits, encoder, head, probe_accuracy,
                                          two_view_batches)
from benchmarks.real_bugs._ssl_digits import nt_xent

TITLE = "Minor bug fixes for SimCLR loss and ViT-S hyperparameter"
LINK = "https://github.com/microsoft/A-CLIP/pull/4"
EXPECTED = ("SSL_POSITIVES_ARE_THE_SAME_VIEW",)
STEPS = 400
TEMPERATURE = 0.2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    backbone = encoder()
    model = torch.nn.Sequential(backbone, head(32, 32))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for v1, v2 in two_view_batches(x, steps):
            n = len(v1)
            embedded = model(torch.cat([v1, v2]))
            first = embedded[:n]
            if fixed:
                second = embedded[n:]
            else:   # BUG: the second view sliced from the first half as well
                second = embedded[:n]
            loss = nt_xent(first, second, TEMPERATURE)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_probe_accuracy = probe_accuracy(backbone, x, y)
    return mon
