"""A multi-label tagger whose per-label class weights (negatives / positives of each
label, set to counter rare positives) reach binary_cross_entropy_with_logits as
``weight=`` instead of ``pos_weight=``. ``weight`` multiplies a label's whole loss - its
negative terms as much as its positive ones - so the balance between a label's rare
positives and its many negatives is exactly what it was without weights: the tagger
still learns to say "absent" for the rare labels and their recall stays low, while the
user believes the imbalance is handled.

Reported: "[Bug] "weight=class_weight" should be modified for "pos_weight=class_weight""
- https://github.com/open-mmlab/mmpretrain/issues/434 (mmcls's binary_cross_entropy(pred,
label, ..., class_weight) called F.binary_cross_entropy_with_logits(pred, label,
weight=class_weight, reduction='none'); the reporter: it "should be modified for"
pos_weight=class_weight; the maintainers labelled it "Good first issue"). Here 2x2 digit
collages with 40 labels "digit d in cell c", each positive in about 6% of the collages
(benchmarks/real_bugs/_mlc185.py), an MLP tagger, class weights negatives / positives per
label from the training rows, Adam; a label predicted where its sigmoid is above 0.5.
Fix: pass the class weights as pos_weight.

Measured (300 steps, 1,000 held-out collages): held-out micro-F1 0.26 for the bug
(recall 0.15, macro-F1 0.23) against 0.60 for the fixed twin (recall 0.90, macro-F1
0.63); seeds + 1000: 0.29 (recall 0.17, macro-F1 0.25) against 0.58 (recall 0.89,
macro-F1 0.61).
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._mlb import batches, read_out, tagger
from benchmarks.real_bugs._mlc185 import collages, digit_at_cell

TITLE = '[Bug] "weight=class_weight" should be modified for "pos_weight=class_weight"'
LINK = "https://github.com/open-mmlab/mmpretrain/issues/434"
EXPECTED = ("POS_WEIGHT_PASSED_AS_WEIGHT",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, cells = collages(3000, rng)
    x_test, cells_test = collages(1000, rng, held_out=True)
    y, y_test = digit_at_cell(cells), digit_at_cell(cells_test)
    positives = y.sum(dim=0).clamp(min=1)
    class_weight = (len(y) - positives) / positives         # negatives / positives
    model = tagger(y.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in batches(len(x), steps, rng):
            logits = model(x[rows])
            if fixed:
                loss = F.binary_cross_entropy_with_logits(logits, y[rows],
                                                          pos_weight=class_weight)
            else:       # BUG: the class weights scale whole labels, not their positives
                loss = F.binary_cross_entropy_with_logits(logits, y[rows],
                                                          weight=class_weight)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = torch.sigmoid(model(x_test)) > 0.5
    return read_out(mon, predicted, y_test)
