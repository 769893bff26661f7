"""The training and the validation crop datasets each number the classes they find in their
own folders (ImageFolder-style: sorted names -> 0, 1, 2, ...). The validation folders lack
one class (no crop of it among the validation images), so every class sorted after it gets
an index one lower in validation than in training: the model is scored against labels that
name the neighbouring class. Training is unaffected; the validation loss and accuracy say
the model fails on most classes.

Reported: "Ensure train and val dataset have the same index mapping for CropModel" -
https://github.com/weecology/DeepForest/pull/1147 ("I see high Accuracy, but low per-class
accuracy. I believe that there is an edge case that if the val and train dataset don't have
the same length, there is an off-by-one error. This PR ensures that the CropModel index
order is the same regardless of whether train or validation datasets have the exact same
classes"; merged). Here 8x8 digits standing for ten tree species, a small CNN trained with
Adam on the training crops, and a validation set in which one species has no crop; the
validation loss is passed to the monitor every epoch. Fix: number the validation classes
with the training set's class-to-index mapping.

Measured harm (validation accuracy, as the pipeline computes it, on the 369 validation crops
after 300 steps): 0.21 vs 0.94 with the fix; seeds + 1000 (360 crops): 0.22 vs 0.95.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_multiclass import (held_out_logits, predicted_accuracy,
                                                       record, split_digits)
from benchmarks.real_bugs._common import batches

TITLE = "Ensure train and val dataset have the same index mapping for CropModel"
LINK = "https://github.com/weecology/DeepForest/pull/1147"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
STEPS = 300
EPOCH = 21            # batches of 64 in the training crops
SPECIES = ["Alder", "Birch", "Cedar", "Douglas fir", "Elm", "Fir", "Hemlock", "Juniper",
           "Maple", "Oak"]      # the folder names, digit d standing for SPECIES[d]
ABSENT_FROM_VAL = "Cedar"


def class_to_idx(folders):
    """What an ImageFolder-style dataset builds from the class folders it finds."""
    return {name: i for i, name in enumerate(sorted(folders))}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_val, y_val = split_digits(images=True)
    names_val = [SPECIES[int(d)] for d in y_val]
    keep = torch.tensor([n != ABSENT_FROM_VAL for n in names_val])
    x_val, names_val = x_val[keep], [n for n in names_val if n != ABSENT_FROM_VAL]
    train_index = class_to_idx({SPECIES[int(d)] for d in y_train})
    val_index = train_index if fixed else class_to_idx(set(names_val))   # BUG: own classes
    y_val = torch.tensor([val_index[n] for n in names_val])
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(32 * 2 * 2, 64), nn.ReLU(),
                          nn.Linear(64, len(train_index)))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps,
                                                seed=int(torch.randint(10**6, ()))), 1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EPOCH == 0 or done == steps:
                val_loss = F.cross_entropy(held_out_logits(model, x_val), y_val)
            mon.step(loss, val_loss=val_loss)
    record(__name__, predicted_accuracy(held_out_logits(model, x_val).argmax(1), y_val))
    return mon
