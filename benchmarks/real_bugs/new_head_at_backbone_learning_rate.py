"""A pretrained backbone fine-tuned with a new, randomly initialised classification head,
and one learning rate for both: 4e-5, the rate that suits the pretrained layers. The head
starts from nothing and needs far larger steps; at the backbone's rate it barely moves, so
the multi-label predictions stay close to the label frequencies and the loss falls slowly
(0.48 after 300 steps, against 0.21 with the head at 1e-3).

Reported: "Problems when classifying after finetuning BERT (Multi-Label)" -
https://github.com/ThilinaRajapakse/simpletransformers/issues/234 ("The learning rate that
is applied by defaults is 4e-5 which is OK for fine-tuning transformer-based models but not
that good for the classification layer. What I did and got nice predictions was to change
the learning rate of the classification layer to 1e-3 while keeping 4e-5 for the
transformer-based model"). Here a digits MLP body pretrained on the digits 0-4, a new head
for four yes/no attributes of the digit, AdamW with BCEWithLogitsLoss.
Fix: a parameter group for the head at 1e-3; the backbone stays at 4e-5.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched
from benchmarks.real_bugs._pretrained import pretrained_backbone

TITLE = "Problems when classifying after finetuning BERT (Multi-Label)"
LINK = "https://github.com/ThilinaRajapakse/simpletransformers/issues/234"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 300
BACKBONE_LR = 4e-5
HEAD_LR = 1e-3


def attributes(y):
    """Four yes/no labels per digit (several can hold at once): >= 5, even, has a closed
    loop (0, 6, 8, 9), prime."""
    return torch.stack([y >= 5, y % 2 == 0, torch.isin(y, torch.tensor([0, 6, 8, 9])),
                        torch.isin(y, torch.tensor([2, 3, 5, 7]))], dim=1).float()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    body = pretrained_backbone()
    head = nn.Linear(64, 4)
    model = nn.Sequential(body, head)
    # BUG (when not fixed): the new head gets the backbone's fine-tuning rate, 4e-5
    head_lr = HEAD_LR if fixed else BACKBONE_LR
    optimizer = torch.optim.AdamW([{"params": body.parameters(), "lr": BACKBONE_LR},
                                   {"params": head.parameters(), "lr": head_lr}],
                                  weight_decay=0.0)
    return train_watched(model, optimizer, nn.BCEWithLogitsLoss(),
                         batches(x, attributes(y), steps), **watch)
