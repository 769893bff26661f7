"""A hand-written gated recurrent cell (GConvGRU-style: one layer per gate for the input and
one per gate for the hidden state) applied snapshot by snapshot, called without the hidden
state it returned a snapshot earlier: the cell's ``H=None`` default becomes zeros on every
call, the hidden-state layers always multiply zeros, and every snapshot is predicted from
that snapshot alone - a feed-forward model under a recurrent name.

Reported: "GConvGRU hidden state not passed" -
https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/145 ("in the
`GConvGRU` examples ... the hidden state is not passed at all. Would that not harm
performance as the hidden state is then always reset to zeros in the for loop?"; the
maintainer: "Yes it would"). Here the 8x8 digits read as 8 snapshots of 8 pixels, each
snapshot predicting the digit (the example's cost summed over snapshots). Fix: pass the
returned state back in, ``h = cell(x_t, h)``.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification

TITLE = "GConvGRU hidden state not passed"
LINK = "https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/145"
EXPECTED = ("RECURRENT_STATE_NEVER_PASSED", "RNN_READ_BEFORE_RECURRENCE")
STEPS = 150


class GatedCell(nn.Module):
    """A GRU written out: separate layers for the input's and the state's share of each gate."""

    def __init__(self, inputs, hidden):
        super().__init__()
        self.hidden = hidden
        self.x_update, self.h_update = nn.Linear(inputs, hidden), nn.Linear(hidden, hidden)
        self.x_reset, self.h_reset = nn.Linear(inputs, hidden), nn.Linear(hidden, hidden)
        self.x_new, self.h_new = nn.Linear(inputs, hidden), nn.Linear(hidden, hidden)

    def forward(self, x, h=None):
        if h is None:
            h = torch.zeros(x.shape[0], self.hidden)
        z = torch.sigmoid(self.x_update(x) + self.h_update(h))
        r = torch.sigmoid(self.x_reset(x) + self.h_reset(h))
        candidate = torch.tanh(self.x_new(x) + self.h_new(r * h))
        return z * h + (1 - z) * candidate


class SnapshotModel(nn.Module):
    def __init__(self, pass_state, hidden=32):
        super().__init__()
        self.pass_state = pass_state
        self.cell = GatedCell(8, hidden)
        self.head = nn.Linear(hidden, 10)

    def forward(self, snapshots):              # (batch, 8 snapshots, 8 pixels)
        h, outputs = None, []
        for t in range(snapshots.shape[1]):
            if self.pass_state:
                h = self.cell(snapshots[:, t], h)
            else:
                h_t = self.cell(snapshots[:, t])   # BUG: the state is never passed back in
                h = h_t
            outputs.append(self.head(h))
        return torch.stack(outputs, 1)


def snapshot_cost(logits, labels):
    """The example's cost: every snapshot's loss, averaged over the snapshots."""
    return sum(nn.functional.cross_entropy(logits[:, t], labels)
               for t in range(logits.shape[1])) / logits.shape[1]


def run(fixed=False, steps=STEPS, **watch):
    from benchmarks.real_bugs._common import train_watched
    torch.manual_seed(0)
    x, y = classification()
    model = SnapshotModel(pass_state=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    return train_watched(model, optimizer, snapshot_cost, batches(x.view(-1, 8, 8), y, steps),
                         **watch)
