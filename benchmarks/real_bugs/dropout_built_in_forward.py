"""A Dropout module built inside forward(): model.eval() cannot switch it off.

Reported: "Droupout shouldn't be here" -
https://github.com/ewrfcas/face_attribute_classification_pytorch/issues/1 ("dropout used
here can't be deactivated when use model.eval()"). Training looks normal; evaluation
keeps dropping half of the features, so test predictions are noisy and worse than they
should be. Fix: create the Dropout in __init__ so that train()/eval() reach it.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Droupout shouldn't be here"
LINK = "https://github.com/ewrfcas/face_attribute_classification_pytorch/issues/1"
EXPECTED = ("UNREGISTERED_PARAMETERS",)
STEPS = 150


class Net(nn.Module):
    def __init__(self, fixed=False):
        super().__init__()
        self.fixed = fixed
        self.features = nn.Sequential(nn.Linear(64, 128), nn.ReLU())
        if fixed:
            self.dropout = nn.Dropout(0.5)
        self.classifier = nn.Linear(128, 10)

    def forward(self, x):
        h = self.features(x)
        h = self.dropout(h) if self.fixed else nn.Dropout(0.5)(h)   # BUG: eval() never reaches it
        return self.classifier(h)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = Net(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
