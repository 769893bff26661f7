"""A backbone's smaller learning rate written into its param group as an ``lr_mul`` entry,
a key torch.optim does not know: the optimizer keeps the key in the group and never reads
it, so the pretrained backbone trains at the new head's full rate. Here that rate (3e-2,
right for a fresh linear head) is far too high for a pretrained transformer: its features
collapse and the fine-tuned loss stays at chance (2.3 over the last 20 steps), against
0.13 with the multiplier applied.

Reported: "Unused lr_mul for the backbone?" -
https://github.com/msight-tech/research-ms-loss/issues/27 ("There is not \"lr_mul\" in
torch.optim, so the backbone's learning rate will be the same as embedding layer?"). Here
a small row transformer pretrained on the digits 0-4, a new head for all ten digits, and
AdamW with the backbone's group marked ``lr_mul=0.03``.
Fix: apply the multiplier where the group is built (``"lr": base_lr * lr_mul``), or have a
scheduler that reads the key scale the group's rate.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched
from benchmarks.real_bugs._pretrained import pretrained_transformer

TITLE = "Unused lr_mul for the backbone?"
LINK = "https://github.com/msight-tech/research-ms-loss/issues/27"
EXPECTED = ("LR_MULTIPLIER_IGNORED",)
STEPS = 200
BASE_LR = 3e-2          # the head's rate
BACKBONE_LR_MUL = 0.03  # the backbone's share of it: 9e-4, a fine-tuning rate


def build(fixed=False, steps=STEPS):
    x, y = classification()
    body = pretrained_transformer()
    torch.manual_seed(0)
    head = nn.Linear(64, 10)
    backbone_group = {"params": list(body.parameters()), "lr_mul": BACKBONE_LR_MUL}
    if fixed:
        backbone_group["lr"] = BASE_LR * BACKBONE_LR_MUL
    # BUG (when not fixed): AdamW ignores "lr_mul"; the backbone gets BASE_LR
    optimizer = torch.optim.AdamW([backbone_group, {"params": list(head.parameters())}],
                                  lr=BASE_LR)
    model = nn.Sequential(body, head)
    return model, optimizer, nn.CrossEntropyLoss(), batches(x.reshape(-1, 8, 8), y, steps)


def run(fixed=False, steps=STEPS, **watch):
    return train_watched(*build(fixed, steps), **watch)
