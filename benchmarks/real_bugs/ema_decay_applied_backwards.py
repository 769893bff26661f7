"""The exponential moving average of the weights applies its decay the wrong way round:
``ema = (1 - beta) * ema + beta * weights`` with beta = 0.99, so each update keeps 1% of
the average and takes 99% of the live weights. The "EMA" is the live network one step
late; the smoothing it exists for (averaging out the noise of a high learning rate) is
gone, and the model that is validated and kept is as noisy as the live one.

Reported: "Fix dumb bug in EMA where I had beta backwards" -
https://github.com/marin-community/levanter/pull/883 (the maintainer's fix swaps the two
weights of the EMA update). Here a digits MLP trained by Adam at a rate high enough that
the live weights stay noisy, its EMA copy updated after every step and validated after
every epoch. Fix: ``ema = beta * ema + (1 - beta) * weights``.

Measured (14 epochs of 22 steps, 359 held-out digits): validation loss of the EMA at the
end 0.131 (accuracy 0.969) with the bug against 0.083 (0.975) for the fixed twin; the live network
scores 0.131 in both runs (the training itself is identical).
"""
import copy

import torch
import torch.nn.functional as F

from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._ema import split, train_validating_ema

TITLE = "Fix dumb bug in EMA where I had beta backwards"
LINK = "https://github.com/marin-community/levanter/pull/883"
EXPECTED = ("EMA_DECAY_COLLAPSED",)
EPOCH = 22
STEPS = 14 * EPOCH
BETA = 0.99


@torch.no_grad()
def update_ema(ema, model, fixed):
    keep = BETA if fixed else 1 - BETA          # BUG: the average's weight is 1 - beta
    for averaged, live in zip(ema.parameters(), model.parameters()):
        averaged.mul_(keep).add_(live, alpha=1 - keep)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_val, y_val = split()
    model = mlp(hidden=128)
    ema = copy.deepcopy(model).requires_grad_(False).eval()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-2)
    mon = train_validating_ema(model, ema, optimizer, lambda: update_ema(ema, model, fixed),
                               (x_train, y_train, x_val, y_val), steps, EPOCH, watch)
    with torch.no_grad():
        mon.live_loss = F.cross_entropy(model(x_val), y_val).item()
        mon.ema_accuracy = (ema(x_val).argmax(1) == y_val).float().mean().item()
    return mon
