"""Gradient clipping written after ``optimizer.step()``: the step has already used the
raw gradients when ``clip_grad_norm_`` scales them down, and the next iteration's
``zero_grad()`` throws the clipped ones away. The clip runs every step and changes
nothing, so a recurrent network at a learning rate chosen for clipped training takes
its occasional huge step unclipped.

Reported: "Gradient clipping in the wrong place?" -
https://github.com/jongwook/onsets-and-frames/issues/24 (the reporter: train.py has "the
gradient clipping after the .backward() and .step() operations. Shouldn't we put the
clip_grad_norm_ in between .backward() and .step()?"; the maintainer: "Yeah it
definitely should"). Here the 8x8 digits read pixel by pixel (64 steps) by an nn.RNN,
SGD with momentum at lr 0.1 and a clip at norm 1. Fix: clip between backward() and
step().

Measured (200 steps, the last 297 digits held out): accuracy 0.09 with the clip after
the step (the training loss climbs above chance, 2.3, and stays near 2.5), 0.43 with it
before the step (the loss falls to about 1.5).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification

TITLE = "Gradient clipping in the wrong place?"
LINK = "https://github.com/jongwook/onsets-and-frames/issues/24"
EXPECTED = ("GRADIENTS_CLIPPED_AFTER_STEP", "EXPLODING_GRADIENTS", "LR_TOO_HIGH")
STEPS = 200
LR = 0.1
CLIP_NORM = 1.0
HELD_OUT = 297          # the last digits, never trained on


class PixelRNN(nn.Module):
    def __init__(self, hidden=48):
        super().__init__()
        self.rnn = nn.RNN(1, hidden, batch_first=True)
        self.classifier = nn.Linear(hidden, 10)

    def forward(self, x):                     # x: (batch, 64 pixels, 1)
        out, _ = self.rnn(x)
        return self.classifier(out[:, -1])


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    x = x.view(-1, 64, 1)
    model = PixelRNN()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            if fixed:
                torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP_NORM)
            optimizer.step()
            if not fixed:       # BUG: the step above already used the unclipped gradients
                torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP_NORM)
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
        mon.held_out_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
