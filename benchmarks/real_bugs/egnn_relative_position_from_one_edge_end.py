"""An EGNN layer whose relative position for edge j -> i is written with the same end
twice, ``pos[src] - pos[src]``: every relative vector is zero, so every squared distance
fed to the edge network is zero and every coordinate update is zero. The network still
trains - the atom types alone explain part of the energy and the loss falls - but it
never sees the geometry it was built for, and the coordinate networks get no gradient.

Reported: "distance and relative displacement computed with same index, wiping spatial
information" - https://github.com/pineappleK/ED2Mol/issues/5 (the EGNN block's forward
"seem[s] to use the same node index for both ends of an edge, which makes all distances
zero and cancels spatial updates"; the authors: "Yes, this is a typo"). Here a three-layer
EGNN (benchmarks/real_bugs/_egnn345.py: type embedding, messages from both atoms'
features and their squared distance, coordinates moved along the relative positions,
summed per-atom readout) regresses the invariant pair energy of synthetic 8-atom
molecules, PyG-style flat batches of 32 with every atom pair as an edge, Adam 1e-3.

Fix: ``pos[dst] - pos[src]``, the receiver's position minus the sender's.

Measured (held-out R^2 on 300 molecules): seed 0, 0.44 with the bug, 0.78 fixed;
seeds + 1000: 0.29 vs 0.69.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._egnn345 import (EGNN, HELD_OUT, EGNNLayer, flat_batch,
                                           molecules, r_squared, seeded_generator)

TITLE = ("distance and relative displacement computed with same index, wiping spatial "
         "information")
LINK = "https://github.com/pineappleK/ED2Mol/issues/5"
EXPECTED = ("NO_GRADIENT",)
STEPS = 250


class SameEndLayer(EGNNLayer):
    def relative(self, pos, src, dst):          # BUG: one end of the edge on both sides
        return pos[src] - pos[src]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    pos, types, y = molecules(1000 + HELD_OUT, seeded_generator())
    model = EGNN(layer=EGNNLayer if fixed else SameEndLayer)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(1000, steps, batch_size=32, seed=0):
            flat, kinds, batch, src, dst = flat_batch(pos[index], types[index])
            loss = torch.nn.functional.mse_loss(model(kinds, flat, batch, src, dst), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        flat, kinds, batch, src, dst = flat_batch(pos[1000:], types[1000:])
        mon.held_out_r2 = r_squared(model(kinds, flat, batch, src, dst), y[1000:])
    return mon
