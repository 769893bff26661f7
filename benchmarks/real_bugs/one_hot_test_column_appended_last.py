"""A categorical column is one-hot encoded separately on the training and on the test
table: a category that never occurs in the test rows is missing from the test dummies, is
added back as a zero column AT THE END, and every dummy column after its place in the
training order is shifted by one. The widths match, nothing errors, and the test rows of
those categories are read as their neighbours.

Reported: "Adding correction to X_test" - https://github.com/Yorko/mlcourse.ai/pull/690
("When the "Country_ Holand-Netherlands" column is added to X_test, it is added in the
final column then X_test and X_train have differente order in their columns, therefore is
important to "reorder" the columns before do the prediction"). Here the digits' pixels
(noisy, so the model leans on the table's categorical column) and a "country" column whose
value follows the digit's pair (0-1 Canada, 2-3 France, ...), with a handful of training
rows from Holand-Netherlands, which sorts between Germany and Mexico and never occurs in
the held-out rows. The validation loss is passed to the monitor after every epoch.
Fix: reindex the test dummies to the training columns (``X_test[X_train.columns]``).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Adding correction to X_test"
LINK = "https://github.com/Yorko/mlcourse.ai/pull/690"
EXPECTED = ("VALIDATION_COLUMNS_REORDERED",)
STEPS = 150
EPOCH = 22           # batches of 64 in the training split
COUNTRIES = ["Canada", "France", "Germany", "Mexico", "Peru"]   # one per pair of digits
RARE = "Holand-Netherlands"
NOISE = 0.6          # pixel noise: the pixels alone leave the pairs half-guessed


def get_dummies(countries):
    """pandas.get_dummies on one column: a 0/1 column per value present, in sorted order."""
    present = sorted(set(countries))
    table = torch.zeros(len(countries), len(present))
    for row, country in enumerate(countries):
        table[row, present.index(country)] = 1.0
    return table, present


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    x, y = classification()
    pixels = x + NOISE * torch.randn(x.shape, generator=g)
    countries = [COUNTRIES[label // 2] for label in y.tolist()]
    order = torch.randperm(len(x), generator=g)
    cut = int(0.8 * len(x))
    train_rows, val_rows = order[:cut].tolist(), order[cut:].tolist()
    for row in train_rows[:30]:                   # a few training rows from the rare country
        countries[row] = RARE
    train_dummies, train_columns = get_dummies([countries[r] for r in train_rows])
    val_dummies, val_columns = get_dummies([countries[r] for r in val_rows])
    for name in train_columns:
        if name not in val_columns:               # the missing dummy, added as zeros ...
            val_dummies = torch.cat([val_dummies, torch.zeros(len(val_rows), 1)], dim=1)
            val_columns = val_columns + [name]    # ... BUG: at the end
    if fixed:
        val_dummies = val_dummies[:, [val_columns.index(n) for n in train_columns]]
    x_train = torch.cat([pixels[train_rows], train_dummies], dim=1)
    x_val = torch.cat([pixels[val_rows], val_dummies], dim=1)
    y_train, y_val = y[train_rows], y[val_rows]
    model = mlp(inputs=x_train.shape[1])
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
