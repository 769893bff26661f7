"""An EMA copy of the model averages its parameters only: its buffers stay those of the
deep copy made before training. The model keeps a running estimate of its input's scale
in a buffer (updated by its forward in training mode) and divides its input by it; the
live network's estimate follows the data, the copy's stays at its initial value, so the
averaged weights are fed inputs on another scale than the one they were trained on and
the model that is validated does far worse than the network it averages.

Reported: "Buffers in AveragedModel are not synchronized with the source model when
use_buffers=False" - https://github.com/pytorch/pytorch/issues/84053 (AveragedModel deep
copies the model at construction, "which means that the buffers in the averaged model
cannot be updated together with the model. This can easily lead to bugs ... if the model
has some buffers that are updated during training", with a model dividing its input by a
running input mean kept in a buffer; fixed in PyTorch by copying the buffers at every
update). Here the digits MLP behind such a running input-scale buffer, with the
AveragedModel of the time (parameters averaged, buffers left at the copy) as an EMA
updated after every step and validated after every epoch. Fix: update the copy's buffers
from the model's at every update (what ``AveragedModel`` does since).

Measured (14 epochs of 22 steps, 359 held-out digits): validation loss of the EMA at the
end 0.489 (accuracy 0.958) with the bug against 0.116 (0.958) for the fixed twin; the live network
scores 0.141 in both runs.
"""
import copy

import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._ema import split, train_validating_ema

TITLE = ("Buffers in AveragedModel are not synchronized with the source model when "
         "use_buffers=False")
LINK = "https://github.com/pytorch/pytorch/issues/84053"
EXPECTED = ("AVERAGED_COPY_BUFFERS_STALE",)
EPOCH = 22
STEPS = 14 * EPOCH
DECAY = 0.95


class ScaledInputs(nn.Module):
    """The MLP behind a running estimate of the input's mean pixel (as in the report)."""

    def __init__(self):
        super().__init__()
        self.net = mlp()
        self.register_buffer("input_mean", torch.tensor(1.0))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.input_mean.mul_(0.9).add_(0.1 * x.mean())
        return self.net(x / self.input_mean)


@torch.no_grad()
def update_ema(ema, model, fixed):
    for averaged, live in zip(ema.parameters(), model.parameters()):
        averaged.mul_(DECAY).add_(live, alpha=1 - DECAY)
    if fixed:
        for averaged, live in zip(ema.buffers(), model.buffers()):
            averaged.copy_(live)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_val, y_val = split()
    model = ScaledInputs()
    ema = copy.deepcopy(model).requires_grad_(False).eval()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_validating_ema(model, ema, optimizer, lambda: update_ema(ema, model, fixed),
                               (x_train, y_train, x_val, y_val), steps, EPOCH, watch)
    model.eval()
    with torch.no_grad():
        mon.live_loss = F.cross_entropy(model(x_val), y_val).item()
        mon.ema_accuracy = (ema(x_val).argmax(1) == y_val).float().mean().item()
    model.train()
    return mon
