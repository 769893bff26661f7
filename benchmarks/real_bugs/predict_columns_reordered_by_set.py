"""The prediction script selects the user's feature columns through a set and sorts them,
while the training script kept them in the order the user listed: the model trained on one
column order is scored on another, and its predictions on the held-out data are wrong
without any error.

Reported: "Don't jumble column order in Epinano_Predict" -
https://github.com/novoalab/EpiNano/pull/119 ("the column numbers were converted a set
after sorting, which randomizes the order ... Using the version of the script docker
image, 100% of the sites were predicted to be modified. Using ... my modified script, 14%
of the sites were predicted to be modified"). Here a binary classifier (digits 0-4 against
5-9) on 32 pixel columns that the user lists image column by image column (0, 8, 16, ...,
1, 9, ...); training keeps that order, the evaluation takes ``sorted(set(columns))``. The
validation loss is passed to the monitor after every epoch.
Fix: keep the listed order in both scripts (``columns`` as given).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, binary, mlp

TITLE = "Don't jumble column order in Epinano_Predict"
LINK = "https://github.com/novoalab/EpiNano/pull/119"
EXPECTED = ("VALIDATION_COLUMNS_REORDERED",)
STEPS = 150
EPOCH = 22           # batches of 64 in the training split
# the user's --columns: the left half of the image, listed image column by image column
COLUMNS = [row * 8 + col for col in range(4) for row in range(8)]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = binary()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    cut = int(0.8 * len(x))
    x_train, y_train = x[order[:cut]][:, COLUMNS], y[order[:cut]]
    scored = COLUMNS if fixed else sorted(set(COLUMNS))   # BUG: the predict script's order
    x_val, y_val = x[order[cut:]][:, scored], y[order[cut:]]
    model = mlp(inputs=len(COLUMNS), outputs=1)
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
