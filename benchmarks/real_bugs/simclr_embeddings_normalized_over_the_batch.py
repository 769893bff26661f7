"""SimCLR's projections are L2-normalised over the whole batch (every element of the (N, D)
matrix divided by one norm) where each row was to be normalised on its own: the
"cosine similarities" become dot products shrunk by about sqrt(N), every logit of the
NT-Xent loss sits near zero after the temperature, the softmax over the batch is nearly
uniform and the loss stays close to log(2N - 1) while the encoder learns little.

Reported: "Bug: SimCLRLoss has a mistake in normalizing za and zb" -
https://github.com/tensorflow/similarity/issues/237 (``tf.math.l2_normalize(za)`` with the
default ``axis=None``: "the normalization will be over batch as well as embedding dim ...
SimCLR training failed with loss stuck at an unreasonably high level even with 1 batch of
data"). Here a digits MLP encoder trained with NT-Xent on two noisy, shifted views of each
image; what it learnt is read by a nearest-centroid probe on its features. Fix: normalise
each projection over its own features (``F.normalize(z, dim=1)``).

Measured when written: a nearest-centroid probe on the encoder's normalised features
(fit on half the digits, read on the other half) scores 0.45 after the bug's 200 steps,
0.68 after the fixed twin's.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Bug: SimCLRLoss has a mistake in normalizing za and zb"
LINK = "https://github.com/tensorflow/similarity/issues/237"
EXPECTED = ("EMBEDDINGS_NORMALIZED_OVER_BATCH",)
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


def nt_xent(z1, z2, temperature):
    """SimCLR's loss over 2N already-normalised projections: each row's positive is its
    other view, its own similarity is masked out."""
    z = torch.cat([z1, z2])
    n = len(z1)
    logits = z @ z.T / temperature
    logits = logits.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    partner = torch.cat([torch.arange(n, 2 * n), torch.arange(n)])
    return F.cross_entropy(logits, partner)



def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y = classification()
    model = encoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            z1, z2 = model(view(xb, generator)), model(view(xb, generator))
            if fixed:
                z1, z2 = F.normalize(z1, dim=1), F.normalize(z2, dim=1)
            else:   # BUG: one norm for the whole batch (l2_normalize without an axis)
                z1, z2 = z1 / z1.norm(), z2 / z2.norm()
            loss = nt_xent(z1, z2, TEMPERATURE)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
