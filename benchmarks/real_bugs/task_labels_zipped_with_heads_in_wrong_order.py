"""A network with one shared encoder and two binary heads - "is the digit 5 or more?" and "is
the digit even?" - trained by zipping its outputs with the batch's labels: ``for logits, target
in zip(outputs, labels.values())``. The heads come out in the order the model defines them
(large, even) while the label table's columns are in alphabetical order (even, large), so
each head is trained on the other head's labels. Both tasks are learned perfectly well - the
loss falls to a low value - but under the wrong names: the head read for "5 or more" answers
"even", and against its own labels it is right only where the two questions agree.

Reported: "Matching multiple labels to multiple outputs" -
https://github.com/apache/mxnet/issues/2929 (labels given by name, outputs ordered by the
network: the "labels come out in whatever order you happen to get by iterating over the hashed
items", so the two sequences "will not be properly aligned"). Here the 8x8 digits (the last
297 held out), a shared 64-64-32 encoder, two 2-way heads, cross-entropy summed over the
heads, Adam at 3e-3, 300 steps of 64 images.

Fix: pair each output with its label by the head's name (``labels[name]``), not by position.

Measured (held-out accuracy of each head on its own question, averaged over the two heads,
297 digits): 0.380 with the bug, 0.926 fixed; seeds + 1000: 0.387 vs 0.946.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._mt161 import accuracy, digits, encoder, rows

TITLE = "Matching multiple labels to multiple outputs"
LINK = "https://github.com/apache/mxnet/issues/2929"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300
HEADS = ("large", "even")                  # the order the model defines its heads in


class TwoQuestions(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = encoder()
        self.heads = nn.ModuleDict({name: nn.Linear(32, 2) for name in HEADS})

    def forward(self, x):
        h = self.encoder(x)
        return {name: head(h) for name, head in self.heads.items()}


def label_table(y):
    """The label columns in alphabetical order, as a table read from disk would give them."""
    columns = {"large": (y >= 5).long(), "even": (y % 2 == 0).long()}
    return {name: columns[name] for name in sorted(columns)}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    labels, held_labels = label_table(y), label_table(y_held)
    model = TwoQuestions()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in rows(len(x), steps):
            optimizer.zero_grad()
            outputs = model(x[index])
            batch = {name: column[index] for name, column in labels.items()}
            if fixed:
                pairs = [(outputs[name], batch[name]) for name in outputs]
            else:                           # BUG: paired by position, two different orders
                pairs = zip(outputs.values(), batch.values())
            loss = sum(F.cross_entropy(logits, target) for logits, target in pairs)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        outputs = model(x_held)
        scores = [accuracy(outputs[name], held_labels[name]) for name in HEADS]
    mon.held_out_accuracy = round(sum(scores) / len(scores), 3)
    return mon
