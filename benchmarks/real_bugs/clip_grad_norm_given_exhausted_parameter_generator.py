"""Gradient clipping that never clips: the script keeps ``params = model.parameters()`` - a
generator - walks it once to print the number of parameters, and later passes the same,
now exhausted, generator to ``clip_grad_norm_`` before every step. An empty iterable is
"clipped" without a word (the returned norm is 0), so the recurrent network trains
unclipped at a rate chosen for clipped training, and its loss jumps up again and again.

Reported: "Raise a warning when `torch.nn.utils.clip_grad_norm_` receives an exhausted
generator" - https://github.com/pytorch/pytorch/issues/148259 ("if that iterable is a
generator that has already been consumed, then it's effectively empty when passed in, and
no gradient clipping occurs - silently. This can cause subtle bugs when the user thinks
they are clipping gradients but actually aren't"; the example iterates over
``params_to_clip = model.parameters()`` before clipping it). Here the 8x8 digits read pixel
by pixel (64 steps) by a plain tanh nn.RNN, SGD with momentum at lr 0.1, clip at 0.5.
Fix: keep a list, ``params = list(model.parameters())``, so clipping sees every tensor.

Measured harm (held-out accuracy on 297 digits after 250 steps): seed 0: 0.10 vs 0.64;
seeds + 1000: 0.10 vs 0.53.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = ("Raise a warning when `torch.nn.utils.clip_grad_norm_` receives an exhausted "
         "generator")
LINK = "https://github.com/pytorch/pytorch/issues/148259"
EXPECTED = ("EXPLODING_GRADIENTS", "LR_TOO_HIGH")
STEPS = 250
TRAIN = 1500


class PixelRNN(nn.Module):
    def __init__(self, hidden=48):
        super().__init__()
        self.rnn = nn.RNN(1, hidden, batch_first=True)
        self.classifier = nn.Linear(hidden, 10)

    def forward(self, x):                     # x: (batch, 64 pixels, 1)
        out, _ = self.rnn(x)
        return self.classifier(out[:, -1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x = x.view(-1, 64, 1)
    x_train, y_train, x_test, y_test = x[:TRAIN], y[:TRAIN], x[TRAIN:], y[TRAIN:]
    model = PixelRNN()
    # BUG when not fixed: a generator, used up by the count below
    params = list(model.parameters()) if fixed else model.parameters()
    n_params = sum(p.numel() for p in params)         # the summary the script logs
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 0.5)   # clips nothing when exhausted
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_accuracy = round((model(x_test).argmax(1) == y_test).float().mean().item(),
                                      3)
    mon.n_params = n_params
    return mon
