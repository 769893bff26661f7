"""A point-cloud autoencoder whose Chamfer loss reduces each point's nearest-neighbour
distance with ``min(dim=0)`` - over the BATCH - before averaging: for every point slot only
the one cloud in the batch that reconstructs that slot best counts, the other 31 clouds add
nothing to the loss and get no gradient through it. The objective rewards a batch in which
SOME cloud matches at each slot, so the decoder learns a shape that is close to one of the
clouds somewhere rather than each cloud everywhere; each cloud's own reconstruction is
barely trained. The loss goes down (a minimum over 32 clouds is easy to shrink) and nothing
errors.

Reported: "How to calculate the loss during training." -
https://github.com/ThibaultGROUEIX/ChamferDistancePytorch/issues/32 (a PointNet-like
autoencoder on simple 2-D/3-D clouds trained with ``loss = dist1.min(dim=0)[0].mean() +
dist2.min(dim=0)[0].mean()`` on the per-point distances the Chamfer function returns, and
"the reconstructed result does not look good"; the maintainer: that version "will not work
well most likely", since it backpropagates through the batch minimum; the per-point
distances are to be averaged (or summed) over points and clouds). Here a PointNet encoder
and an MLP decoder reconstruct the digits drawn as 2-D clouds of 32 pixel positions
(benchmarks/real_bugs/_pts.py), Adam 1e-3. Fix: ``dist1.mean() + dist2.mean()``.

Measured (held-out symmetric Chamfer distance, mean nearest squared distance both ways, on
the last 297 digits; lower is better): seed 0, 0.064 for the bug against 0.0082 for
the fixed twin; seeds shifted by 1000, 0.061 against 0.0085.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._pts import (HELD_OUT, PointAutoencoder, digit_clouds,
                                       held_out_chamfer, nearest_squared, seeded_generator)

TITLE = "How to calculate the loss during training."
LINK = "https://github.com/ThibaultGROUEIX/ChamferDistancePytorch/issues/32"
EXPECTED = ("LOSS_REDUCED_BY_MIN_OVER_BATCH",)
STEPS = 600
POINTS, BATCH = 32, 32


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = seeded_generator()
    clouds, _ = digit_clouds(POINTS, generator)
    train, held_out = clouds[:-HELD_OUT], clouds[-HELD_OUT:]
    model = PointAutoencoder(out_points=POINTS)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            batch = train[torch.randint(0, len(train), (BATCH,), generator=generator)]
            rebuilt = model(batch.transpose(1, 2)).transpose(1, 2)      # (B, points, 2)
            dist1, dist2 = nearest_squared(batch, rebuilt)              # (B, points) each
            if fixed:
                loss = dist1.mean() + dist2.mean()
            else:       # BUG: each point slot's best cloud in the batch, the rest ignored
                loss = dist1.min(dim=0)[0].mean() + dist2.min(dim=0)[0].mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_chamfer = held_out_chamfer(model, held_out)
    return mon
