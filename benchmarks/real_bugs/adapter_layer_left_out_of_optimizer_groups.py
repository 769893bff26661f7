"""A new layer added between a pretrained backbone and the new head, left out of the list
of parameter groups the optimizer is built from: the groups name the backbone and the head
one by one, and the adapter in between is named by neither. It gets gradients on every
step but no optimizer steps it, so it stays at its random initialisation - a random
projection (and ReLU) that throws away part of what the backbone computes before the head
sees it. The loss falls (the backbone and head adapt around it) and nothing errors.

Reported: "about trainable_params" - https://github.com/ohhhyeahhh/SiamCAR/issues/18 (the
model builder defines an extra ``self.down`` ConvTranspose2d between the backbone and the
head, but train.py builds its parameter groups from the backbone, the neck and the head
only, so ``down`` is never trained; the authors: they had indeed forgotten to put its
parameters in the optimizer, and would fix it). Fix: add the adapter's parameters to the
groups (here at the head's rate).

Here the batch-73 conv backbone (pretrained on 900 colour digits, batch norm, in
``_pretrained_cnn``) feeds an 8-unit linear-ReLU adapter and a new ten-way head, fine-tuned
on 100 other digits with Adam, the head at 0.01 and the backbone at a tenth of that.

Measured (297 held-out digits): seed 0, held-out accuracy 0.72 for the bug against 0.79 for
the fixed twin; seeds shifted by 1000, 0.75 against 0.84.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._ft188 import (FEATURES, accuracy, pretrained_backbone,
                                         target_task, torch_preprocess)

TITLE = "about trainable_params"
LINK = "https://github.com/ohhhyeahhh/SiamCAR/issues/18"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 150
LR = 0.01
WIDTH = 8
TRAIN_ROWS = 100


class Tracker(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.down = nn.Sequential(nn.Linear(FEATURES, WIDTH), nn.ReLU())   # the new adapter
        self.head = nn.Linear(WIDTH, 10)

    def forward(self, x):
        return self.head(self.down(self.backbone(x)))


def run(fixed=False, steps=STEPS, **watch):
    body, stats = pretrained_backbone("torch")
    (x, y), (x_held, y_held) = target_task(TRAIN_ROWS)
    x, x_held = torch_preprocess(x, stats), torch_preprocess(x_held, stats)
    torch.manual_seed(0)
    model = Tracker(body).train()
    groups = [{"params": model.backbone.parameters(), "lr": LR / 10},
              {"params": model.head.parameters(), "lr": LR}]
    if fixed:
        groups.append({"params": model.down.parameters(), "lr": LR})
    # BUG (else): model.down is in no group, so it keeps its random weights
    optimizer = torch.optim.Adam(groups)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).held_out_accuracy)
