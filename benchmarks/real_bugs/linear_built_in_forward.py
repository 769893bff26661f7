"""A Linear layer created inside forward(): a new random layer on every call, never trained.

Reported: "If create the Linear() casually, it won't be trained during training." -
https://github.com/graykode/nlp-tutorial/issues/29 (the Transformer's output projection
`nn.Linear(n_heads * d_v, d_model)(context)` inside forward). Each step draws fresh
random weights for that projection, so what comes after it cannot learn a stable
mapping. Fix: build the layer in __init__.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "If create the Linear() casually, it won't be trained during training."
LINK = "https://github.com/graykode/nlp-tutorial/issues/29"
EXPECTED = ("UNREGISTERED_PARAMETERS",)
STEPS = 150


class Net(nn.Module):
    def __init__(self, fixed=False):
        super().__init__()
        self.fixed = fixed
        self.encoder = nn.Linear(64, 64)
        if fixed:
            self.projection = nn.Linear(64, 64)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        context = torch.relu(self.encoder(x))
        if self.fixed:
            context = self.projection(context)
        else:
            context = nn.Linear(64, 64)(context)     # BUG: a new, untrained layer every call
        return self.head(torch.relu(context))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = Net(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
