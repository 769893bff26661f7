"""A sequence-to-sequence trajectory forecaster trained with teacher forcing (the decoder
reads the true previous position at each future step, as it should in training) and
validated the same way: at validation the decoder is again handed the ground-truth path it
is asked to predict, shifted by one step, instead of its own predictions. The validation
loss then measures one-step-ahead prediction with the true past given at every step, not
the 12-step forecast the model will have to make, and it flatters the model many times over.

Reported: "Prediction not autoregressive?" - https://github.com/quancore/social-lstm/issues/2
("During sampling of future trajectories, it seems like the the ground truth is fed back
into the network, not the predicted point, so the network is not autoregressive"; the
author: "For the validation sampling, yes this is the case. I was using the ground truth
for prediction"). Here 2-D paths of a damped turning walker, 8 observed positions, 12 to
forecast, a GRU encoder and a GRU-cell decoder; validation every 25 steps. Validation MSE
as logged (teacher-forced): 0.0006; the same model's true 12-step forecast on the same
paths: 0.114 (the fixed twin logs that number).
Fix: at validation, roll the decoder out on its own predictions (no ground truth passed).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd

TITLE = "Prediction not autoregressive?"
LINK = "https://github.com/quancore/social-lstm/issues/2"
EXPECTED = ("VALIDATION_TEACHER_FORCED",)
STEPS = 150
OBSERVED = 8
FUTURE = 12
VALIDATE_EVERY = 25


def paths(count, seed):
    """(count, OBSERVED + FUTURE, 2) positions of walkers with a slowly turning heading."""
    g = torch.Generator().manual_seed(seed)
    length = OBSERVED + FUTURE
    speed = 0.3 + 0.2 * torch.rand(count, 1, generator=g)
    turn = 0.15 * torch.randn(count, 1, generator=g)
    wobble = 0.05 * torch.randn(count, length, generator=g).cumsum(1)
    start = 2 * torch.pi * torch.rand(count, 1, generator=g)
    heading = start + turn * torch.arange(length) + wobble
    steps = speed[..., None] * torch.stack([heading.cos(), heading.sin()], dim=-1)
    return (steps.cumsum(1) - steps[:, :1]) / 4


class Seq2Seq(nn.Module):
    """Encodes the observed steps' displacements; decodes FUTURE positions one at a time."""

    def __init__(self, dim=32):
        super().__init__()
        self.encoder = nn.GRU(2, dim, batch_first=True)
        self.cell = nn.GRUCell(2, dim)
        self.head = nn.Linear(dim, 2)

    def forward(self, observed, teacher=None):
        """``teacher``: the true future positions (B, FUTURE, 2), read one step late (the
        decoder's input at step s + 1 is the true position at step s), or None to feed back
        the model's own predictions."""
        _, hidden = self.encoder(observed - observed[:, -1:])
        origin = observed[:, -1]
        hidden, last, out = hidden[0], origin, []
        for step in range(FUTURE):
            hidden = self.cell(last - origin, hidden)
            position = last + self.head(hidden)
            out.append(position)
            last = teacher[:, step] if teacher is not None else position
        return torch.stack(out, dim=1)


def teacher_inputs(track):
    """The true future positions the decoder is forced with (one step late)."""
    return track[:, OBSERVED:]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = paths(2048, seed=1), paths(256, seed=2)
    model = Seq2Seq()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(3)
    logged = float("nan")
    with nd.watch(model, optimizer, **watch) as mon:
        for done in range(1, steps + 1):
            track = train[torch.randint(0, len(train), (64,), generator=g)]
            optimizer.zero_grad()
            loss = F.mse_loss(model(track[:, :OBSERVED], teacher_inputs(track)),
                              track[:, OBSERVED:])
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % VALIDATE_EVERY == 0:
                model.eval()
                with torch.no_grad():
                    # BUG (not fixed): the validation decoder is fed the ground truth too
                    teacher = None if fixed else teacher_inputs(held_out)
                    val_loss = F.mse_loss(model(held_out[:, :OBSERVED], teacher),
                                          held_out[:, OBSERVED:])
                model.train()
                logged = val_loss.item()
            mon.step(loss, val_loss=val_loss)
    with torch.no_grad():
        mon.val_logged = logged
        mon.val_forecast = F.mse_loss(model(held_out[:, :OBSERVED]),
                                      held_out[:, OBSERVED:]).item()
    return mon
