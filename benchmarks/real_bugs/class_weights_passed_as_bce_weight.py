"""Per-label weights for rare positives handed to ``BCEWithLogitsLoss(weight=...)`` instead
of ``pos_weight=...``: ``weight`` rescales a label's whole loss, its negatives as much as its
positives, so the balance between the few positives and the many negatives of a label is
exactly what it was unweighted. The imbalance the weights were computed for is not
corrected, and the tagger learns to answer "absent" for the rare labels.

Reported: "Regarding class weights in bce loss function" -
https://github.com/dungnb1333/SIIM-COVID19-Detection-1st-Place/issues/7 (the loss is built
with ``weight=torch.FloatTensor([0.2, 0.2, 0.3, 0.3])`` to handle the class imbalance: "To
handle class imbalance, I think the parameter is pos_weight and not weight", with the link
to the BCEWithLogitsLoss documentation; ptrblck on the same trap,
https://github.com/pytorch/pytorch/issues/5157: class weights passed as ``weight`` run
"but [do] not apply class weighting, which might mislead some users"). Here collages of 3x3
digit cells, 90 sparse labels "digit d in cell c" (each positive in ~3% of the images), an
MLP tagger, Adam; the bug passes negatives / positives per label as ``weight``. Fix: the
same tensor as ``pos_weight``.

Measured (300 steps, 600 held-out collages, a label predicted when its logit is above 0):
the bug's recall 0.003 (almost no label ever predicted), micro-F1 0.006; the fixed twin's
recall 0.92, micro-F1 0.31.

Named as POS_WEIGHT_PASSED_AS_WEIGHT (per-label weights of about negatives / positives as
weight=, no pos_weight, positives ~3%); as it came only RARE_POSITIVES_NEVER_PREDICTED, the
symptom (a wrong cause: it says to add the pos_weight the code seems to have).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, train_watched
from benchmarks.real_bugs._digit_collages import collages, digit_at_cell, micro_f1, recall

TITLE = "Regarding class weights in bce loss function"
LINK = "https://github.com/dungnb1333/SIIM-COVID19-Detection-1st-Place/issues/7"
EXPECTED = ("POS_WEIGHT_PASSED_AS_WEIGHT",)
STEPS = 300
GRID, FILL = 3, 0.3


def data(count=3000, held_out=False):
    x, cells = collages(count, grid=GRID, fill=FILL, held_out=held_out)
    return x, digit_at_cell(cells)


def loss_for(y, fixed):
    positives = y.sum(0).clamp(min=1)
    per_label = (len(y) - positives) / positives       # negatives / positives, one per label
    if fixed:
        return nn.BCEWithLogitsLoss(pos_weight=per_label)
    return nn.BCEWithLogitsLoss(weight=per_label)      # BUG: scales negatives and positives alike


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = data()
    net = nn.Sequential(nn.Linear(64 * GRID * GRID, 128), nn.ReLU(),
                        nn.Linear(128, y.shape[1]))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    mon = train_watched(net, optimizer, loss_for(y, fixed), batches(x, y, steps), **watch)
    x_test, y_test = data(600, held_out=True)
    with torch.no_grad():
        scores = net(x_test)
    mon.recall = round(recall(scores, y_test, 0.0), 3)
    mon.f1 = round(micro_f1(scores, y_test, 0.0), 3)
    return mon
