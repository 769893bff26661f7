"""A classifier head built with the hidden size where the number of classes goes: the model
scores 64 "classes" for a 10-class problem. Cross-entropy trains without a complaint (every
target id is below 64); the 54 extra columns only take probability away until the model
learns to push them down, and every prediction is made over classes that do not exist.

Reported: "Classifier ouputs `hidden_size` values" -
https://github.com/macabdul9/CASA-Dialogue-Act-Classifier/issues/3 ("the last layer ...
should output as many values as classes there are ... However, the constructor of the
model seems to pass a number of classes that's equal to the hidden_size parameter"; the
author: "It was a typo and I have fixed it"). Here a digits MLP whose config passes
``hidden`` (64) as its number of classes. Fix: ``num_classes=10``.
"""
import torch

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Classifier ouputs `hidden_size` values"
LINK = "https://github.com/macabdul9/CASA-Dialogue-Act-Classifier/issues/3"
EXPECTED = ("OUTPUT_WIDER_THAN_CLASSES",)
STEPS = 150
CONFIG = {"hidden_size": 64, "num_classes": 10}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    classes = CONFIG["num_classes"] if fixed else CONFIG["hidden_size"]   # BUG: a typo
    model = mlp(hidden=CONFIG["hidden_size"], outputs=classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
