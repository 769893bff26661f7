"""Training in two stages - the heads first, then every layer - through a train() method
whose ``epochs`` is the epoch to stop at, counted from the model's own epoch counter,
not the number of epochs to add. The first stage leaves the counter at 10; the second,
asked for ``epochs=5`` of fine-tuning all layers, starts at epoch 10, is already past its
end, and returns at once. No error, no warning, no epoch printed: the run "finishes", and
the model is the heads-only one, its backbone never adapted.

Reported: "Continuous training" - https://github.com/matterport/Mask_RCNN/issues/920
(``model.train(..., epochs=10, layers='heads')`` followed by ``model.train(...,
epochs=5, layers='all')``: "every time when it finished the first step, it did not proceed
to the next training step"; the answer found that the epochs argument "is accumulated" -
the second call must ask for the total, ``epochs=15`` for five more - and the reporter
confirmed it). Here a digits MLP (64-32-10) whose hidden layer was pretrained on digits
0-4 (with its own head, in an earlier cell); stage one trains the new 10-way head for 10
epochs with the hidden layer frozen, stage two unfreezes it at a tenth of the rate (SGD
with momentum). Fix: the second stage asks for epoch 15, five epochs more.

Measured (held-out accuracy on 397 digits): seed 0, 0.84 for the bug against 0.93 for the
fixed twin; seeds shifted by 1000, 0.84 against 0.91. The bug run takes 210 optimizer steps,
the twin 315.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._nb147 import accuracy, split

TITLE = "Continuous training"
LINK = "https://github.com/matterport/Mask_RCNN/issues/920"
EXPECTED = ("TRAINING_STAGE_SKIPPED",)
STEPS_PER_EPOCH = 21            # 1,400 training digits in batches of 64
HEAD_EPOCHS, ALL_EPOCHS = 10, 5
STEPS = (HEAD_EPOCHS + ALL_EPOCHS) * STEPS_PER_EPOCH
LR = 0.05


class Trainer:
    """A model wrapper that, like Mask R-CNN's, keeps the epoch it has reached and trains
    ``train(epochs=E)`` from there up to epoch E."""

    def __init__(self, model, optimizer, data, mon, steps_per_epoch):
        self.model, self.optimizer, self.data, self.mon = model, optimizer, data, mon
        self.steps_per_epoch = steps_per_epoch
        self.epoch = 0
        self.loss_fn = torch.nn.CrossEntropyLoss()

    def train(self, learning_rate, epochs, layers):
        for p in self.model[0].parameters():
            p.requires_grad_(layers == "all")
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate
        for _ in range(self.epoch, epochs):     # nothing when epochs <= self.epoch
            for _ in range(self.steps_per_epoch):
                xb, yb = next(self.data)
                self.optimizer.zero_grad()
                loss = self.loss_fn(self.model(xb), yb)
                loss.backward()
                self.optimizer.step()
                self.mon.step(loss)
            self.epoch += 1


def pretrained_hidden(x, y):
    """The hidden layer after 200 steps on digits 0-4 (the 'pretrained backbone')."""
    keep = y < 5
    source = mlp(hidden=32, outputs=5)
    optimizer = torch.optim.SGD(source.parameters(), lr=0.1, momentum=0.9)
    for xb, yb in batches(x[keep], y[keep], 200, seed=2):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(source(xb), yb).backward()
        optimizer.step()
    return source[0].state_dict()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split(0)
    model = mlp(hidden=32)
    model[0].load_state_dict(pretrained_hidden(x, y))
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    per_epoch = max(1, steps // (HEAD_EPOCHS + ALL_EPOCHS))
    data = batches(x, y, steps)
    with nd.watch(model, optimizer, **watch) as mon:
        trainer = Trainer(model, optimizer, data, mon, per_epoch)
        trainer.train(LR, epochs=HEAD_EPOCHS, layers="heads")
        if fixed:       # the epoch to stop at: five more than the first stage's ten
            trainer.train(LR / 10, epochs=HEAD_EPOCHS + ALL_EPOCHS, layers="all")
        else:           # BUG: "5 more epochs" read as "stop at epoch 5": already past it
            trainer.train(LR / 10, epochs=ALL_EPOCHS, layers="all")
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
