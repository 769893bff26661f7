"""A multi-label classifier on imbalanced labels, its BCEWithLogitsLoss given a per-label
pos_weight computed upside down: positives / negatives instead of negatives / positives.
Every weight is below 1, so the rare positives count even LESS than the negatives; the
logits are pushed down, and almost no label is ever predicted present.

Reported: a write-up of the author's own multi-label run (medical / security / ad-review
style labels, positives very rare), where validation AUC looked acceptable but F1 and recall
were near zero, the model "almost always guessing 0" -
https://cloud.tencent.com.cn/developer/article/2568430 (the cause found: "发现我用的是 pos/neg
而非 neg/pos" - I had used pos/neg, not neg/pos; the wrong line was ``wrong_pos_weight = (pos /
neg)``). Here collages of 2x2 digit cells, 10 labels "digit d appears" with a sparse fill
(each label present in ~15% of the images), an MLP, Adam.

Measured (300 steps, 600 held-out collages, logit > 0): the bug's recall 0.003 and micro-F1
0.006; the fixed twin's recall 0.89, micro-F1 0.73.
Fix: ``pos_weight = negatives / positives`` per label.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, train_watched
from benchmarks.real_bugs._digit_collages import collages, digits_present

TITLE = "pos_weight / weight 用错场景 (multi-label, positives rare): F1/Recall near zero"
LINK = "https://cloud.tencent.com.cn/developer/article/2568430"
EXPECTED = ("CLASS_WEIGHTS_REVERSED",)
STEPS = 300
FILL = 0.2


def data(count=3000, held_out=False):
    x, cells = collages(count, fill=FILL, held_out=held_out)
    return x, digits_present(cells)


def pos_weight(y, fixed):
    positives = y.sum(0).clamp(min=1)
    negatives = len(y) - positives
    # BUG: the ratio upside down, every weight < 1
    return negatives / positives if fixed else positives / negatives


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = data()
    net = nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=pos_weight(y, fixed))
    return train_watched(net, optimizer, loss_fn, batches(x, y, steps), **watch)
