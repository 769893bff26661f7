"""A hand-written label-smoothing loss keeps the true class at exactly 1 and adds the
smoothing mass eps/K on top of every class: each target row sums to 1 + eps (K-1)/K, not 1.
torch takes a float target of the logits' shape as class probabilities and does not check
that a row sums to 1, so nothing fails: the loss is scaled up and the optimum it pulls the
softmax towards is not the smoothed distribution the author meant.

Reported: "SmoothCrossEntropyLoss" - https://github.com/ildoonet/pytorch-randaugment/issues/30
("It seems that the label smoothing I know is not done ... label smoothing formula is:
y_ls = y_k * (1 - a) + a / K but 15 line is: y_ls = y_k * (1 - a / K) + a / K"; the printed
row is [1.0000, 0.0143, ...]). Here the ten digit classes with a = 0.3: each row sums to
1.27. Fix: ``target * (1 - a) + a / K`` (or ``F.cross_entropy(..., label_smoothing=a)``).

Measured: the printed loss sits at 1.73 against 1.50 for the fixed twin, and the softmax is
pulled towards the row divided by 1.27 (0.79 on the true class) instead of 0.73: the
trained net is more confident than the smoothing asked (mean top probability 0.48 against
0.46 over the digits); the accuracy is the same (0.89). The harm is the wrong objective,
not a failed run: with a teacher's logits or counts as rows it grows with the row sums.
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "SmoothCrossEntropyLoss"
LINK = "https://github.com/ildoonet/pytorch-randaugment/issues/30"
EXPECTED = ("SOFT_TARGETS_NOT_DISTRIBUTIONS",)
STEPS = 150
SMOOTHING = 0.3


def smooth_cross_entropy(fixed):
    """The repository's SmoothCrossEntropyLoss: one-hot targets smoothed, then soft CE."""
    def loss(logits, labels):
        classes = logits.shape[-1]
        target = F.one_hot(labels, num_classes=classes).float()
        spread = SMOOTHING / classes
        if fixed:
            target = target * (1.0 - SMOOTHING) + spread
        else:
            target = target * (1.0 - spread) + spread    # BUG: true class stays at 1
        return F.cross_entropy(logits, target)
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, smooth_cross_entropy(fixed), batches(x, y, steps),
                         **watch)
