"""A hand-written dropout layer that mixes the two conventions: in training it is
"inverted" dropout (kept units divided by the keep probability, so the expected
activation is unchanged), and at prediction it ALSO multiplies by the keep probability,
the compensation the original, non-inverted dropout needs. Every dropout layer therefore
shrinks its activations by keep_prob at prediction time only: with p = 0.5 after both
hidden layers the logits the model was trained to give are roughly quartered. Training
is untouched (its loss and accuracy look normal); the predictions' ranking mostly
survives, but their probabilities are squashed towards uniform.

Reported: "the dropout use inverted version. but in predict stage, it still scale the
output" - https://github.com/Angel-ML/mlcore/issues/5 (mlcore's dropout transfer function
scales by 1/keep in training and still scales its output in the predict stage; with
inverted dropout the predict stage must pass activations through unchanged). Here an MLP
with two hidden layers of 256 units and dropout p = 0.5 after each, on the 8x8 digits
(benchmarks/real_bugs/_reg169.py), Adam. Fix: the identity at prediction.

Measured (on 500 held-out digits with the model in eval mode: negative log-likelihood,
accuracy, and the mean probability given to the predicted class): seed 0: NLL 0.466 for
the bug against 0.040 for the fixed twin (confidence 0.65 against 0.98; accuracy 0.984
against 0.988); seeds shifted by 1000: NLL 0.445 against 0.086 (0.67 against 0.98;
accuracy 0.976 for both).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._reg169 import split

TITLE = "the dropout use inverted version. but in predict stage, it still scale the output"
LINK = "https://github.com/Angel-ML/mlcore/issues/5"
EXPECTED = ("DROPOUT_SCALED_TWICE",)
STEPS = 800
P = 0.5


class Dropout(nn.Module):
    def __init__(self, p, fixed):
        super().__init__()
        self.p, self.fixed = p, fixed

    def forward(self, x):
        keep = 1.0 - self.p
        if self.training:                   # inverted dropout: E[output] = x
            return x * (torch.rand_like(x) < keep).to(x.dtype) / keep
        if self.fixed:
            return x
        return x * keep                     # BUG: the non-inverted rule's test scaling too


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), Dropout(P, fixed),
                          nn.Linear(256, 256), nn.ReLU(), Dropout(P, fixed),
                          nn.Linear(256, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 64):
            loss = nn.functional.cross_entropy(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        logits = model(x_held)
    mon.held_out_nll = round(nn.functional.cross_entropy(logits, y_held).item(), 3)
    mon.held_out_accuracy = round((logits.argmax(1) == y_held).float().mean().item(), 3)
    mon.mean_confidence = round(logits.softmax(1).max(1).values.mean().item(), 3)
    return mon
