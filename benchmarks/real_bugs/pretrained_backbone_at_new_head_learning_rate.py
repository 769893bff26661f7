"""A pretrained backbone fine-tuned at the learning rate meant for the freshly initialised
head: one rate for every parameter, large enough for the random head to learn quickly,
tears the pretrained filters apart in the first steps (the head's random, large gradients
flow straight into them), so the model ends up little better than one trained from scratch
on the small target set.

Reported: "why the lr_transformer and lr_backbone is not the same?" -
https://github.com/facebookresearch/detr/issues/95 (a maintainer: "The transformer is
trained from scratch, while the backbone is fine-tuned, hence the need for different
learning rates ... With lr_transformer == lr_backbone, you'll get much lower
performance."). Here a small conv net pretrained on 900 colour digits gets a new head and
is fine-tuned on 100 other digits with Adam at the head's rate everywhere.
Fix: two parameter groups, the backbone at a hundredth of the head's rate (DETR: 1e-5 vs
1e-4).

Measured (150 Adam steps, 297 held-out digits): held-out accuracy with one rate
0.77; with the backbone's own, lower rate 0.89.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, train_watched
from benchmarks.real_bugs._pretrained_cnn import (FEATURES, accuracy, pretrained_backbone,
                                                  target_task, torch_preprocess)

TITLE = "why the lr_transformer and lr_backbone is not the same?"
LINK = "https://github.com/facebookresearch/detr/issues/95"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 150
HEAD_LR = 0.03
TRAIN_ROWS = 100


def run(fixed=False, steps=STEPS, **watch):
    body, stats = pretrained_backbone("torch")
    (x, y), (x_held, y_held) = target_task(TRAIN_ROWS)
    x = torch_preprocess(x, stats)
    torch.manual_seed(0)
    head = nn.Linear(FEATURES, 10)
    model = nn.Sequential(body, head).train()
    if fixed:
        groups = [{"params": body.parameters(), "lr": HEAD_LR / 100},
                  {"params": head.parameters(), "lr": HEAD_LR}]
    else:
        groups = [{"params": model.parameters(), "lr": HEAD_LR}]  # BUG: backbone at head's rate
    optimizer = torch.optim.Adam(groups)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x, y, steps, batch_size=32), **watch)
    mon.test_accuracy = accuracy(model, torch_preprocess(x_held, stats), y_held)
    return mon
