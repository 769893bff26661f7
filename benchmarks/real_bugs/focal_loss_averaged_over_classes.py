"""A multi-class focal loss written by hand keeps its per-class terms in a (batch, classes)
tensor - zero everywhere but at each row's label - and returns ``loss.mean()``: the mean
runs over the classes as well as the batch, so the loss and every gradient are divided by
the number of classes. Under plain SGD that is a learning rate ten times smaller than the
one chosen: the classifier crawls.

Reported: "Fix: sum over classes before reduction in multi_class_focal_loss" -
https://github.com/itakurah/focal-loss-pytorch/pull/6 ("The code currently computes the
loss as a matrix of shape [batch_size, num_classes] and directly applies loss.mean(). This
dilutes the final loss value by a factor of num_classes"; merged by the author). Here the
ten digit classes, an MLP, gamma 2, SGD at 0.1. Fix: ``loss.sum(dim=1).mean()``.

Measured (150 steps, 297 held-out digits): the bug's held-out accuracy 0.46 and its loss
still falling; the fixed twin's 0.85.
"""
import torch
import torch.nn.functional as F

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Fix: sum over classes before reduction in multi_class_focal_loss"
LINK = "https://github.com/itakurah/focal-loss-pytorch/pull/6"
EXPECTED = ("LOSS_MEAN_OVER_CLASSES", "LR_TOO_LOW")
STEPS = 150
HELD_OUT = 297
GAMMA = 2.0
LR = 0.1


def multi_class_focal_loss(fixed):
    def loss(logits, targets):
        log_p = F.log_softmax(logits, dim=1)
        p = log_p.exp()
        one_hot = F.one_hot(targets, logits.shape[1]).float()
        terms = -one_hot * (1 - p) ** GAMMA * log_p          # (batch, classes)
        if fixed:
            return terms.sum(dim=1).mean()
        return terms.mean()                                   # BUG: mean over classes too
    return loss


def run(fixed=False, steps=STEPS, lr=LR, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    mon = train_watched(model, optimizer, multi_class_focal_loss(fixed),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
