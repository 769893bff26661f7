"""K-fold cross-validation that restores the model's initial weights before every fold but
keeps the optimizer and learning-rate scheduler made once for the first fold: each new fold
starts from fresh weights with the Adam moments of the fold before and the learning rate
where the last fold's decay left it. From the second fold on the rate has decayed to a few
percent of its start and less, so those folds barely train and the cross-validated accuracy
says the model is much worse than it is.

Reported: "KFold cross-validation example: optimizer and scheduler are not reset across
folds" - https://github.com/Lightning-AI/pytorch-lightning/issues/12409 (in the k-fold loop
example, the model state is restored for each fold but ``setup_optimizers`` runs while the
trainer is still in its testing state, so "the optimizer and scheduler are never reset
across different folds"; seen with ``LearningRateMonitor``; labelled a bug). Here 5-fold
cross-validation of a digits MLP: the initial ``state_dict`` loaded back before each fold
(as the example does), Adam (lr 0.01) with a learning rate halved every epoch (about 4.5
epochs, 100 steps, per fold); the last fold is the one watched. Fix: build the optimizer and
scheduler anew for every fold.

Measured (100 steps per fold), mean held-out accuracy over the five folds: 0.287 vs 0.937
(fixed); seeds + 1000: 0.287 vs 0.927 (the bug's folds: 0.944, 0.319, then 0.05 to 0.11).
"""
import copy

import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._data_splits import accuracy, record, shuffled_digits

TITLE = ("KFold cross-validation example: optimizer and scheduler are not reset across "
         "folds")
LINK = "https://github.com/Lightning-AI/pytorch-lightning/issues/12409"
EXPECTED = ("OPTIMIZER_STATE_FROM_EARLIER_RUN",)
STEPS = 100
FOLDS = 5
BATCH = 64


def configure_optimizers(model):
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    return optimizer, torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)


def train_fold(model, optimizer, scheduler, x, y, train_index, steps, mon=None):
    """``steps`` batches of 64 over the fold's training rows, reshuffled every epoch; the
    scheduler steps once per epoch (its decay per epoch, as Lightning's default interval)."""
    done = 0
    while done < steps:
        order = train_index[torch.randperm(len(train_index))]
        for start in range(0, len(order) - BATCH + 1, BATCH):
            index = order[start:start + BATCH]
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            done += 1
            if mon is not None:
                mon.step(loss)
            if done == steps:
                break
        scheduler.step()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = shuffled_digits()
    parts = torch.arange(len(x)).chunk(FOLDS)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    initial_state = copy.deepcopy(model.state_dict())
    # BUG (unfixed): one optimizer and one scheduler, made for the first fold, for all folds
    optimizer, scheduler = configure_optimizers(model)
    scores = []
    for k in range(FOLDS):
        train_index = torch.cat(parts[:k] + parts[k + 1:])
        model.load_state_dict(initial_state)           # each fold starts from fresh weights
        if fixed and k > 0:
            optimizer, scheduler = configure_optimizers(model)
        if k < FOLDS - 1:
            train_fold(model, optimizer, scheduler, x, y, train_index, steps)
        else:                                          # the last fold is the one watched
            with nd.watch(model, optimizer, **watch) as mon:
                train_fold(model, optimizer, scheduler, x, y, train_index, steps, mon=mon)
        scores.append(accuracy(model, x[parts[k]], y[parts[k]]))
    mon.extra = {"fold_accuracies": scores,
                 "cv_accuracy": record(__name__, round(sum(scores) / FOLDS, 3))}
    return mon
