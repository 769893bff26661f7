"""The linear scaling rule applied to a batch twelve times larger (reached here by
accumulating 12 batches of 64) with the warm-up of the original recipe kept: the rate goes
from 0.2 to 2.4 and the linear warm-up from a third of it lasts 10 steps. The first
steps at the full rate, taken from a model that has barely moved, throw it into a region
it never leaves: the loss jumps, the ReLUs die and the run ends near chance. The rule
holds only once training is past its first unstable steps; a larger rate needs a longer
(or gentler) warm-up.

Reported: "Why I follow the Linear Scaling Rule to adjust my Lr, but my loss gets nan?" -
https://github.com/open-mmlab/mmdetection/issues/1710 (lr 0.02 for a batch of 16 scaled
to 0.12 for 48 GPUs x 2 images: NaN, still NaN at 0.08 and 0.06; the maintainer: "This
is because at this time the LR is too big. You can make the warm-up iters=1000 or more",
from the config's 500). Here a digits MLP, SGD with momentum 0.9, 12 accumulated batches
of 64 per step standing for the larger GPU count. Fix: a warm-up of 50 steps (5x longer).

Measured (150 optimizer steps, 297 held-out digits): the bug's held-out accuracy 0.18
(0.28, 0.09, 0.15 with the seeds shifted by 1000, 2000, 3000); the fixed twin's 0.92
(0.91, 0.92, 0.91). A factor of 8 (1.6) harmed only some seeds (held-out 0.20 at the
first, 0.90 and 0.92 at the next two): the scaled rate sits at the edge of what this MLP's
first steps survive, as in the report, where 0.04 was "better" and 0.06 still failed.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Why I follow the Linear Scaling Rule to adjust my Lr, but my loss gets nan?"
LINK = "https://github.com/open-mmlab/mmdetection/issues/1710"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 150            # optimizer steps
BASE_LR = 0.2          # the recipe's rate for one batch of 64
ACCUMULATE = 12        # batches of 64 per step: an effective batch of 768
WARMUP_RATIO = 1 / 3   # the warm-up starts at a third of the rate
HELD_OUT = 297


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    lr = BASE_LR * ACCUMULATE                       # the linear scaling rule
    warmup = 50 if fixed else 10                    # BUG: the small batch's warm-up kept
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: 1.0 if s >= warmup else
        WARMUP_RATIO + (1 - WARMUP_RATIO) * s / warmup)
    loss_fn = nn.CrossEntropyLoss()
    micro = batches(x[:-HELD_OUT], y[:-HELD_OUT], steps * ACCUMULATE, batch_size=64)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            for _ in range(ACCUMULATE):
                xb, yb = next(micro)
                loss = loss_fn(model(xb), yb)
                (loss / ACCUMULATE).backward()
            optimizer.step()
            scheduler.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
