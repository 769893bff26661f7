"""The best model of the epoch loop is kept as ``best_model = model``: a second name for the
same module, which every later optimizer step goes on changing. When training ends the loop
"restores" ``model = best_model`` and tests it, but that is the last epoch's model, not the
one with the best validation accuracy - on a small noisy training set, the overfitted one.

Reported: "Shallow copy when finding best_model" - https://github.com/zhangj111/astnn/issues/8
("you're not performing a deep copy when you copy `model` to `best_model` and vice versa
... both pointing at the same memory location and both get updated during optimization ...
you're never going to return to an earlier model state"; the author: "Yes you are right.
Maybe I should use torch.save instead"). Here a wide digits MLP trains with Adam on 300
images, a third of their labels wrong, validating every epoch (10 steps) on 400 clean rows;
the held-out test set is another 600 rows. Fix: ``best_model = copy.deepcopy(model)`` (or
save its state_dict copy) when the validation accuracy improves.

Measured (test accuracy of the model returned as the best): seed 0: 0.75 vs 0.88; seeds +
1000: 0.66 vs 0.85.
"""
import copy

import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs._kfold_search import evaluate

TITLE = "Shallow copy when finding best_model"
LINK = "https://github.com/zhangj111/astnn/issues/8"
EXPECTED = ("BEST_CHECKPOINT_NOT_BEST",)
STEPS = 300
TRAIN, VAL, BATCH = 300, 400, 30
NOISE = 1 / 3
LR = 3e-3


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    tr, va, te = order[:TRAIN], order[TRAIN:TRAIN + VAL], order[TRAIN + VAL:TRAIN + VAL + 600]
    y_train = y[tr].clone()
    flip = torch.rand(TRAIN) < NOISE
    y_train[flip] = torch.randint(0, 10, (int(flip.sum()),))
    x_train = x[tr]
    model = nn.Sequential(nn.Linear(64, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    best_acc, best_model = -1.0, None
    with nd.watch(model, optimizer, **watch) as mon:
        done = 0
        while done < steps:
            perm = torch.randperm(TRAIN)
            for start in range(0, TRAIN, BATCH):
                index = perm[start:start + BATCH]
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x_train[index]), y_train[index])
                loss.backward()
                optimizer.step()
                done += 1
                if start + BATCH < TRAIN and done < steps:
                    mon.step(loss)
                    continue
                val_loss, val_acc = evaluate(model, x[va], y[va])    # end of the epoch
                mon.step(loss, val_loss=val_loss)
                if val_acc > best_acc:
                    best_acc = val_acc
                    # BUG when not fixed: another name for the live model, not a copy
                    best_model = copy.deepcopy(model) if fixed else model
                if done == steps:
                    break
    model = best_model                                 # "the best model", tested below
    mon.fold_score = evaluate(model, x[te], y[te])
    return mon
