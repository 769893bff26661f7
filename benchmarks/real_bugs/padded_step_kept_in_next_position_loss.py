"""Tracks of different lengths are padded with zeros to one length and a next-position model
is trained with inputs seq[:, :-1], targets seq[:, 1:] and the padding mask cut as
mask[:, :-1] instead of mask[:, 1:]: the mask belongs to the inputs, so every padded track
keeps one target that is the PADDING (position 0, the corner of the region) after its last
real point. Those few targets are metres away from anything real and pull every forecast
towards the corner.

Reported: "Last element dropped from mask" - https://github.com/CIA-Oceanix/TrAISformer/issues/8
("if the sequence is [1, 2, 3, PADDING], the mask will be [1, 1, 1, 0]. This would make inputs
[1, 2, 3] and targets [2, 3, PADDING]. Since the last element of the mask is being dropped, the
mask becomes [1, 1, 1], and so the prediction going from 3 -> PADDING gets counted toward the
loss"). Here 2000 synthetic tracks of 8 to 20 points (0.4 s apart) in a 60 m region scaled to
[0, 1] as the AIS positions are (clipped to [-0.5, 1.5] where a walker leaves it), zero-padded
to 20, a GRU predicting the next position at every step, masked MSE, Adam.
Fix: mask[:, 1:], the targets' own mask.
Held-out next-position error over the real steps: 3.54 m against 0.68 m; seeds + 1000: 2.69
vs 0.61 m.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._traj import PAST, WORLD, split

TITLE = "Last element dropped from mask"
LINK = "https://github.com/CIA-Oceanix/TrAISformer/issues/8"
EXPECTED = ("PADDING_NOT_MASKED",)
STEPS = 250


class NextPosition(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.embed = nn.Linear(2, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 2)

    def forward(self, seq):
        return self.head(self.gru(torch.relu(self.embed(seq)))[0])


def padded(paths, rng):
    """Positions scaled to [0, 1] over the region, each track cut to 8..20 points and padded
    with zeros; the mask is 1 on real points."""
    lengths = rng.integers(PAST, paths.shape[1] + 1, len(paths))
    mask = (np.arange(paths.shape[1])[None] < lengths[:, None]).astype(np.float32)
    seq = np.clip(paths / WORLD, -0.5, 1.5) * mask[..., None]
    return torch.from_numpy(seq.astype(np.float32)), torch.from_numpy(mask)


def masked_mse(predicted, target, mask):
    return (((predicted - target) ** 2).sum(-1) * mask).sum() / mask.sum()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    train, test = split(rng)
    seq, mask = padded(train, rng)
    model = NextPosition()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(int(torch.randint(10 ** 6, ())))
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, len(seq), (64,), generator=g)
            s, m = seq[index], mask[index]
            inputs, targets = s[:, :-1], s[:, 1:]
            # BUG when not fixed: the inputs' mask, so the step into the padding counts
            loss = masked_mse(model(inputs), targets, m[:, 1:] if fixed else m[:, :-1])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    held, held_mask = padded(test, rng)
    with torch.no_grad():
        error = (model(held[:, :-1]) - held[:, 1:]).norm(dim=-1) * WORLD
    real = held_mask[:, 1:]
    mon.heldout_ade = float((error * real).sum() / real.sum())
    return mon
