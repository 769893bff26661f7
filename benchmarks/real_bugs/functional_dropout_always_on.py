"""``F.dropout2d(out, 0.1, training=True)`` in forward: the functional dropout does not
follow ``model.eval()``, so a trained network still drops features when it is evaluated
and gives a different answer on every run for the same input.

Reported: "Functional Dropout in evaluation mode" -
https://github.com/Coderx7/SimpleNet/issues/2 ("a trained network in the evaluation mode
will give a different output on every run for the same example because of the functional
dropout ... with the variable training set to True"; the author: "I completely missed
that. it should be fixed now"). Here a small conv net on the digits with the same
functional dropout after its global max pooling. Fix: ``training=self.training`` (or an
nn.Dropout2d module built in __init__): the fixed twin is a subclass whose forward passes
it (watch reads each class's forward once, so the twins need forwards of their own).
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Functional Dropout in evaluation mode"
LINK = "https://github.com/Coderx7/SimpleNet/issues/2"
EXPECTED = ("DROPOUT_IGNORES_EVAL",)
STEPS = 150


class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU())
        self.classifier = nn.Linear(32, 10)

    def pooled(self, x):
        out = self.features(x)
        return F.max_pool2d(out, kernel_size=out.size()[2:])

    def forward(self, x):
        out = F.dropout2d(self.pooled(x), 0.1, training=True)   # BUG: dropout also in eval()
        return self.classifier(out.view(out.size(0), -1))


class FixedSimpleNet(SimpleNet):
    def forward(self, x):
        out = F.dropout2d(self.pooled(x), 0.1, training=self.training)
        return self.classifier(out.view(out.size(0), -1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = FixedSimpleNet() if fixed else SimpleNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
