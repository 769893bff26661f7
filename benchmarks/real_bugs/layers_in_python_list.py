"""Hidden layers kept in a plain Python list: the model does not register them.

Reported: "Module: parameters are not included if the module is initialized in a list" -
https://github.com/pytorch/pytorch/issues/715. model.parameters() (and so the optimizer)
never sees the hidden layers: they stay at their random initialisation, only the
registered output layer learns. Fix: nn.ModuleList.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Module: parameters are not included if the module is initialized in a list"
LINK = "https://github.com/pytorch/pytorch/issues/715"
EXPECTED = ("UNREGISTERED_PARAMETERS",)
STEPS = 150


class Net(nn.Module):
    def __init__(self, n_layers=2, fixed=False):
        super().__init__()
        hids = [nn.Linear(64, 64)] + [nn.Linear(64, 64) for _ in range(n_layers - 1)]
        # BUG when not fixed: a plain list hides the layers from parameters() and modules()
        self.hids = nn.ModuleList(hids) if fixed else hids
        self.classifier = nn.Linear(64, 10)

    def forward(self, x):
        for layer in self.hids:
            x = torch.relu(layer(x))
        return self.classifier(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = Net(fixed=fixed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
