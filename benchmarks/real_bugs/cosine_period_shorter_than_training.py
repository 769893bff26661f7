"""A cosine schedule whose T_max is ten epochs' worth of batches, stepped every batch of a
100-epoch run: CosineAnnealingLR is periodic past T_max, so the rate falls to zero and
climbs back to its peak five times, and training ends at the peak rate instead of annealed.

Reported: "Learning rate scheduler doesn't match as stated in the paper." -
https://github.com/deepcam-cn/FaceQuality/issues/10 ("I saw that u pass T_max hard-code 10
epochs (10 * len(train_loader)) ... Cause this would make the LR varies in a cyclical way").
Here a digits MLP under SGD with momentum, 15 epochs of 20 batches and T_max at a tenth of
the run (30 batches), so the last step lands on the peak as in the report (100 epochs,
T_max 10). Measured on 500 held-out digits: loss 0.42, accuracy 91.8% ending at the peak,
against loss 0.21 and 94.8% with T_max over the whole run.
Fix: T_max = epochs * len(train_loader) when stepping per batch.

How watch finds it: the recorded rates fall and rise again, which a warm restart schedule
draws on purpose. The scheduler is a CosineAnnealingLR with T_max=30 stepped 300 times, and
the rate it left at the end is the base rate: past T_max the cosine climbs back, and the
run ended at its peak (SCHEDULE_LENGTH_MISMATCH).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Learning rate scheduler doesn't match as stated in the paper."
LINK = "https://github.com/deepcam-cn/FaceQuality/issues/10"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH",)
STEPS = 300
PEAK_LR = 0.5
HELD_OUT = 500


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the trained model."""
    torch.manual_seed(0)
    x, y = classification()
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=PEAK_LR, momentum=0.9)
    # BUG (not fixed): a tenth of the run; the cosine restarts upward after T_max
    t_max = steps if fixed else steps // 10
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=t_max)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            mon.step(loss)
    return mon, model


def evaluate(model):
    x, y = classification()
    with torch.no_grad():
        out = model(x[-HELD_OUT:])
    loss = nn.functional.cross_entropy(out, y[-HELD_OUT:]).item()
    accuracy = (out.argmax(1) == y[-HELD_OUT:]).float().mean().item()
    return "held-out loss %.3f accuracy %.4f" % (loss, accuracy)


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
