"""A single-label task (exactly one class per sample) trained with BCEWithLogitsLoss on
one-hot targets: each class becomes its own yes/no question, the scores no longer compete,
and the model is free to answer "none" or "several" for a sample that has exactly one
class (its rows of probabilities do not sum to 1, its argmax is a worse guess).

Reported: "Redundancy of computing Loss in CustomTrainer - Bert" -
https://github.com/activetigger/activetigger/issues/1030 ("although it's mentionned that
loss is crossentropy but the loss computed internally is BCEwithlogits"; the maintainer:
"it seems to be a real bug: the default Trainer branch is silently training with BCE, not
CE"). A Hugging Face classifier picks BCE when its labels come as floats. Here the ten
digits, their labels one-hot as floats into BCEWithLogitsLoss.
Fix: CrossEntropyLoss on the class ids (integer labels).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Redundancy of computing Loss in CustomTrainer - Bert"
LINK = "https://github.com/activetigger/activetigger/issues/1030"
EXPECTED = ("SINGLE_LABEL_WITH_BCE",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    if fixed:
        loss_fn = nn.CrossEntropyLoss()
    else:
        y = nn.functional.one_hot(y, 10).float()         # BUG: float labels, one per row,
        loss_fn = nn.BCEWithLogitsLoss()                 # each class a separate yes/no
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
