"""A random-rotation augmentation whose helper takes its range in DEGREES, called with a
range written in radians: ``random_rotation(2 * np.pi)`` asks for "any rotation" and gets
rotations of at most +-3.1 degrees. The network (not rotation invariant by construction:
its messages read the raw relative vectors) trains on point sets in practically their own
frame (flat, as scanned) and never learns that a turned set is the same set; the training
loss falls as it should, and every held-out set, which arrives in an arbitrary
orientation, is misread.

Reported: "Bug in sample_random_trans() function" -
https://github.com/chrischoy/FCGF/issues/31 (the datasets call it with np.pi / 4 while "it actually should accept the unit of
degree instead of radian as the argument"; the author: "it seems that I didn't apply random
rotation"). The helper here draws, like that one, a random axis and an angle uniform in
+-range / 2 degrees. A three-layer message-passing network whose edge messages read both
atoms' features and the relative vector x_i - x_j (translation invariant, not rotation
invariant) regresses an invariant pair sum, sum_ij exp(-d_ij^2), of synthetic 8-point
sets lying near their own xy plane (benchmarks/real_bugs/_egnn345.py positions, z shrunk
to a fifth), each training set rotated by the augmentation, batches of 32, Adam 3e-3,
validated every 25 steps on the held-out sets, each turned by a fixed random rotation.

Fix: give the helper degrees, ``random_rotation(360)``.

Measured (R^2 on the 300 held-out sets, randomly rotated): seed 0, -2.06 with the
bug, 0.68 fixed; seeds + 1000: -1.65 vs 0.70.
"""
import math

import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._egnn345 import (EGNN, HELD_OUT, EGNNLayer, flat_batch, molecules,
                                           r_squared, random_rotations, seeded_generator)

TITLE = "Bug in sample_random_trans() function"
LINK = "https://github.com/chrischoy/FCGF/issues/31"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
STEPS = 300
FLAT = torch.tensor([1.0, 1.0, 0.2])


class VectorMessageLayer(EGNNLayer):
    """The messages read the relative vector itself (3 numbers), not its length."""

    def __init__(self, hidden, moves=False):
        super().__init__(hidden, moves=False)
        self.edge[0] = torch.nn.Linear(2 * hidden + 3, hidden)

    def forward(self, h, pos, src, dst):
        m = self.edge(torch.cat([h[dst], h[src], pos[dst] - pos[src]], -1))
        gathered = torch.zeros_like(h).index_add(0, dst, m)
        return h + self.node(torch.cat([h, gathered], -1)), pos


def random_rotation(rotation_range, count, generator):
    """``count`` rotations about random axes by angles uniform in +-rotation_range / 2
    DEGREES (Rodrigues' formula): (count, 3, 3)."""
    axis = torch.rand(count, 3, generator=generator) - 0.5
    axis = axis / axis.norm(dim=1, keepdim=True)
    angle = rotation_range * math.pi / 180 * (torch.rand(count, generator=generator) - 0.5)
    k = torch.zeros(count, 3, 3)
    k[:, 0, 1], k[:, 0, 2], k[:, 1, 2] = -axis[:, 2], axis[:, 1], -axis[:, 0]
    k = k - k.transpose(1, 2)
    s, c = angle.sin()[:, None, None], angle.cos()[:, None, None]
    return torch.eye(3) + s * k + (1 - c) * k @ k


def pair_sum(pos):
    d = torch.cdist(pos, pos)
    return (torch.exp(-d ** 2) * (1 - torch.eye(pos.shape[1]))).sum((1, 2)) / 2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = seeded_generator()
    pos, types, _ = molecules(1000 + HELD_OUT, generator)
    pos = pos * FLAT                                # scanned lying in their own xy plane
    raw = pair_sum(pos)
    y = (raw - raw[:1000].mean()) / raw[:1000].std()
    turned = pos[1000:] @ random_rotations(HELD_OUT, generator).transpose(1, 2)
    held = flat_batch(turned, types[1000:])
    model = EGNN(layer=VectorMessageLayer)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = torch.nn.functional.mse_loss
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(1000, steps, batch_size=32, seed=0), 1):
            if fixed:
                rotation = random_rotation(360, len(index), generator)
            else:                                   # BUG: radians into a degrees argument
                rotation = random_rotation(2 * np.pi, len(index), generator)
            flat, kinds, batch, src, dst = flat_batch(pos[index] @ rotation.transpose(1, 2),
                                                      types[index])
            loss = loss_fn(model(kinds, flat, batch, src, dst), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 25 == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = loss_fn(model(held[1], held[0], *held[2:]), y[1000:]).item()
                model.train()
            mon.step(loss, val_loss=val_loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_r2 = r_squared(model(held[1], held[0], *held[2:]), y[1000:])
    return mon
