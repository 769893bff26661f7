"""A pretrained backbone "frozen" for a linear probe with ``backbone.requires_grad =
False``: that sets a plain Python attribute on the module (``nn.Module`` has no such
property; only each parameter has one), so every backbone parameter still requires a
gradient, the optimizer built over the trainable parameters holds them all, and the
pretrained weights are rewritten at the head's rate (1e-2) from the first step.

Reported: "[solved] ResnetEncoder 'frozen' argument doesn't work" -
https://github.com/catalyst-team/catalyst/issues/79 ("Passing frozen=True ... does not
actually make encoder not trainable ... It is so because nn.Module has no attribute
'requires_grad', only nn.Parameter has it"); the same slip in "Implementation bug? It seems
like the last layer is not frozen?" (CSCYQJ/MICCAI23-ProtoContra-SFDA#18:
``self.model.outc.requires_grad = False``). Here a digits MLP body pretrained on the digits
0-4, a linear probe for all ten digits trained with Adam at 1e-2.
Fix: ``backbone.requires_grad_(False)`` (the method), which sets the flag on every
parameter.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched
from benchmarks.real_bugs._pretrained import pretrained_backbone

TITLE = "[solved] ResnetEncoder 'frozen' argument doesn't work"
LINK = "https://github.com/catalyst-team/catalyst/issues/79"
EXPECTED = ("REQUIRES_GRAD_SET_ON_MODULE",)
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    x, y = classification()
    body = pretrained_backbone()
    torch.manual_seed(0)
    if fixed:
        body.requires_grad_(False)
    else:
        body.requires_grad = False     # BUG: an attribute on the module; no parameter frozen
    model = nn.Sequential(body, nn.Linear(64, 10))
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(trainable, lr=1e-2)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
