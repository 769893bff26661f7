"""The data the model is scored on holds the same columns as the training data but in
another order: every input unit reads another feature, and the model's predictions on it
are noise, while nothing errors (the width matches).

Reported: "Potential error caused by different column order" -
https://github.com/scikit-learn/scikit-learn/issues/7242 ("the results turned quite wired
after applying the .pkl file on the new dataset ... Finally, we found out the problem was
that the column order of the new dataset was different from the old one. Thus the
predictions were totally wrong"). Here a binary classifier (digits 0-4 against 5-9) is
trained on the 64 pixel columns in their numeric order (pixel_0, pixel_1, ..., pixel_63);
the held-out table is rebuilt from a mapping of column name to values and its columns are
taken in sorted order, which sorts the names as strings (pixel_0, pixel_1, pixel_10,
pixel_11, ...). The validation loss is passed to the monitor after every epoch.
Fix: select the held-out columns in the training order (``x_val[train_columns]``).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, binary, mlp

TITLE = "Potential error caused by different column order"
LINK = "https://github.com/scikit-learn/scikit-learn/issues/7242"
EXPECTED = ("VALIDATION_COLUMNS_REORDERED",)
STEPS = 150
EPOCH = 22           # batches of 64 in the training split


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = binary()
    names = [f"pixel_{i}" for i in range(x.shape[1])]
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    cut = int(0.8 * len(x))
    x_train, y_train = x[order[:cut]], y[order[:cut]]
    held_out = {name: x[order[cut:], i] for i, name in enumerate(names)}   # a new table
    y_val = y[order[cut:]]
    columns = names if fixed else sorted(held_out)   # BUG: string order, not the training one
    x_val = torch.stack([held_out[name] for name in columns], dim=1)
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EPOCH == 0 or done == steps:
                model.eval()
                with torch.no_grad():
                    val_loss = F.binary_cross_entropy_with_logits(model(x_val).squeeze(1),
                                                                  y_val)
                model.train()
            mon.step(loss, val_loss=val_loss)
    return mon
