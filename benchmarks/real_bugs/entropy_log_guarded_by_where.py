"""An attention-entropy bonus written as p * where(p > 0, log(p), 0), to skip the positions
the mask set to exactly 0. The forward is finite, but torch.where sends the untaken branch a
zero gradient, and log's backward divides it by p = 0: 0 / 0 is NaN, and the NaN reaches
the attention and every weight below it at the first step.

Reported: "Backward bypassing for torch.where" - https://github.com/pytorch/pytorch/issues/108618
("when I have x[i] that will cause formula1 to be inf, but already filtered it in condition,
the gradient should be calculated by backwarding formula2. However ... the gradient of x[i]
will be set to nan"). Here a classifier pools the 8 pixel columns of a digit with
attention; blank columns are masked out of the softmax (exact zeros), and an entropy bonus
keeps the attention spread. Fix: take the log of a safe input, where(p > 0, p, 1).log()
(the inner where the maintainers recommend), so that no branch computes log(0).
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Backward bypassing for torch.where"
LINK = "https://github.com/pytorch/pytorch/issues/108618"
EXPECTED = ("NAN_BORN_IN_BACKWARD",)
STEPS = 150
ENTROPY_WEIGHT = 0.01


class ColumnAttention(nn.Module):
    """Each of the 8 pixel columns is a token; attention over the non-blank ones pools them."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Linear(8, 32)
        self.score = nn.Linear(32, 1)
        self.head = nn.Linear(32, 10)
        self.entropy = None

    def forward(self, x):
        columns = x.view(-1, 8, 8).transpose(1, 2)            # (B, 8 columns, 8 pixels)
        tokens = torch.tanh(self.embed(columns))
        scores = self.score(tokens).squeeze(-1)
        scores = scores.masked_fill(columns.sum(-1) == 0, float("-inf"))
        p = scores.softmax(-1)                                # exact 0 on blank columns
        if self.fixed:
            log_p = torch.where(p > 0, p, torch.ones_like(p)).log()
        else:
            log_p = torch.where(p > 0, p.log(), torch.zeros_like(p))   # BUG: log(0) untaken
        self.entropy = -(p * log_p).sum(-1).mean()
        return self.head((p.unsqueeze(-1) * tokens).sum(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = ColumnAttention(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    def loss_fn(logits, labels):
        return F.cross_entropy(logits, labels) - ENTROPY_WEIGHT * model.entropy

    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
