"""A point-cloud autoencoder trained with a Chamfer loss that is handed its clouds
channels-first, (batch, coordinates, points), where the loss reads (batch, points,
coordinates). The loss then sees each cloud as TWO "points" (the row of x values and the row
of y values), each a vector of 32 numbers, and matches rows, not points: it becomes an
ordered regression of the 32 outputs on the 32 input points in the order they happen to be
stored. Point order carries no information (the clouds are unordered sets), so the best the
decoder can do is put every output near the average position - the reconstruction is a blob
at the centre. The loss falls steadily to that floor and nothing errors: the shapes of the
two arguments agree either way.

Reported: "Trying to implement Autoencoder in Pytorch" -
https://github.com/charlesq34/pointnet-autoencoder/issues/15 (a PyTorch port of the PointNet
autoencoder reconstructed only "scatterd points" after 200 epochs; a later comment found the
cause: the clouds were transposed to (batch, dims, points) for the Conv1d encoder and passed
to the Chamfer loss that way, when it "has to be (batch_size, num_points, num_dim)"; the fix
transposes input and reconstruction back before the loss). Here a PointNet encoder (Conv1d,
max over points) and an MLP decoder reconstruct the digits drawn as 2-D clouds of 32 pixel
positions (benchmarks/real_bugs/_pts.py), Adam 1e-3. Fix: ``transpose(1, 2)`` both clouds
before the Chamfer loss.

Measured (held-out symmetric Chamfer distance, mean nearest squared distance both ways, on
the last 297 digits; lower is better): seed 0, 0.120 for the bug against 0.0081 for
the fixed twin; seeds shifted by 1000, 0.121 against 0.0087.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._pts import (HELD_OUT, PointAutoencoder, chamfer, digit_clouds,
                                       held_out_chamfer, seeded_generator)

TITLE = "Trying to implement Autoencoder in Pytorch"
LINK = "https://github.com/charlesq34/pointnet-autoencoder/issues/15"
EXPECTED = ("SET_LOSS_READS_CHANNEL_AXIS_AS_POINTS",)
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
            points = batch.transpose(1, 2)                 # (B, 2, points) for the Conv1d
            rebuilt = model(points)                        # (B, 2, points)
            if fixed:
                loss = chamfer(rebuilt.transpose(1, 2), points.transpose(1, 2)).mean()
            else:
                loss = chamfer(rebuilt, points).mean()     # BUG: x and y rows as "points"
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_chamfer = held_out_chamfer(model, held_out)
    return mon
