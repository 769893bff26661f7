"""A conv regression head whose output keeps its pooled spatial axes, (B, 3, 1, 1), scored
with ``L1Loss`` against labels of shape (B, 3): broadcasting lines the two up as a
(B, 3, B, 3) table - every predicted component against every label component of every
sample - so training pulls each output towards the median of all the batch's label values
and the head never learns which sample, or which component, it is predicting.

Reported: "Fixes prediction shapes in loss calculations" -
https://github.com/dingmyu/CamNet/pull/4 ("the predictions and the labels have different
shapes when calculating the different L1 losses. For example `trans` had a shape of
`[BS, 3, 1, 1]` while the label `translation_var` has a shape of `[BS,3]`. Pytorch does not
throw an exception in such cases but does some weird broadcasting which results in wrong
loss values"; merged). Here a small conv net regresses three standardised properties of
each 8x8 digit (its value and the row and column of its centre of mass) through a 1x1-conv
head after global pooling. Fix: flatten the head's output to (B, 3) before the loss.

Harm (held-out mean absolute error over the three targets, bug vs fixed): 0.81 vs 0.60;
seeds + 1000: 0.84 vs 0.63.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._shape_slips import minibatches, record, split

TITLE = "Fixes prediction shapes in loss calculations"
LINK = "https://github.com/dingmyu/CamNet/pull/4"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH", "LOSS_SHAPE_MISMATCH")
STEPS = 200


def properties(x, d):
    """(N, 3): the digit's value and its centre of mass (row, column) on the 8x8 grid."""
    grid = torch.arange(8, dtype=torch.float32)
    mass = x.sum(dim=(1, 2, 3)).clamp_min(1e-6)
    row = (x.sum(dim=(1, 3)) * grid).sum(1) / mass
    col = (x.sum(dim=(1, 2)) * grid).sum(1) / mass
    return torch.stack([d.float(), row, col], dim=1)


class PoseNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1))
        self.head = nn.Sequential(nn.Conv2d(32, 32, 1), nn.ReLU(), nn.Conv2d(32, 3, 1))

    def forward(self, x):
        return self.head(self.body(x))                    # (B, 3, 1, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, d_train, x_test, d_test = split(images=True)
    t_train, t_test = properties(x_train, d_train), properties(x_test, d_test)
    mean, std = t_train.mean(0), t_train.std(0)
    t_train, t_test = (t_train - mean) / std, (t_test - mean) / std
    model = PoseNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.L1Loss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in minibatches(len(x_train), steps):
            pred = model(x_train[index])
            if fixed:
                pred = pred.flatten(1)
            optimizer.zero_grad()
            loss = loss_fn(pred, t_train[index])          # BUG: (B, 3, 1, 1) against (B, 3)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        record("held-out MAE", (model(x_test).flatten(1) - t_test).abs().mean())
    return mon
