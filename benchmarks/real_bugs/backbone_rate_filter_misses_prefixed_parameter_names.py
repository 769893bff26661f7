"""Two parameter groups chosen by parameter name - the pretrained backbone at its own, low
rate, everything else at the main rate - where the name test looks for names starting with
``backbone`` but the policy wraps its network in ``self.model``, so every name starts with
``model.``. The test matches nothing: the backbone's parameters all land in the main group,
the backbone group is empty, and the pretrained backbone trains at the rate meant for the
new layers. Nothing errors (an empty group is legal), the loss falls, and the printed
optimizer still shows a group with the backbone's rate.

Reported: "Bug fix: fix setting different learning rates between backbone and main model in
ACT policy" - https://github.com/huggingface/lerobot/pull/280 (the filter "was not
identifying the backbone", so the backbone always got the main learning rate instead of
``lr_backbone``; fixed by matching the names the parameters really have,
``model.backbone...``; a reviewer called it "such a sneaky and silent bug" and suggested
asserting that every group is non-empty). Fix: test the full prefix, ``model.backbone``.

Here the batch-73 conv backbone (pretrained on 900 colour digits, batch norm, in
``_pretrained_cnn``) and a new ten-way head, wrapped as ``policy.model``, are fine-tuned on
100 other digits with Adam at 0.03, the backbone's rate meant to be a hundredth of that.

Measured (297 held-out digits): seed 0, held-out accuracy 0.77 for the bug against 0.89 for
the fixed twin; seeds shifted by 1000, 0.73 against 0.92.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._ft188 import (Classifier, accuracy, pretrained_backbone,
                                         target_task, torch_preprocess)

TITLE = ("Bug fix: fix setting different learning rates between backbone and main model in "
         "ACT policy")
LINK = "https://github.com/huggingface/lerobot/pull/280"
EXPECTED = ("EMPTY_PARAM_GROUP", "LR_TOO_HIGH")
STEPS = 150
LR = 0.03
LR_BACKBONE = 3e-4
TRAIN_ROWS = 100


class Policy(nn.Module):
    """The network under ``self.model``, as the policy classes hold it."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)

    def optim_groups(self, prefix):
        named = list(self.named_parameters())
        return [{"params": [p for n, p in named if not n.startswith(prefix)]},
                {"params": [p for n, p in named if n.startswith(prefix)],
                 "lr": LR_BACKBONE}]


def run(fixed=False, steps=STEPS, **watch):
    body, stats = pretrained_backbone("torch")
    (x, y), (x_held, y_held) = target_task(TRAIN_ROWS)
    x, x_held = torch_preprocess(x, stats), torch_preprocess(x_held, stats)
    torch.manual_seed(0)
    policy = Policy(Classifier(body)).train()
    # BUG: the names are "model.backbone.*", so "backbone" matches none of them
    prefix = "model.backbone" if fixed else "backbone"
    optimizer = torch.optim.Adam(policy.optim_groups(prefix), lr=LR)
    with nd.watch(policy, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(policy(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(policy, x_held, y_held)
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).held_out_accuracy)
