"""The model's auxiliary head computes its loss and the recogniser throws it away
(``x, _ = self.neck(x, labels)``): the total loss is the main head's alone, the auxiliary
head - and the deep supervision it was to give the middle of the network - is never
trained, though the config asks for it and every forward pass still runs it.

Reported: "Default setting aux_head_cfg in tpn models does not use?" -
https://github.com/open-mmlab/mmaction2/issues/682 ("neck paramether aux_head_cfg is not
None which indicated when need to optimized this loss, but in recognizer2d.py ... ``x, _ =
self.neck(x, labels.squeeze())``, the aux head loss does not seem to be used"; the
maintainers: "It seems the codes have been mistakenly changed. We add it back", PR #683).
Here a digits network whose neck carries an auxiliary classifier on its middle features,
as TPN's does, weighted 0.5 as in TPN's configs. Fix: add the neck's auxiliary loss to the
losses that are summed and backpropagated.

Measured when written: the auxiliary head classifies 9% of the digits after the bug's
150 steps (chance), 98% after the fixed twin's.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Default setting aux_head_cfg in tpn models does not use?"
LINK = "https://github.com/open-mmlab/mmaction2/issues/682"
EXPECTED = ("NO_GRADIENT",)
STEPS = 150
AUX_WEIGHT = 0.5   # TPN's aux_head_cfg loss_weight


class Neck(nn.Module):
    """Middle features, and the auxiliary head's loss on them when labels are given."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.aux_head = nn.Linear(64, 10)

    def forward(self, x, labels=None):
        features = self.body(x)
        aux_loss = None
        if labels is not None:
            aux_loss = AUX_WEIGHT * F.cross_entropy(self.aux_head(features), labels)
        return features, aux_loss


class Recognizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.neck = Neck()
        self.cls_head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = Recognizer()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            features, aux_loss = model.neck(xb, yb)
            losses = {"loss_cls": F.cross_entropy(model.cls_head(features), yb)}
            if fixed:
                losses["loss_aux"] = aux_loss
            # BUG when not fixed: the neck's auxiliary loss is dropped (x, _ = self.neck(...))
            loss = sum(losses.values())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
