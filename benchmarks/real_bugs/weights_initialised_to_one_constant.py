"""Every linear layer's weights are initialised to the same value (``constant_(w, 0.5)``,
applied with ``model.apply``). All hidden units of a layer then compute the same function of
the input, receive the same gradient and get the same update: they stay copies of each
other for ever (the symmetry is never broken), so the hidden layer is worth one unit and the
classifier can separate the classes only along one direction.

Reported: "Why doesn't backpropagation work when you initialize the weights the same value?"
- https://stats.stackexchange.com/questions/45087 (all weights 0.5; the answer:
"Symmetry breaking. If all weights start with equal values and if the solution requires that
unequal weights be developed, the system can never learn ... all hidden units connected
directly to the output units will get identical error signals"; start from small random
weights). Here: a 64-32-10 sigmoid MLP on the 8x8 digits, SGD with momentum. Measured (mean
loss on the last 20 batches after 200 steps): bug 2.427, fixed 0.244 (chance 2.303).
Fix: a random initialisation (``nn.init.xavier_uniform_``).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Why doesn't backpropagation work when you initialize the weights the same value?"
LINK = "https://stats.stackexchange.com/questions/45087"
EXPECTED = ("SYMMETRIC_INIT",)
STEPS = 200


def init_weights(module, fixed):
    if isinstance(module, nn.Linear):
        if fixed:
            nn.init.xavier_uniform_(module.weight)
        else:
            nn.init.constant_(module.weight, 0.5)        # BUG: every weight the same value
        nn.init.zeros_(module.bias)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 32), nn.Sigmoid(), nn.Linear(32, 10))
    model.apply(lambda module: init_weights(module, fixed))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
