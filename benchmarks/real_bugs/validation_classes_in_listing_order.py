"""The dataset class numbers its classes in the order the folder listing returns them
(os.listdir, no sort): the training and the test folders list the same class names in
different orders, so a class is one index in training and another in validation. Training
goes well; the validation loss never gets better than the untrained model's, because the
model is scored against labels that name other classes.

Reported: "Validation accuracy lower than expected." -
https://github.com/uzh-rpg/rpg_event_representation_learning/issues/2 ("I looked into some
data, and realized that the train/test label mapping are inconsistent. So I modify this
line to (basically fix the label mapping to alphabetically) self.classes =
sorted(listdir(root)) which solves the problem"). Here the digits split 80/20 into a
training and a validation folder whose listings name the ten classes in different orders;
a digits MLP trains with Adam and the validation loss is passed to the monitor after every
epoch. Fix: sort the class names before numbering them.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Validation accuracy lower than expected."
LINK = "https://github.com/uzh-rpg/rpg_event_representation_learning/issues/2"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
STEPS = 150
EPOCH = 22           # batches of 64 in the training split
# the class folders as two directory listings return them (unsorted, as listdir may)
TRAIN_LISTING = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
VAL_LISTING = ["3", "8", "0", "5", "9", "1", "6", "2", "7", "4"]


def class_index(listing, fixed):
    """Class name -> index, as the dataset class numbers the folders it lists."""
    names = sorted(listing) if fixed else listing   # BUG: numbered in listing order
    return {name: i for i, name in enumerate(names)}


def labelled(y, listing, fixed):
    """The labels a dataset class built on ``listing`` gives the samples of classes ``y``."""
    index = class_index(listing, fixed)
    return torch.tensor([index[str(int(c))] for c in y])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    cut = int(0.8 * len(x))
    train, val = order[:cut], order[cut:]
    x_train, y_train = x[train], labelled(y[train], TRAIN_LISTING, fixed)
    x_val, y_val = x[val], labelled(y[val], VAL_LISTING, fixed)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EPOCH == 0 or done == steps:
                model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_val), y_val)
                model.train()
            mon.step(loss, val_loss=val_loss)
    return mon
