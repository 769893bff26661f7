"""A two-branch (RGB + X modality) encoder overwrites the second branch's features with the
first branch's at every stage: ``x_d = x.view(...)`` where ``x_d.view(...)`` was meant. The
second branch still runs on every step, but its output is thrown away, so none of its layers
receives a gradient and the model sees one modality only; the fused features are the first
branch's features twice. Training looks normal - the loss falls - only more slowly and to a
worse model than the same network reading both inputs.

Reported: "fix dual swin bugs" - https://github.com/huaaaliu/RGBX_Semantic_Segmentation/pull/18
("There is an assignment error inside the dual swin forward function": in DualSwinTransformer
.forward, ``x_d = x.view(-1, H, W, C)...`` after each stage, and ``x = x_d.flatten(2)...``
after the rectify module; the merged fix writes ``x_d = x_d.view(...)`` and
``x = x.flatten(...)``). Here the digits split into two 'modalities' - the top four pixel rows
read by one branch, the bottom four by the other - with two stages per branch and a fused
classifier, as the dual encoder does. Fix: each branch keeps its own features.

Measured (200 steps, 297 held-out digits): the bug's held-out accuracy 0.77 (the model reads
the top half only; the second branch's 6,272 weights never move), the fixed twin's 0.89.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "fix dual swin bugs"
LINK = "https://github.com/huaaaliu/RGBX_Semantic_Segmentation/pull/18"
EXPECTED = ("NO_GRADIENT",)
STEPS = 200
HELD_OUT = 297
WIDTH = 64


class DualEncoder(nn.Module):
    """Two branches (top rows, bottom rows), two stages each, features fused at the end."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.stages = nn.ModuleList([nn.Linear(32, WIDTH), nn.Linear(WIDTH, WIDTH)])
        self.stages_d = nn.ModuleList([nn.Linear(32, WIDTH), nn.Linear(WIDTH, WIDTH)])
        self.fuse = nn.Linear(2 * WIDTH, 10)

    def forward(self, x, x_d):
        for layer, layer_d in zip(self.stages, self.stages_d):
            x = torch.relu(layer(x))
            x_d = torch.relu(layer_d(x_d))
            if not self.fixed:
                x_d = x.view(x.shape)                   # BUG: x_d = x.view(...), not x_d.view
        return self.fuse(torch.cat([x, x_d], 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = DualEncoder(fixed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb[:, :32], xb[:, 32:]), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        held = x[-HELD_OUT:]
        predicted = model(held[:, :32], held[:, 32:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
