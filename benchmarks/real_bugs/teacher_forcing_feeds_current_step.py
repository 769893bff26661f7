"""A trajectory forecaster (LSTM encoder over 8 observed steps, LSTM decoder over the 12
to predict) trained with teacher forcing, where the decoder's input at prediction step i
is the ground truth *of step i* - the displacement it is asked to predict - instead of
step i - 1. Training turns into copying (the loss falls to almost nothing); at test time
the decoder feeds back its own predictions and the copy it learned is worthless. In
evaluation mode the model never reads the ground truth, so the leak exists only in
training mode.

Reported: "issues on 'teacher force' implementation" -
https://github.com/huang-xx/STGAT/issues/6 ("'input_t' is actually the ground truth of
the i-th time step in prediction phase ... when 'teacher_force==True', it also serves as
the input of the i-th time step ... the input of the i-th rnn unit should be the label of
the (i-1)-th time step ... this part is rather like an autoencoder than teacher-forcing
training"). Here synthetic walks (a heading that turns slowly, noisy steps). Fix: the
decoder reads the ground truth of step i - 1 (the last observed step for i = 0).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "issues on 'teacher force' implementation"
LINK = "https://github.com/huang-xx/STGAT/issues/6"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 120
OBSERVED, PREDICTED = 8, 12


def walks(steps, batch_size=32, seed=0):
    """(trajectory (B, 20, 2) of step displacements, the last 12 of them): what the
    model reads (observed and, for teacher forcing, future steps) and what it predicts."""
    g = torch.Generator().manual_seed(seed)
    length = OBSERVED + PREDICTED
    for _ in range(steps):
        heading = torch.rand(batch_size, 1, generator=g) * 6.283
        turn = 0.1 * torch.randn(batch_size, 1, generator=g)
        angle = heading + turn * torch.arange(length)
        speed = 0.5 + 0.5 * torch.rand(batch_size, 1, generator=g)
        steps_xy = speed.unsqueeze(-1) * torch.stack([angle.cos(), angle.sin()], -1)
        steps_xy = steps_xy + 0.1 * torch.randn(batch_size, length, 2, generator=g)
        yield steps_xy, steps_xy[:, OBSERVED:]


class Seq2SeqForecaster(nn.Module):
    def __init__(self, previous_step, dim=32):
        super().__init__()
        self.previous_step = previous_step
        self.encoder = nn.LSTM(2, dim, batch_first=True)
        self.decoder = nn.LSTMCell(2, dim)
        self.head = nn.Linear(dim, 2)

    def forward(self, trajectory):
        _, (h, c) = self.encoder(trajectory[:, :OBSERVED])
        h, c = h[0], c[0]
        last = trajectory[:, OBSERVED - 1]
        outputs = []
        for i in range(PREDICTED):
            if self.training:                 # teacher forcing
                # BUG when not previous_step: the ground truth of step i itself
                step = OBSERVED + i - 1 if self.previous_step else OBSERVED + i
                given = trajectory[:, step]
            else:
                given = last                  # generation: its own last prediction
            h, c = self.decoder(given, (h, c))
            last = self.head(h)
            outputs.append(last)
        return torch.stack(outputs, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = Seq2SeqForecaster(previous_step=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.mse_loss, walks(steps), **watch)
