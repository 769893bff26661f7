"""A network that ends in nn.Softmax(dim=0): written for one input vector, trained on
batches, it normalises each class's scores across the samples of the batch instead of each
sample's scores across the classes, so every output depends on the other samples.

Reported: "Chap.4. softmax(dim=1)" -
https://github.com/DeepReinforcementLearning/DeepReinforcementLearningInAction/issues/32
("the softmax operation with dim=0 is only OK when the input is a 1 dimensional array.
However, when you give a batch input, then the probability will be computed along the row
direction of the batch matrix"). Here a digits classifier ending in that Softmax, trained
on the log of its output with NLLLoss. Fix: nn.Softmax(dim=1).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Chap.4. softmax(dim=1)"
LINK = "https://github.com/DeepReinforcementLearning/DeepReinforcementLearningInAction/issues/32"
EXPECTED = ("BATCH_MIXING",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(), nn.Linear(64, 10),
                          nn.Softmax(dim=1 if fixed else 0))    # BUG: dim=0 is the batch
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.NLLLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(torch.log(model(xb)), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
