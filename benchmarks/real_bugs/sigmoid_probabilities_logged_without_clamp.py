"""A sigmoid classification loss written by hand takes torch.log of the probabilities with
no clamp. Once a logit passes ~17, float32's sigmoid rounds to exactly 1.0: log(1 - p) is
-inf, the positive's (1 - y) x -inf is NaN, and the NaN reaches the loss and every weight.

Reported: "Why do you use 'torch.clamp(classification, 1e-4, 1.0 - 1e-4)' in loss
function?" - https://github.com/yhenon/pytorch-retinanet/issues/3 (the author: "Inside the
loss, we calculate torch.log(classification). If any value inside of classification is
equal to zero, then we take log(0), which is not valid, and results in NaN"). Here one
sigmoid per digit class, as RetinaNet's classification head, with the binary cross-entropy
written out (the report's loss without its focal weights), trained until the easy classes
are certain. Fix: clamp the probabilities to [1e-4, 1 - 1e-4] before the log (or compute
the loss from the logits, F.binary_cross_entropy_with_logits).

Why watch misses it: the first NaN is made at step 261, when a logit first passes ~17; the
detailed records are thinned to steps 0, 1, 2, 4, ..., 256, 512 (and the steps after a NaN
is seen, or after a loss jump: there is none before this one). The origin watch
(NAN_BORN_IN_FORWARD) measures log's inputs and outputs on recorded steps only, and from
step 262 on every weight is NaN, so nothing is born there any more. What is left is the
symptom, NAN_LOSS. (LR_TOO_HIGH used to be named too, for Adam's large first steps: it now
needs the NaN to come out of a blow-up - a growing loss, or updates still large when it
came - and here the loss fell steadily to 0.1 and the updates were 0.5% of the weights at
the last record before the NaN.)
Seeing it would take the function mode on every step, or a guess from the steps before:
log's argument is down to 1e-17 by step 256, but a small probability is no NaN and a
healthy run's log of a softmax sits there too.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Why do you use 'torch.clamp(classification, 1e-4, 1.0 - 1e-4)' in loss function?"
LINK = "https://github.com/yhenon/pytorch-retinanet/issues/3"
EXPECTED = ("NAN_BORN_IN_FORWARD",)
STEPS = 300


def sigmoid_loss(fixed):
    def loss(logits, labels):
        y = nn.functional.one_hot(labels, 10).float()
        p = torch.sigmoid(logits)
        if fixed:
            p = p.clamp(1e-4, 1.0 - 1e-4)
        # BUG: p rounds to exactly 0 or 1 once a logit is large; log(0) = -inf, 0 x -inf = NaN
        return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).sum() / len(labels)
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
    return train_watched(model, optimizer, sigmoid_loss(fixed), batches(x, y, steps), **watch)
