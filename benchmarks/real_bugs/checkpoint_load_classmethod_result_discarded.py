"""Weights "loaded" with ``model.load_from_checkpoint(path)`` called on an instance: in
PyTorch Lightning ``load_from_checkpoint`` is a classmethod that builds a NEW model, loads the
checkpoint into it and returns it. Called on an instance without using the result, the new
model is thrown away and the instance keeps its fresh random weights; training then
"resumes" from scratch, at the small rate chosen for continuing from a trained model.

Reported: "Loading model" - https://github.com/Lightning-AI/pytorch-lightning/issues/4789
(``model = LitModel(); model.load_from_checkpoint(checkpoint_path=...)`` "doesn't update the
weights in the model"; the maintainer: it is a class constructor, like ``pandas.read_csv``,
the proper use is ``model = LitModel.load_from_checkpoint(...)``; the same mistake is behind
Lightning #17356 and PR #11467 "Have seen a lot of users using it incorrectly"). Here a
digits MLP wrapped in a small module with the same classmethod is trained for 300 steps,
its state dict is the checkpoint, and a new run continues from it for 150 steps at Adam
1e-4 (a tenth of the first run's rate), as a resumed or fine-tuning run does.

Measured (150 steps, 297 held-out digits): the bug's first loss is 2.33 (chance, ln 10 =
2.30), its last 10 steps average 2.12 and its held-out accuracy after the continued run is
0.59; the fixed twin starts at a loss of 0.22, ends at 0.15 and reaches 0.88. Fix: ``model = Classifier.load_from_checkpoint(checkpoint)`` (use
the returned model), or ``model.load_state_dict(checkpoint)`` on the instance.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Loading model"
LINK = "https://github.com/Lightning-AI/pytorch-lightning/issues/4789"
EXPECTED = ("PRETRAINED_WEIGHTS_NOT_LOADED",)
STEPS = 150
PRETRAIN_STEPS = 300
HELD_OUT = 297


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = mlp(64, 128, 10)

    def forward(self, x):
        return self.net(x)

    @classmethod
    def load_from_checkpoint(cls, checkpoint):
        """As Lightning's: a new model with the checkpoint's weights, returned."""
        model = cls()
        model.load_state_dict(checkpoint)
        return model


def checkpoint_of_first_run(x, y):
    model = Classifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for xb, yb in batches(x, y, PRETRAIN_STEPS, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return {k: v.clone() for k, v in model.state_dict().items()}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    checkpoint = checkpoint_of_first_run(x_train, y_train)
    model = Classifier()
    if fixed:
        model = Classifier.load_from_checkpoint(checkpoint)
    else:
        model.load_from_checkpoint(checkpoint)      # BUG: the loaded model is discarded
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x_train, y_train, steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
