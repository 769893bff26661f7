"""A contrastive (CLIP-style) model whose validation accuracy calls ``torch.argmax`` on the
(batch x batch) similarity matrix without ``dim``: it returns ONE index into the flattened
matrix, compared against the targets ``arange(batch)`` it matches at most one of them, and
only when the largest logit of the whole matrix sits in the first row. The "accuracy" is
0 (or 0.01) whatever the model does, so the best-checkpoint logic that keeps the weights
with the highest validation accuracy keeps those of the first epoch and the run ends by
restoring a model that had barely started learning. Training itself is untouched, nothing
errors.

Reported: "About the accuracy computation." - https://github.com/Zasder3/train-CLIP/issues/6
(train-CLIP's wrapper computed ``(torch.argmax(image_logits) == ground_truth).sum()``; the
reporter: argmax returns the index of the maximum across all dimensions, not per row; the
author confirmed the bug and fixed it with a per-row argmax). Here two small encoders, one
for the left half of each 8x8 digit and one for the right half, trained with the symmetric
contrastive loss (learned temperature) on batches of 64, the matching accuracy over 100-row
validation batches after each epoch of 15 steps, the weights with the best validation
accuracy restored at the end. Fix: ``argmax(dim=1)``.

Measured (half-to-half matching accuracy in 100-row batches on 300 test digits, computed
correctly, of the restored model; chance 0.01): seed 0: 0.03 with the bug (the first
epoch's weights) against 0.21 for the fixed twin; seeds shifted by 1000: 0.03 against 0.20.
"""
import copy
import math

import torch
from torch import nn
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification, index_batches

TITLE = "About the accuracy computation."
LINK = "https://github.com/Zasder3/train-CLIP/issues/6"
EXPECTED = ("METRIC_ARGMAX_WRONG_AXIS",)
STEPS = 450
EPOCH = 15
VAL, TEST = 300, 300


class TwoHalves(nn.Module):
    def __init__(self, width=64, dim=32):
        super().__init__()
        self.left = nn.Sequential(nn.Linear(32, width), nn.ReLU(), nn.Linear(width, dim))
        self.right = nn.Sequential(nn.Linear(32, width), nn.ReLU(), nn.Linear(width, dim))
        self.log_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def forward(self, x):
        image = x.view(-1, 8, 8)
        a = F.normalize(self.left(image[:, :, :4].reshape(-1, 32)), dim=1)
        b = F.normalize(self.right(image[:, :, 4:].reshape(-1, 32)), dim=1)
        return self.log_scale.exp() * a @ b.t()


def matching_accuracy(model, x, per_row):
    model.eval()
    hits = 0
    with torch.no_grad():
        for start in range(0, len(x), 100):
            logits = model(x[start:start + 100])
            truth = torch.arange(len(logits))
            pick = logits.argmax(dim=1) if per_row else torch.argmax(logits)   # BUG: no dim
            hits += (pick == truth).sum().item()
    model.train()
    return hits / len(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification()
    x_train, x_val, x_test = x[:-VAL - TEST], x[-VAL - TEST:-TEST], x[-TEST:]
    model = TwoHalves()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    best, best_state = -1.0, None
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(len(x_train), steps, 64), start=1):
            logits = model(x_train[index])
            truth = torch.arange(len(index))
            loss = (F.cross_entropy(logits, truth) + F.cross_entropy(logits.t(), truth)) / 2
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % EPOCH == 0:
                accuracy = matching_accuracy(model, x_val, per_row=fixed)
                if accuracy > best:
                    best, best_state = accuracy, copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    mon.held_out_matching_accuracy = matching_accuracy(model, x_test, per_row=True)
    return mon
