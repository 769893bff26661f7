"""A hand-written output layer whose weight is created with ``torch.Tensor(out, in)`` and never
initialised: ``torch.Tensor`` (like ``torch.empty``) hands back whatever the allocator's memory
held, so the layer starts from garbage. In the report the garbage was huge and the logits came
out NaN; the loss is NaN from the first step and nothing is learned.

Reported: "Update model.py" - https://github.com/suolyer/PyTorch_BERT_Biaffine_NER/pull/3 (the
fix, merged: "torch.Tensor会导致初始化权重极大，使logits nan" - torch.Tensor makes the
initial weights enormous and the logits NaN; the layer's parameters are initialised
explicitly instead). Here an MLP on the digits ends in such a layer. What uninitialised
memory holds depends on the allocator; to make the run the same on every machine the layer
is built under PyTorch's deterministic mode, which fills uninitialised memory with NaN
(``torch.utils.deterministic.fill_uninitialized_memory``) - the NaN the report ended with,
from the first forward. Fix: initialise the parameter (``nn.init.kaiming_uniform_`` as
``nn.Linear.reset_parameters`` does), or create it with ``torch.randn`` scaled to its fan-in.

Measured (150 steps, 297 held-out digits): the bug's loss is NaN from step 0, held-out
accuracy 0.09 (every logit NaN); the fixed twin's accuracy 0.85.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Update model.py"
LINK = "https://github.com/suolyer/PyTorch_BERT_Biaffine_NER/pull/3"
EXPECTED = ("UNINITIALISED_PARAMETERS",)
STEPS = 150
HELD_OUT = 297


class Scorer(nn.Module):
    """The output layer written by hand: logits = h W^T + b."""

    def __init__(self, features, classes, initialise):
        super().__init__()
        self.weight = nn.Parameter(torch.Tensor(classes, features))   # BUG: never initialised
        self.bias = nn.Parameter(torch.zeros(classes))
        if initialise:
            nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))

    def forward(self, h):
        return h @ self.weight.t() + self.bias


def build(fixed):
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)     # uninitialised memory filled with NaN
    try:
        return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), Scorer(128, 10, initialise=fixed))
    finally:
        torch.use_deterministic_algorithms(was)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = build(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
