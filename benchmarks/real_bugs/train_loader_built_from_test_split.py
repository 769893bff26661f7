"""The "train" loader is built from the held-out split (``MNIST(..., train=False)``), the same
split the "valid" loader reads: the model trains on the small test split only, never on the
training split, and its validation loss is measured on the rows it trains on - it falls with
the training loss and says nothing about new data.

Reported: "Training on validation in minimal examples" -
https://github.com/catalyst-team/catalyst/issues/909 ("The 'minimal examples' train on the
validation set instead of the training set": the README's loaders were
``"train": DataLoader(MNIST(os.getcwd(), train=False, ...))`` and
``"valid": DataLoader(MNIST(os.getcwd(), train=False, ...))``; fixed by the maintainers).
Here the digits in the MNIST proportions: a training split of 1200 rows and a test split of
200 (the "train=False" split), the example's linear classifier (Adam, lr 0.02, batches of
32, loaders unshuffled as in the example), a validation pass each epoch; the last 397 rows
are in neither split and only score the harm. Fix: build the "train" loader from the
training split.

Measured (300 steps), accuracy on the 397 rows neither split holds: 0.917 vs 0.95
(fixed); seeds + 1000: 0.922 vs 0.972. The bug's last validation loss (0.073, on the rows it
trained on) reads better than the fixed twin's honest 0.183.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._data_splits import (accuracy, held_out_loss, minibatches,
                                               record, shuffled_digits)

TITLE = "Training on validation in minimal examples"
LINK = "https://github.com/catalyst-team/catalyst/issues/909"
EXPECTED = ("VALIDATION_ROWS_IN_TRAINING",)
STEPS = 300
TRAIN_ROWS, TEST_ROWS = 1200, 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = shuffled_digits()
    train_split = x[:TRAIN_ROWS], y[:TRAIN_ROWS]                         # train=True
    test_split = (x[TRAIN_ROWS:TRAIN_ROWS + TEST_ROWS],
                  y[TRAIN_ROWS:TRAIN_ROWS + TEST_ROWS])                  # train=False
    fresh_x, fresh_y = x[TRAIN_ROWS + TEST_ROWS:], y[TRAIN_ROWS + TEST_ROWS:]
    loaders = {
        # BUG (unfixed): the "train" loader reads the held-out split, like the "valid" one
        "train": train_split if fixed else test_split,
        "valid": test_split,
    }
    model = nn.Linear(64, 10)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    train_x, train_y = loaders["train"]
    valid_x, valid_y = loaders["valid"]
    done, vals = 0, []
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            epoch = minibatches(len(train_x), 32, shuffle=False)
            for i, index in enumerate(epoch):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(train_x[index]), train_y[index])
                loss.backward()
                optimizer.step()
                done += 1
                val = None
                if i == len(epoch) - 1 or done == steps:
                    val = held_out_loss(model, valid_x, valid_y)
                    vals.append(round(val, 3))
                mon.step(loss, val_loss=val)
                if done == steps:
                    break
    mon.extra = {"val_losses": vals[-3:],
                 "fresh_accuracy": record(__name__, accuracy(model, fresh_x, fresh_y))}
    return mon
