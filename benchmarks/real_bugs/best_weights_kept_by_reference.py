"""The 'best' weights are kept as ``model.state_dict()`` itself, not a copy: the dict holds
the model's own tensors, which every later optimizer step changes in place. The weights
restored at the end as the best are the last epoch's, and the overfitted model is returned.

Reported: "Fixed deep copying model.state_dict()" -
https://github.com/pytorch/tutorials/pull/188 (the transfer-learning tutorial's
``best_model_wts = model.state_dict()``: "Otherwise best_model_wts changes always to last
epoch's state"; merged). Here a wide digits MLP trains on 200 images at a high rate, so its
validation loss bottoms out early and rises while it overfits; the loop keeps the weights of
the epoch with the lowest validation loss and loads them back at the end, as the tutorial's
``train_model`` does. Fix: ``best_model_wts = copy.deepcopy(model.state_dict())``.

How watch finds it: the loss curve is that of any overfitting run (the fixed twin's is the
same curve); the bug is only in what the final load restores. A pre-hook on the watched
model's load_state_dict compares each tensor given with the model's own: all of them are
the same storage, so the load restores nothing (BEST_WEIGHTS_ALIAS_LIVE_WEIGHTS; a
deep-copied dict, a file read back or another model's weights are other storage).
"""
import copy

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "Fixed deep copying model.state_dict()"
LINK = "https://github.com/pytorch/tutorials/pull/188"
EXPECTED = ("BEST_WEIGHTS_ALIAS_LIVE_WEIGHTS",)
STEPS = 150
EPOCH = 5            # batches per epoch (200 training images, batches of 40)
TRAIN, BATCH = 200, 40
LR = 1e-2


def validation_loss(model, loss_fn, x, y):
    model.eval()
    with torch.no_grad():
        value = loss_fn(model(x), y).item()
    model.train()
    return value


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:TRAIN], y[:TRAIN]
    x_val, y_val = x[-500:], y[-500:]
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(0)
    best_loss, best_weights = float("inf"), None
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps // EPOCH):
            order = torch.randperm(TRAIN, generator=generator)
            for start in range(0, TRAIN, BATCH):
                index = order[start:start + BATCH]
                optimizer.zero_grad()
                loss = loss_fn(model(x_train[index]), y_train[index])
                loss.backward()
                optimizer.step()
                mon.step(loss)
            epoch_loss = validation_loss(model, loss_fn, x_val, y_val)
            if epoch_loss < best_loss:
                best_loss = epoch_loss
                if fixed:
                    best_weights = copy.deepcopy(model.state_dict())
                else:
                    best_weights = model.state_dict()    # BUG: the live tensors, not a copy
        model.load_state_dict(best_weights)              # "the best model", as returned
    return mon
