"""Two param groups built by hand for fine-tuning - a pretrained backbone at a small rate,
the new parts at the detector's rate - with a freshly initialised adapter sorted into the
backbone's group: the random adapter then moves at 1/100 of the rate it needs, stays
almost where it was drawn, and every prediction reads the backbone through it.

Reported: "Fix STA learning rate" - https://github.com/lightly-ai/lightly-train/pull/646
(the spatial-tuning adapter was given the backbone's rate: "As the STA is randomly
initialized during training the backbone learning rate is too low and leads to slow
weight updates"). Here the backbone is an MLP (64 -> 64 -> 64) taken from an earlier
digits classifier (trained for 200 steps before the run, its head dropped), the new
adapter a Linear(64, 16) + ReLU neck on its features, the new head a Linear(16, 10);
fine-tuned on all ten digits with AdamW, groups [backbone + adapter at 1e-5, head at
1e-3], batches of 64.
Fix: the adapter in the new parts' group (backbone 1e-5; adapter and head 1e-3).

Measured (held-out accuracy on 500 digits, after the run): seed 0: 0.682 with the bug,
0.918 fixed; seeds + 1000: 0.586 vs 0.904.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._regularisation_beginner import accuracy, digits

TITLE = "Fix STA learning rate"
LINK = "https://github.com/lightly-ai/lightly-train/pull/646"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 300
BACKBONE_LR, HEAD_LR = 1e-5, 1e-3


class Detector(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.adapter = nn.Sequential(nn.Linear(64, 16), nn.ReLU())     # new, random
        self.head = nn.Linear(16, 10)                                   # new, random

    def forward(self, x):
        return self.head(self.adapter(self.backbone(x)))


def pretrained_backbone(x, y):
    """The 'pretrained' feature extractor: a checkpoint of an earlier classifier of the
    digits (trained before the run), its old head thrown away."""
    backbone = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
    probe = nn.Linear(64, 10)
    optimizer = torch.optim.Adam([*backbone.parameters(), *probe.parameters()], lr=1e-3)
    for xb, yb in batches(x, y, 200, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(probe(backbone(xb)), yb).backward()
        optimizer.step()
    return backbone


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = digits()
    model = Detector(pretrained_backbone(x, y))
    if fixed:
        groups = [{"params": model.backbone.parameters(), "lr": BACKBONE_LR},
                  {"params": [*model.adapter.parameters(), *model.head.parameters()],
                   "lr": HEAD_LR}]
    else:                               # BUG: the fresh adapter rides with the backbone
        groups = [{"params": [*model.backbone.parameters(), *model.adapter.parameters()],
                   "lr": BACKBONE_LR},
                  {"params": model.head.parameters(), "lr": HEAD_LR}]
    optimizer = torch.optim.AdamW(groups, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
