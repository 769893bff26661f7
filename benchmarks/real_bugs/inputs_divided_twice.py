"""Images divided by 255 twice: inputs squashed to ~1/255 of their scale.

Reported: "Fix double-normalization bug in train_input_pipeline version of DRAW" -
https://github.com/pkmital/pycadl/pull/5 ("The input image batch was being divided by
255 twice before being fed to the model"). The first layer sees almost nothing and
learns very slowly. Fix: normalise once.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Fix double-normalization bug in train_input_pipeline version of DRAW"
LINK = "https://github.com/pkmital/pycadl/pull/5"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    pixels = x * 255                       # what the pipeline reads: grey levels 0..255
    x = pixels / 255
    if not fixed:
        x = x / 255                        # BUG: normalised a second time
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
