"""A focal / binary cross-entropy loss written by hand clamps its sigmoid probabilities to
[eps, 1 - eps] with eps = 1e-8 before taking ``log(p)`` and ``log(1 - p)``. In float32 the
spacing of numbers just below 1 is 6e-8, so 1 - 1e-8 rounds to exactly 1.0 and the upper
clamp does nothing: once a logit passes ~17 the sigmoid is 1.0, ``log(1 - p)`` is -inf, and
a negative class's zero weight times -inf is NaN - the loss is NaN from that step on.

Reported: "ZeroDivisionError: float division by zero" -
https://github.com/NVIDIA/apex/issues/358 (a hand-written focal loss with
``torch.clamp(y_pred, eps, 1-eps)``, eps = 1e-8; ptrblck's answer: "Note that even in FP32
your loss function might create nan values ... To fix this, you might want to add eps to
the argument in torch.log", ``torch.log(y_pred + eps)`` and ``torch.log(1 - y_pred + eps)``,
his example run with gamma = 0). Here ten one-vs-rest sigmoid outputs on the digits, gamma
0, an MLP trained with Adam at 0.03 until its easy classes are certain. Fix: put the eps
inside the logs (or compute from the logits, ``F.binary_cross_entropy_with_logits``).

Measured (300 steps, 297 held-out digits): the bug's loss turns NaN at step 155 and the
held-out accuracy ends at 0.09 (NaN weights); the fixed twin's 0.91, no NaN.
"""
import torch
import torch.nn.functional as F

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "ZeroDivisionError: float division by zero"
LINK = "https://github.com/NVIDIA/apex/issues/358"
EXPECTED = ("NAN_BORN_IN_FORWARD",)
STEPS = 300
HELD_OUT = 297
EPS = 1e-8
GAMMA = 0.0


def focal_loss(fixed):
    def loss(logits, targets):
        y_true = F.one_hot(targets, logits.shape[1]).float()
        y_pred = torch.sigmoid(logits)
        if fixed:
            log_p, log_not_p = torch.log(y_pred + EPS), torch.log(1 - y_pred + EPS)
        else:
            y_pred = torch.clamp(y_pred, EPS, 1 - EPS)         # BUG: 1 - 1e-8 == 1.0
            log_p, log_not_p = torch.log(y_pred), torch.log(1 - y_pred)
        terms = (y_true * torch.pow(1 - y_pred, GAMMA) * log_p
                 + (1 - y_true) * torch.pow(y_pred, GAMMA) * log_not_p)
        return -terms.sum(dim=1).mean()
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp(hidden=128)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.03)
    mon = train_watched(model, optimizer, focal_loss(fixed),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
