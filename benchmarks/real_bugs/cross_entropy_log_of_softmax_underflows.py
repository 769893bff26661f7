"""A cross-entropy written by hand as ``-(one_hot * log(softmax(logits))).sum(1).mean()``.
As the classifier grows confident the gap between its largest and smallest logit passes
~104, float32's softmax rounds the least likely class's probability to exactly 0, its log
is -inf, and the one-hot's 0 times -inf is NaN: the loss is NaN from that step on and every
weight follows it.

Reported: "Use tf.softmax_cross_entropy_with_logits to calculate loss" -
https://github.com/tensorflow/models/pull/181 ("When manually implementing the cross
entropy loss, the training loss becomes nan after a number of iterations ... Switching to
the built-in softmax_cross_entropy_with_logits allows the network to train stably"; the
reviewer: "when the probability of true category is close to 0, the numerical loss would be
nan"). Here an MLP on the digits, trained with Adam at a high rate until the logits spread
out. Fix: take the log-probabilities from ``F.log_softmax`` (log-sum-exp, never log(0)),
or call ``F.cross_entropy`` on the logits.

Measured (600 steps, 297 held-out digits): the bug's loss turns NaN at step 450 and the
held-out accuracy ends at 0.10 (NaN logits); the fixed twin (``F.log_softmax``) reaches
0.92 with no NaN.
"""
import torch
import torch.nn.functional as F

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Use tf.softmax_cross_entropy_with_logits to calculate loss"
LINK = "https://github.com/tensorflow/models/pull/181"
EXPECTED = ("NAN_BORN_IN_FORWARD",)
STEPS = 600
HELD_OUT = 297


def handwritten_cross_entropy(fixed):
    def loss(logits, targets):
        one_hot = F.one_hot(targets, logits.shape[1]).float()
        if fixed:
            log_probabilities = F.log_softmax(logits, dim=1)
        else:
            log_probabilities = torch.log(F.softmax(logits, dim=1))   # BUG: log(0) = -inf
        return -(one_hot * log_probabilities).sum(1).mean()
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp(hidden=256)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    mon = train_watched(model, optimizer, handwritten_cross_entropy(fixed),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
