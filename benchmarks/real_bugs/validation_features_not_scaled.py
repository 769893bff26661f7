"""A standard scaler is fitted on the training features and applied to them, but the
validation features are passed to the model unscaled: the model meets inputs on another
scale at every validation, and the validation loss says nothing about what it learned.

Reported: "Missing scaling of validation samples in evaluate.py" -
https://github.com/nttcslab/byol-a/issues/5 ("It also needs: X_val =
scaler.transform(X_val), or validation acc & loss will be invalid"). Here a linear-probe
style MLP on the digits' raw pixel counts (0-16): the training split is standardised with
the training statistics, the validation split is not, and the validation loss is passed to
the monitor after every epoch. Fix: transform the validation features with the same
fitted scaler.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Missing scaling of validation samples in evaluate.py"
LINK = "https://github.com/nttcslab/byol-a/issues/5"
EXPECTED = ("VALIDATION_INPUTS_RESCALED", "VALIDATION_NEVER_IMPROVED")
STEPS = 150
EPOCH = 22           # batches of 64 in the training split


class StandardScaler:
    """Per-feature standardisation with the statistics of the data it was fitted on."""

    def fit(self, x):
        self.mean, self.std = x.mean(0), x.std(0).clamp_min(1e-6)
        return self

    def transform(self, x):
        return (x - self.mean) / self.std


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x = x * 16                                   # the raw pixel counts, 0-16
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    cut = int(0.8 * len(x))
    x_train, y_train = x[order[:cut]], y[order[:cut]]
    x_val, y_val = x[order[cut:]], y[order[cut:]]
    scaler = StandardScaler().fit(x_train)
    x_train = scaler.transform(x_train)
    if fixed:
        x_val = scaler.transform(x_val)
    # BUG (unfixed): x_val is left on the raw 0-16 scale
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EPOCH == 0 or done == steps:
                model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_val), y_val)
                model.train()
            mon.step(loss, val_loss=val_loss)
    return mon
