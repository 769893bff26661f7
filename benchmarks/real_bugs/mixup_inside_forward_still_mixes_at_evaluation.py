"""Mixup built into the network's forward: the model draws lambda and a permutation of the
batch and blends its inputs itself, remembering both so the loop can mix the two label
losses. Nothing in the forward asks whether it is training, so model.eval() changes
nothing: every validation pass and every prediction blends each held-out digit with another
one from the same batch, and the prediction for a digit depends on which other digits were
evaluated with it. Training is fine; what the model says about any given input is not.

Reported: "how to set is_train in resent_mixup when eval on validation set?" -
https://github.com/unsky/mixup/issues/2 ("I think the mixed data and labels are used only in
training process, when eval accuracy the data is not mixed. But in this code, I don't know
where set the "is_train" false"). Here an MLP on the 8x8 digits (64 -> 128 -> 10) whose
forward mixes its batch (lam ~ Beta(1, 1)), Adam 1e-3, batches of 64, the loss
``lam * ce(out, y) + (1 - lam) * ce(out, y[model.perm])``, the held-out digits scored in eval
mode (in batches of 50, as a validation loader gives them) every 50 steps and after the run.
Fix: mix only in training, ``if self.training:`` around the blend (lam = 1, no partner, in
eval mode).

Measured (held-out accuracy on 500 digits, eval mode, in batches of 50, after the run):
0.504 with the bug, 0.950 fixed; seeds + 1000: 0.504 vs 0.942 (seeds + 7: 0.532; + 2000:
0.388: how much a prediction is worth depends on the lambdas the evaluation batches drew).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._reg169 import split

TITLE = "how to set is_train in resent_mixup when eval on validation set?"
LINK = "https://github.com/unsky/mixup/issues/2"
EXPECTED = ("BATCH_MIXING", "VALIDATION_INPUTS_AUGMENTED")
STEPS = 300
ALPHA = 1.0
EVAL_BATCH = 50


class MixupNet(nn.Module):
    def __init__(self, check_mode=False):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
        self.check_mode = check_mode     # the fix: mix in training only
        self.rng = np.random.default_rng(0)
        self.lam, self.perm = 1.0, None

    def forward(self, x):
        if self.training or not self.check_mode:      # BUG (check_mode=False): always mixes
            self.lam = float(self.rng.beta(ALPHA, ALPHA))
            self.perm = torch.randperm(len(x))
            x = self.lam * x + (1 - self.lam) * x[self.perm]
        else:
            self.lam, self.perm = 1.0, None
        return self.body(x)


def evaluate(model, criterion, xh, yh):
    """Held-out loss and accuracy in eval mode, the held-out rows read in batches of 50 as a
    validation loader would give them."""
    model.eval()
    losses, right = [], 0
    with torch.no_grad():
        for start in range(0, len(xh), EVAL_BATCH):
            out = model(xh[start:start + EVAL_BATCH])
            losses.append(criterion(out, yh[start:start + EVAL_BATCH]).item())
            right += (out.argmax(1) == yh[start:start + EVAL_BATCH]).sum().item()
    model.train()
    return float(np.mean(losses)), round(right / len(xh), 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split()
    model = MixupNet(check_mode=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps), 1):
            optimizer.zero_grad()
            out = model(xb)
            loss = (model.lam * criterion(out, yb)
                    + (1 - model.lam) * criterion(out, yb[model.perm]))
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 50 == 0:
                val_loss, _ = evaluate(model, criterion, xh, yh)
            mon.step(loss, val_loss=val_loss)
    mon.held_out_accuracy = evaluate(model, criterion, xh, yh)[1]
    return mon
