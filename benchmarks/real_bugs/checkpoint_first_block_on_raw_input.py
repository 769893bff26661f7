"""The network's first block is wrapped in ``torch.utils.checkpoint`` (the reentrant
variant, the default for years) and called directly on the input batch. The batch does not
require a gradient, so the reentrant checkpoint's output does not either: backward never
re-enters the block, and its weights keep their random initial values for the whole run,
with no error (only torch's "None of the inputs have requires_grad=True" warning). The
layers after it train on whatever the frozen random block passes on.

Reported: "Use of torch.utils.checkpoint.checkpoint causes simple model to diverge" -
https://discuss.pytorch.org/t/use-of-torch-utils-checkpoint-checkpoint-causes-simple-model-to-diverge/116271
(the answer: with checkpointing, whether the block's output requires grad "is solely
determined by whether the input vector" does, so "the first block in the model cannot be
checkpointed ... setting X = checkpoint(self.cnn_block_1, X) causes every gradient in
cnn_block_1 to stay fixed"; removing that checkpoint made the model converge). Here a digits
MLP whose first block (a 16-unit bottleneck) is checkpointed on the raw pixels. Fix: do not
checkpoint a block whose only input is the data, or use ``use_reentrant=False``.

Measured (200 steps, 360 held-out digits): the bug's held-out accuracy 0.63 (the first
block never moves), the fixed twin's 0.85.
"""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Use of torch.utils.checkpoint.checkpoint causes simple model to diverge"
LINK = ("https://discuss.pytorch.org/t/use-of-torch-utils-checkpoint-checkpoint-causes-"
        "simple-model-to-diverge/116271")
EXPECTED = ("NO_GRADIENT",)
STEPS = 200
HELD_OUT = 360


class Net(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.block_1 = nn.Sequential(nn.Linear(64, 16), nn.ReLU())
        self.block_2 = nn.Sequential(nn.Linear(16, 64), nn.ReLU())
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        if self.fixed:
            x = self.block_1(x)
        else:
            x = checkpoint(self.block_1, x, use_reentrant=True)   # BUG: x needs no grad
        return self.head(self.block_2(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = Net(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        mon.accuracy = round(float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:])
                                   .float().mean()), 3)
    return mon
