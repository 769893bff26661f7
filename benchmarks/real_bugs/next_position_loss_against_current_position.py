"""A step-by-step trajectory LSTM whose output at step t is meant to be the position at t+1,
trained with the loss between the outputs and the input sequence at the SAME steps: the
target of every output is the position it was just given, so the network learns to repeat
its input; rolled out over the future it stands still where the walker was last seen.

Reported: "In training stage, the time positions of input/output seq. are the same?" -
https://github.com/quancore/social-lstm/issues/11 ("loss = Gaussian2DLikelihood(outputs, x_seq,
...) ... Loss is calculated on the same time position of 'outputs' and 'x_seq' ... for
prediction task the output, at time t, should be corresponding to the input, at time t+1";
another implementation calls it with nodes[1:]; #24 asks the same). Here 2000 synthetic
walkers (20 steps 0.4 s apart, positions relative to the first frame, in units of 5 m), an
LSTM with a linear head, trained on whole sequences (MSE), Adam; held out: 8 steps observed,
12 rolled out feeding each prediction back. Fix: outputs[:, :-1] against x_seq[:, 1:].
Held-out ADE of the 12-step roll-out: 3.15 m against 1.61 m (FDE 5.83 vs 3.79 m); seeds + 1000:
3.19 vs 1.75 m (FDE 5.86 vs 4.19 m).
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._traj import FUTURE, PAST, ade, fde, split

TITLE = "In training stage, the time positions of input/output seq. are the same?"
LINK = "https://github.com/quancore/social-lstm/issues/11"
EXPECTED = ("LABELS_MISALIGNED", "TARGETS_IN_INPUTS")
STEPS = 250
UNIT = 5.0


class StepLSTM(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.embed = nn.Linear(2, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 2)

    def forward(self, seq, state=None):
        out, state = self.lstm(torch.relu(self.embed(seq)), state)
        return self.head(out), state


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = split(np.random.default_rng(0))
    seq = torch.from_numpy((train - train[:, :1]) / UNIT)
    model = StepLSTM()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(int(torch.randint(10 ** 6, ())))
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x_seq = seq[torch.randint(0, len(seq), (64,), generator=g)]
            outputs, _ = model(x_seq)
            if fixed:
                loss = F.mse_loss(outputs[:, :-1], x_seq[:, 1:])
            else:   # BUG: each output scored against the position it was given
                loss = F.mse_loss(outputs, x_seq)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    held = torch.from_numpy((test - test[:, :1]) / UNIT)
    with torch.no_grad():
        out, state = model(held[:, :PAST])
        step, predicted = out[:, -1:], []
        for _ in range(FUTURE):
            predicted.append(step)
            step, state = model(step, state)
    predicted = torch.cat(predicted, 1).numpy() * UNIT + test[:, :1]
    mon.heldout_ade = ade(predicted, test[:, PAST:])
    mon.heldout_fde = fde(predicted, test[:, PAST:])
    return mon
