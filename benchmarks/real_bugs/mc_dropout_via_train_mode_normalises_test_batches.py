"""Monte Carlo dropout switched on with ``model.train()`` in a network that also has batch
norm. The whole model goes to training mode for the MC passes, so batch norm stops using
its running statistics and normalises each test batch by its own mean and variance (and
folds the test batches into its running averages as it goes). With the small test batches
an uncertainty service sends, each row's prediction now depends on which other rows share
its batch: the MC-averaged predictions are less accurate and their NLL is worse than those
of the same network with only its dropout layers sampled. No error; training is healthy.

Reported: "mc-dropout train mode" - https://github.com/lightning-uq-box/lightning-uq-box/pull/173
(MC dropout in the library put the model in train mode so that functional dropout would be
sampled too; the merged change puts the whole model in train mode and then puts the
BatchNorm layers back in eval mode, so that the MC passes keep the running statistics).
Here a digits MLP with batch norm and dropout 0.3, trained with Adam and validated in eval
mode every epoch; then 30 MC dropout passes over the 797 test rows in batches of 8, the
mean of the softmax taken as the prediction. Fix: after ``model.train()``, put every
BatchNorm layer back in eval mode.

Measured (300 steps; MC-averaged predictions on the 797 test rows): seed 0, test accuracy
0.893 for the bug against 0.971 for the fixed twin, test NLL 0.344 against 0.102; seeds
shifted by 1000, accuracy 0.888 against 0.976, NLL 0.358 against 0.102.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._calibration_digits import split, train_with_validation

TITLE = "mc-dropout train mode"
LINK = "https://github.com/lightning-uq-box/lightning-uq-box/pull/173"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 300
SAMPLES = 30       # [design] MC dropout passes
TEST_BATCH = 8     # [design] rows per request to the uncertainty service


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, validation, (x_test, y_test) = split(seed=0)
    model = nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.3),
                          nn.Linear(128, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.3),
                          nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        train_with_validation(mon, model, optimizer, train, validation, steps)
        model.train()              # sample dropout at prediction time
        if fixed:
            for module in model.modules():
                if isinstance(module, nn.BatchNorm1d):
                    module.eval()  # keep the running statistics
        # BUG (unfixed): batch norm normalises every test batch by its own statistics
        probabilities = []
        with torch.no_grad():
            for start in range(0, len(x_test), TEST_BATCH):
                xb = x_test[start:start + TEST_BATCH]     # the last holds 5 rows
                samples = torch.stack([F.softmax(model(xb), 1) for _ in range(SAMPLES)])
                probabilities.append(samples.mean(0))
    probabilities = torch.cat(probabilities)
    mon.mc_test_accuracy = float((probabilities.argmax(1) == y_test).float().mean())
    mon.mc_test_nll = float(F.nll_loss(probabilities.clamp_min(1e-12).log(), y_test))
    return mon
