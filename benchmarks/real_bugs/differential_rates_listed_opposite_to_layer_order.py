"""Differential learning rates for transfer learning written as a list, highest first (the
classifier needs the most training), and paired with param groups listed in the model's
own order, input side first: the pretrained first block gets the classifier's 1e-2, and
the new, random classifier gets 1e-8 - it never moves, and the pretrained features are
rewritten to suit a random head instead.

Reported: "Ch6. Adjust arguments for differential learning rates in Adam optimizer" -
https://github.com/falloutdurham/beginners-pytorch-deep-learning/pull/27 (the book's rates
[1e-2, 1e-4, 1e-8] are meant "with the highest learning rate applied to our classifier";
the reader splitting them over the layers was not sure "whether still to change 1e-2 with
1e-8 (the argument's position)"). Here a small CNN on the 8x8 digits: two conv blocks
taken from an earlier digits classifier (trained for 200 steps before the run, its head
dropped) and a new Linear(128, 10) classifier; Adam with three groups [first block,
second block, classifier] zipped with the rates [1e-2, 1e-4, 1e-8], batches of 64.
Fix: the rates in the groups' order: first block 1e-8, second block 1e-4, classifier 1e-2.

Measured (held-out accuracy on 500 digits, after the run): seed 0: 0.256 with the bug,
0.908 fixed; seeds + 1000: 0.218 vs 0.876.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._reg169 import accuracy, split

TITLE = "Ch6. Adjust arguments for differential learning rates in Adam optimizer"
LINK = "https://github.com/falloutdurham/beginners-pytorch-deep-learning/pull/27"
EXPECTED = ("LR_TOO_HIGH", "LR_TOO_LOW")
STEPS = 300
RATES = [1e-2, 1e-4, 1e-8]          # the book's list: classifier first in its mind


class TransferNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                                    nn.AdaptiveAvgPool2d(2), nn.Flatten())
        self.classifier = nn.Linear(128, 10)

    def forward(self, x):
        return self.classifier(self.block2(self.block1(x)))


def pretrain_blocks(model, x, y):
    """The 'pretrained' blocks: an earlier classifier's, trained before the run; its own
    head is thrown away and the model's classifier stays freshly initialised."""
    old_head = nn.Linear(128, 10)
    params = [*model.block1.parameters(), *model.block2.parameters(), *old_head.parameters()]
    optimizer = torch.optim.Adam(params, lr=1e-3)
    for xb, yb in batches(x, y, 200, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(old_head(model.block2(model.block1(xb))), yb).backward()
        optimizer.step()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split(images=True)
    model = TransferNet()
    pretrain_blocks(model, x, y)
    layers = [model.block1, model.block2, model.classifier]       # the model's order
    rates = RATES[::-1] if fixed else RATES                       # BUG: zipped as written
    optimizer = torch.optim.Adam([{"params": layer.parameters(), "lr": lr}
                                  for layer, lr in zip(layers, rates)])
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
