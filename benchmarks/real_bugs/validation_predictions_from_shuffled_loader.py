"""The validation loader shuffles (``shuffle=True`` copied from the training loader), the
predictions it yields are concatenated and scored against the validation labels in their
stored order. Each prediction is paired with some other row's label, so the validation loss
stays at (or above) the untrained model's level while the model learns well: it reads as
a model that does not generalise at all.

Reported: "Accuracy on training and validation sets different from sk-learn's" -
https://github.com/skorch-dev/skorch/issues/499 (the maintainers: "you are enabling
shuffling on the validation data loader which is used for predictions as well ... y_pred is
not ordered in the same way that X_valid is. This in turn means that if you compare y_pred
with y_valid then the pairs do not match anymore! Set iterator_valid__shuffle=False").
Here a digits MLP validated every 25 steps: predictions collected from a shuffled validation
DataLoader, then cross-entropy against ``y_val``. Fix: ``shuffle=False`` for the validation
loader (or score each batch against the labels it came with).

Measured (300 steps, 360 held-out digits, seed 0): the bug's validation losses climb from 2.4
to 8.3 (untrained: 2.3; accuracy 0.125) while the same model, scored in order, reaches 0.14
and accuracy 0.96 (the fixed twin's report).
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Accuracy on training and validation sets different from sk-learn's"
LINK = "https://github.com/skorch-dev/skorch/issues/499"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
STEPS = 300
HELD_OUT = 360
VAL_EVERY = 25


def predict(model, loader):
    model.eval()
    with torch.no_grad():
        logits = torch.cat([model(xb) for xb, _ in loader])
    model.train()
    return logits


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    x, y = x[order], y[order]
    x_val, y_val = x[-HELD_OUT:], y[-HELD_OUT:]
    # BUG (unfixed): the validation loader shuffles, its predictions lose their rows' order
    valid_loader = DataLoader(TensorDataset(x_val, y_val), batch_size=64, shuffle=not fixed,
                              generator=torch.Generator().manual_seed(1))
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    vals = []
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x[:-HELD_OUT], y[:-HELD_OUT], steps)):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val = None
            if step % VAL_EVERY == VAL_EVERY - 1:
                val = F.cross_entropy(predict(model, valid_loader), y_val)
                vals.append(round(float(val), 2))
            mon.step(loss, val_loss=val)
    logits = predict(model, valid_loader)
    model.eval()
    with torch.no_grad():
        in_order = model(x_val)
    model.train()
    mon.extra = {"val_losses": vals, "val_accuracy": round(float(
        (logits.argmax(1) == y_val).float().mean()), 3),
        "in_order_loss": round(float(F.cross_entropy(in_order, y_val)), 3),
        "in_order_accuracy": round(float((in_order.argmax(1) == y_val).float().mean()), 3)}
    return mon
