"""A KL-divergence loss written as the textbook ``sum t * log(t / q)``, with q the model's
softmax probabilities, is trained on targets that hold zeros (one-hot labels). Where a
target probability is 0, ``log(t / q)`` is log 0 = -inf and its term 0 x -inf = NaN: the
loss is NaN from the very first batch, and so is the gradient (the log's backward divides
by t / q = 0), so the first update turns every weight into NaN.

Reported: "Fix LossKLD" - https://github.com/deeplearning4j/nd4j/pull/1340 (merged; "This
was running into NaNs pretty instantly because KL Divergence expects non-zero
probabilities"; the fix clips both distributions into [eps, 1] before the log, as Keras
does). Here a classifier on the 8x8 digits trained by that loss against one-hot targets.
Fix: ``t.clamp(eps, 1) * log(t.clamp(eps, 1) / q.clamp(eps, 1))``.

Measured (300 steps, 297 held-out digits): the bug's loss is NaN from step 0, its weights
NaN after the first update, held-out accuracy 0.09 (argmax of NaN rows); the fixed twin's
loss falls from 2.33 to 0.32 (mean of the last 50 steps), held-out accuracy 0.86.
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Fix LossKLD"
LINK = "https://github.com/deeplearning4j/nd4j/pull/1340"
EXPECTED = ("NAN_BORN_IN_FORWARD",)
STEPS = 300
HELD_OUT = 297
EPS = 1e-7   # Keras' epsilon, the value the fix took


def kl_divergence(fixed):
    def loss(logits, labels):
        targets = F.one_hot(labels, logits.shape[1]).float()
        predicted = torch.softmax(logits, 1)
        if fixed:
            targets, predicted = targets.clamp(EPS, 1), predicted.clamp(EPS, 1)
        return (targets * torch.log(targets / predicted)).sum(1).mean()  # BUG: 0 x log 0
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, kl_divergence(fixed),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
