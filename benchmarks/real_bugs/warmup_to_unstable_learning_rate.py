"""A warm-up that ramps the learning rate past the stability limit: training is fine for
30 steps, then the loss blows up within a few dozen steps and overflows.

Reported: "Loss becomes nan after training for ~2000 iterations" -
https://github.com/karpathy/nanoGPT/issues/136 (a warm-up schedule; fixed by "reducing
learning rate"). Plain SGD without clipping on a linear regression: the warm-up passes
2 / (largest curvature) ~ 0.095 at step 32, and from there one direction grows faster
every step. Between sparse detailed records (steps 32 and 64) nothing looks wrong yet,
then everything is inf. Fix: a peak learning rate below the limit (0.05).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, regression

TITLE = "Loss becomes nan after training for ~2000 iterations"
LINK = "https://github.com/karpathy/nanoGPT/issues/136"
EXPECTED = ("LR_TOO_HIGH", "EXPLODING_GRADIENTS")
STEPS = 120
WARMUP = 100


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = regression()
    model = nn.Linear(64, 1)
    peak = 0.05 if fixed else 0.3            # BUG: a peak three times the stable rate
    optimizer = torch.optim.SGD(model.parameters(), lr=peak)
    warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda t: min(1.0, (t + 1) / WARMUP))
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            warmup.step()
            mon.step(loss)
    return mon
