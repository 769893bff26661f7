"""The held-out features are standardised with a scaler fitted on the held-out split itself
(``fit_transform`` on the test set) instead of the one fitted on the training split: every
feature is shifted and stretched by statistics the model never saw, and features that are
rare in the small held-out split (a pixel that is almost always blank) are blown up.

Reported: "Fixed transformation of test set via RobustScaler in example" -
https://github.com/scikit-learn/scikit-learn/pull/5800 ("RobustScaler should have followed
the same approach of StandardScaler: fit_transform on train and only transform on test";
test accuracy went from 0.545 to 0.705 with the fix). Here an MLP on the digits' raw pixel
counts (0-16), standardised per feature. The held-out batch comes from a skewed source
(150 images, all of digits 0-2), so its own per-feature means and spreads are not the
training ones: its fit_transform moves every pixel by the wrong amount, where the training
scaler would have kept it where the model learned it. The validation loss is passed to the
monitor after every epoch.
Fix: ``scaler.transform(x_val)`` with the scaler fitted on the training split.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Fixed transformation of test set via RobustScaler in example"
LINK = "https://github.com/scikit-learn/scikit-learn/pull/5800"
EXPECTED = ("VALIDATION_SCALED_ON_ITSELF",)
STEPS = 150
EPOCH = 24           # batches of 64 in the training split
HELD_OUT = 150      # images in the held-out split, all of digits 0-2 (a skewed source)


class StandardScaler:
    """Per-feature standardisation; a constant feature keeps scale 1 (as scikit-learn's)."""

    def fit(self, x):
        std = x.std(0, unbiased=False)
        self.mean, self.std = x.mean(0), torch.where(std > 0, std, torch.ones_like(std))
        return self

    def transform(self, x):
        return (x - self.mean) / self.std

    def fit_transform(self, x):
        return self.fit(x).transform(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x = x * 16                                   # the raw pixel counts, 0-16
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    skewed = order[y[order] < 3][:HELD_OUT]      # the held-out batch: digits 0-2 only
    rest = order[~torch.isin(order, skewed)]
    x_train, y_train = x[rest], y[rest]
    x_val, y_val = x[skewed], y[skewed]
    scaler = StandardScaler()
    x_train = scaler.fit_transform(x_train)
    if fixed:
        x_val = scaler.transform(x_val)
    else:
        x_val = StandardScaler().fit_transform(x_val)   # BUG: fitted on the held-out split
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
