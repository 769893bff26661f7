"""A model's ``forward`` ends with ``if return_tensor: outputs = outputs.data``, a leftover
that hands back the values without their graph. Fine-tuning it then fails with "element 0
of tensors does not require grad and does not have a grad_fn", and the error is silenced by
wrapping the loss as ``Variable(loss, requires_grad=True)``: backward now runs, into a new
leaf that leads nowhere, no parameter ever receives a gradient, and the loss stays where it
started, epoch after epoch.

Reported: "loss don't go down when finetune and about requires_grad option in backward()" -
https://github.com/huggingface/torchMoji/issues/21 (the validation loss identical every
epoch after adding ``loss = Variable(loss, requires_grad=True)``; a later comment found the
root of the error in ``model_def``: "``if return_tensor: outputs = outputs.data``, I removed
those lines of code then the loss starts improving when I finetuned the model"). Here the
report's "last" fine-tuning: a pretrained digit encoder kept frozen and a new two-class
output layer (digits 0-4 against 5-9) trained on top. Fix: return ``outputs`` itself (and
drop the ``Variable`` wrap the error had prompted).

Measured (200 steps, 297 held-out digits): the bug's loss 0.72 over the first 20 steps and
0.72 over the last 20, the output layer unchanged, held-out accuracy 0.56; the fixed twin's
loss falls from 0.68 to 0.35, 0.84.
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import Variable

from benchmarks.real_bugs._common import batches, classification

TITLE = "loss don't go down when finetune and about requires_grad option in backward()"
LINK = "https://github.com/huggingface/torchMoji/issues/21"
EXPECTED = ("NO_GRADIENT",)
STEPS = 200
HELD_OUT = 297
PRETRAIN_STEPS = 150


class Classifier(nn.Module):
    def __init__(self, encoder, classes, return_tensor):
        super().__init__()
        self.encoder = encoder
        self.output_layer = nn.Linear(64, classes)
        self.return_tensor = return_tensor

    def forward(self, x):
        outputs = self.output_layer(self.encoder(x))
        if self.return_tensor:
            outputs = outputs.data                       # BUG: the values without the graph
        return outputs


def pretrained_encoder(x, y):
    """The encoder trained on the ten digits first (the 'pretrained' model)."""
    encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
    head = nn.Linear(64, 10)
    optimizer = torch.optim.Adam([*encoder.parameters(), *head.parameters()], lr=1e-3)
    for xb, yb in batches(x, y, PRETRAIN_STEPS, seed=1):
        optimizer.zero_grad()
        F.cross_entropy(head(encoder(xb)), yb).backward()
        optimizer.step()
    return encoder


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    encoder = pretrained_encoder(x_train, y_train)
    for p in encoder.parameters():                       # fine-tune "last": the new layer only
        p.requires_grad = False
    model = Classifier(encoder, 2, return_tensor=not fixed)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    losses = []
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, (y_train >= 5).long(), steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            if not fixed:
                loss = Variable(loss, requires_grad=True)   # BUG: silences the error
            loss.backward()
            optimizer.step()
            mon.step(loss)
            losses.append(float(loss))
    model.return_tensor = False
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == (y[-HELD_OUT:] >= 5)).float().mean()), 3)
    mon.loss_start_end = (round(sum(losses[:20]) / 20, 2), round(sum(losses[-20:]) / 20, 2))
    return mon
