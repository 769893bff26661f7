"""A classification loss written by hand as the mean softmax probability of the right class,
without the minus sign: minimising it pushes the probability of every sample's own label
DOWN. The loss falls smoothly towards 0, as a loss should, while the model learns to give
each image any class but its own: training accuracy ends below chance.

Reported: "Update 05_pet_breeds.ipynb" - https://github.com/fastai/fastbook/pull/478 (the
book's hand-written loss was ``sm_acts[idx, targ].mean()``: "There should be an extra
negative sign before sm_acts[idx, targ] to make it the correct loss ... the higher
sm_acts[0,0] is, the lower the loss is"; merged by the author, "Many thanks"). Here the
digits with a small MLP and Adam, the loss picking each row's softmax probability of its
label. Fix: the loss the PR says was meant ("CrossEntropyLoss has an extra log on top of
-sm_acts[idx, targ] ... take the log, then negate"): minus the log-probability of the label,
``-log_softmax(logits)[idx, targ].mean()`` (``F.cross_entropy``). The minus sign alone
leaves minus a probability, a weak loss of its own (NLL_ON_PROBABILITIES; the book adds the
log in its next section).

Measured (150 steps, 297 held-out digits): the bug's loss falls towards 0 while its
held-out accuracy ends at 0.007 (the model avoids every image's own label); the fixed
twin's accuracy 0.87.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Update 05_pet_breeds.ipynb"
LINK = "https://github.com/fastai/fastbook/pull/478"
EXPECTED = ("LOSS_SIGN_FLIPPED",)
STEPS = 150
HELD_OUT = 297


def softmax_loss(fixed):
    def loss(logits, targets):
        sm_acts = logits.softmax(dim=1)
        idx = torch.arange(len(targets))
        if fixed:
            return -logits.log_softmax(dim=1)[idx, targets].mean()
        return sm_acts[idx, targets].mean()          # BUG: no minus sign (and no log)
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, softmax_loss(fixed),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
