"""The validation pass calls loss.backward() too (one loss-compute helper serves training
and validation, and only the optimizer step is skipped for validation): the validation
gradients stay in .grad, since the loop zeroes them only after each training step, and the
first training step after every validation adds them all to its own. The model trains on
the validation set, with one outsized step per epoch.

Reported: "loss.backward() inside SimpleLossCompute" -
https://github.com/harvardnlp/annotated-transformer/issues/14 ("loss.backward() is called
even if opt is None, i.e. during validation. Wouldn't this cause gradients to be computed
on the validation set and thus you are training on the validation data?"; a user: "I
verified that this _trains_ the model towards the validation data"). Here a digits MLP
with SGD and momentum, validated every 25 steps on 6 batches held out. Fix: validate under
torch.no_grad() and model.eval(), without backward().
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "loss.backward() inside SimpleLossCompute"
LINK = "https://github.com/harvardnlp/annotated-transformer/issues/14"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 150
EPOCH = 25              # training steps between validations
HELD_OUT = 384          # validation examples (6 batches of 64)


class LossCompute:
    """The report's helper: loss, backward, and a step only when given an optimizer."""

    def __init__(self, criterion, optimizer=None, fixed=False):
        self.criterion, self.optimizer, self.fixed = criterion, optimizer, fixed

    def __call__(self, output, target):
        loss = self.criterion(output, target)
        if self.optimizer is not None or not self.fixed:
            loss.backward()                  # BUG when not fixed: validation too
        if self.optimizer is not None:
            self.optimizer.step()
            self.optimizer.zero_grad()       # zeroed after the step, as in the report
        return loss


def validate(model, x_val, y_val, compute, fixed):
    model.eval()
    with torch.set_grad_enabled(not fixed):
        for start in range(0, len(x_val), 64):
            compute(model(x_val[start:start + 64]), y_val[start:start + 64])
    model.train()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train, x_val, y_val = x[HELD_OUT:], y[HELD_OUT:], x[:HELD_OUT], y[:HELD_OUT]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    train_compute = LossCompute(criterion, optimizer)
    val_compute = LossCompute(criterion, None, fixed)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x_train, y_train, steps)):
            mon.step(train_compute(model(xb), yb))
            if step % EPOCH == EPOCH - 1:
                validate(model, x_val, y_val, val_compute, fixed)
    return mon
