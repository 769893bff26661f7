"""A Keras model (embeddings, SpatialDropout1D, BatchNormalization, Dense + Dropout,
Dense(2, softmax)) ported to PyTorch from a book chapter: Keras' ``predict()`` switches to
inference mode by itself, the port's ``predict()`` never calls ``model.eval()``, so the
held-out predictions run with dropout active (the ported ``nn.Dropout1d`` on 2-D rows drops
whole samples) and BatchNorm normalising each prediction batch with its own statistics.

Reported: "keras model translation to pytorch doesn't perform as expected" -
https://github.com/abhishekkrthakur/approachingalmost/issues/76 (the port of the book's
Keras embedding model stalls at ~0.72 AUC where Keras reaches ~0.83 and plain logistic
regression 0.78; "Is it possible that default values in pytorch are different from keras?").
The linked code (emepetres/cat-in-the-dat-ii, src/model_dispatcher.py) trains with BCELoss
on the softmax's second column and predicts in train mode. Here the digits 0-4 vs 5-9 on the
same layer stack (Linear 300, ReLU, Dropout1d 0.3, BatchNorm1d, twice; Linear 2, Softmax),
Adam, batches of 64; the held-out rows are predicted every 50 steps (their loss reported as
``val_loss``) and at the end. Fix: ``model.eval()`` around the predictions.

Measured (held-out ROC AUC of the final predictions, 360 digits, 150 steps): 0.77 vs 0.98;
seeds + 1000: 0.79 vs 0.97.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._keras_ports import digits_split

TITLE = "keras model translation to pytorch doesn't perform as expected"
LINK = "https://github.com/abhishekkrthakur/approachingalmost/issues/76"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 150
VALIDATE_EVERY = 50


def build():
    return nn.Sequential(
        nn.Linear(64, 300), nn.ReLU(), nn.Dropout1d(0.3), nn.BatchNorm1d(300),
        nn.Linear(300, 300), nn.ReLU(), nn.Dropout1d(0.3), nn.BatchNorm1d(300),
        nn.Linear(300, 2), nn.Softmax(dim=1))


def predict(model, x, fixed):
    if fixed:
        model.eval()
    with torch.no_grad():
        out = model(x)[:, 1]                 # BUG when not fixed: still in train mode
    model.train()
    return out


def held_out_auc(model, fixed):
    _, _, x_test, y_test = digits_split()
    score = predict(model, x_test, fixed)
    positive = (y_test >= 5)
    pos, neg = score[positive], score[~positive]
    return (pos[:, None] > neg[None, :]).float().mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    y, y_test = (y >= 5).float(), (y_test >= 5).float()
    model = build()
    optimizer = torch.optim.Adam(model.parameters())
    criterion = nn.BCELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps), 1):
            optimizer.zero_grad()
            loss = criterion(model(xb)[:, 1], yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % VALIDATE_EVERY == 0:
                val_loss = criterion(predict(model, x_test, fixed), y_test)
            mon.step(loss, val_loss=val_loss)
    return mon
