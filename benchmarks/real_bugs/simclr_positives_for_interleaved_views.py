"""SimCLR's positives are picked for views laid out interleaved (image 0's two views in rows
0 and 1, image 1's in rows 2 and 3, ...) while the batch was concatenated view after view
(rows 0..N-1 the first views, N..2N-1 the second): each row's "positive" is the first view
of a different image, and its true other view is pushed away as a negative. The loss falls
(it learns to pair arbitrary neighbours), the features are worse than no training.

Reported: "A problem with simclr implementation" -
https://github.com/open-mmlab/mmselfsup/issues/159 ("the images are concatenated together,
with order '0 1 ... N-1 0 1 ... N-1' ... However, the positive indexes is '0 0 2 2 4 4 ...'";
the maintainer: "it is actually a bug"). Here a digits MLP encoder trained with NT-Xent on
two noisy, shifted views of each image; a nearest-centroid probe reads its features. Fix:
each row's positive is the same image's other view, row i + N (mod 2N).

Measured when written: a nearest-centroid probe on the encoder's normalised features
(fit on half the digits, read on the other half) scores 0.40 after the bug's 200 steps,
0.68 after the fixed twin's.

Why watch misses it: nothing is out of the ordinary in what it records. The targets given
to cross-entropy are a permutation of the batch's rows (as they are in the fixed twin),
the loss falls, every parameter gets a gradient and updates of a healthy size. What is
wrong is which rows count as the same image, and that is known only to the code that
concatenated the views: seeing it would need to compare each row's target with the
inputs at those two rows (two views of one image are near copies), a data-pipeline check
the monitor does not make. Naming it would also need contrastive set-ups where the views
are not near copies (strong crops, two modalities) to stay silent.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "A problem with simclr implementation"
LINK = "https://github.com/open-mmlab/mmselfsup/issues/159"
EXPECTED = ("CONTRASTIVE_POSITIVES_MISPAIRED",)
STEPS = 200
TEMPERATURE = 0.1


def encoder():
    return torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 32))


def view(x, generator):
    """One random view of 8x8 digits: shifted by up to a pixel, with pixel noise."""
    images = x.reshape(-1, 8, 8)
    dx, dy = torch.randint(-1, 2, (2,), generator=generator).tolist()
    images = torch.roll(images, shifts=(dy, dx), dims=(1, 2))
    noise = 0.1 * torch.randn(images.shape, generator=generator)
    return (images + noise).reshape(-1, 64)



def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y = classification()
    model = encoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            n = len(xb)
            # the views concatenated view after view: rows i and i + n are one image
            z = F.normalize(model(torch.cat([view(xb, generator), view(xb, generator)])), dim=1)
            logits = (z @ z.T / TEMPERATURE).masked_fill(
                torch.eye(2 * n, dtype=torch.bool), float("-inf"))
            rows = torch.arange(2 * n)
            if fixed:
                positive = (rows + n) % (2 * n)
            else:   # BUG: positives of an interleaved layout (rows 2k and 2k + 1 paired)
                positive = rows ^ 1
            loss = F.cross_entropy(logits, positive)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
