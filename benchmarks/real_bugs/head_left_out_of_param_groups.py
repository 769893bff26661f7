"""The optimizer's parameter groups are built by hand, one per part of the model with its own
learning rate, and the group for the classifier head is made but never appended to the list:
the head keeps its random weights while the encoder learns to serve them.

Reported: "Not putting parameters into optimizer but still trainable" -
https://github.com/zjunlp/HVPNeT/issues/5 ("the parameters for crf and fc are not added to
the optimizer"; the maintainer: "You're right! The parameters.append(params) should be added
after line 499, otherwise crf and fc will not be trained"). Here a pretrained digits
encoder (its own group at 1e-3, as the report's BERT has its own) and a fresh classifier head
(meant to learn at 1e-2), AdamW.
Measured on 500 held-out digits (200 steps): 93.0% accuracy with the head left out (the
encoder bends itself to a random head), 95.0% with the head's group appended.
Fix: append every group to the list given to the optimizer.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification
from benchmarks.real_bugs._pretrained import pretrained_backbone

TITLE = "Not putting parameters into optimizer but still trainable"
LINK = "https://github.com/zjunlp/HVPNeT/issues/5"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 200
HELD_OUT = 500


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = pretrained_backbone()   # the report's BERT: pretrained
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc(self.encoder(x))


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the trained model."""
    x, y = classification()
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = Tagger()
    torch.manual_seed(0)
    parameters = []
    params = {"lr": 1e-3, "params": []}
    for name, param in model.named_parameters():
        if name.startswith("encoder"):
            params["params"].append(param)
    parameters.append(params)
    params = {"lr": 1e-2, "params": []}
    for name, param in model.named_parameters():
        if name.startswith("fc"):
            params["params"].append(param)
    if fixed:
        parameters.append(params)        # BUG (unfixed): the head's group is never appended
    optimizer = torch.optim.AdamW(parameters)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]


def held_out_accuracy(fixed):
    _, model = train(fixed)
    x, y = classification()
    with torch.no_grad():
        return (model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:]).float().mean().item()


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", held_out_accuracy(fixed))
