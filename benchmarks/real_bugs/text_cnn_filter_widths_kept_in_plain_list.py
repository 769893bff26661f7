"""A first text-CNN-style classifier whose three Conv1d filter banks (widths 3, 4 and 5)
are kept in a plain Python list in __init__: nn.Module registers only attributes that are
modules, parameters or ModuleLists, so the convolutions are not among
model.parameters(). The optimizer built from model.parameters() steps the linear head
alone; the filters keep their random initial weights for the whole run, and the head
learns what it can from max-pooled random features.

Reported: "submodules defined in list are not auto-registered as parameters" -
https://github.com/pytorch/pytorch/issues/1053 (a Net holding ``self.conv1d = [Conv1d(...,
3), Conv1d(..., 4), Conv1d(..., 5)]``; the maintainers: "This is expected. Use
nn.ModuleList."). Here each 8x8 digit is read as a sequence of 8 rows of 8 values (the
rows as "word vectors"), three Conv1d banks of 8 filters each slide over the rows, each
bank is max-pooled over positions, and a Linear(24, 10) classifies; Adam (3e-3), batches
of 64, 300 steps, held-out loss every 50 steps.
Fix: ``self.convs = nn.ModuleList([...])``.

Measured (held-out accuracy on 500 digits): 0.656 with the bug, 0.916 fixed;
seeds + 1000: 0.688 vs 0.912.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._reg169 import accuracy, split

TITLE = "submodules defined in list are not auto-registered as parameters"
LINK = "https://github.com/pytorch/pytorch/issues/1053"
EXPECTED = ("UNREGISTERED_PARAMETERS", "OPTIMIZER_MISSING_PARAMS", "PARAMS_NOT_UPDATING")
STEPS = 300
WIDTHS = (3, 4, 5)


class RowCNN(nn.Module):
    def __init__(self, fixed=False, rows=8, filters=8, classes=10):
        super().__init__()
        convs = [nn.Conv1d(rows, filters, width) for width in WIDTHS]
        # BUG: a plain list - the banks are not submodules of the model
        self.convs = nn.ModuleList(convs) if fixed else convs
        self.fc = nn.Linear(filters * len(WIDTHS), classes)

    def forward(self, x):
        seq = x.view(-1, 8, 8).transpose(1, 2)          # (batch, row values, row index)
        pooled = [F.relu(conv(seq)).max(dim=2).values for conv in self.convs]
        return self.fc(torch.cat(pooled, dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split()
    model = RowCNN(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps), 1):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 50 == 0:
                with torch.no_grad():
                    val_loss = loss_fn(model(xh), yh).item()
            mon.step(loss, val_loss=val_loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
