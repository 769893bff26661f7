"""The rare class upsampled on the WHOLE table before ``train_test_split``: the repeated
positive rows fall on both sides of the split, so nearly every positive in the test part is
a copy of a positive the model trains on. The test recall of the rare class - the number
an imbalanced problem is judged by - reads perfect while the model finds only part of the
positives it has never seen. The loss, the training, the split sizes all look normal.

Reported: "Resampling methods upsample all X, not X_train." -
https://github.com/vc1492a/henosis/issues/12 (the library's resampling step upsampled the
full X before the train/test split: "Need to upsample only the training data. Failure to
do so allows information from test and validation sets to 'bleed' into training set";
fixed by resampling the training part only, after the split). Here: one digit (8) against
the nine others, 30 positive rows among 1,170 (benchmarks/real_bugs/_imb186.py); the
positives are repeated up to the negatives' count, the table is cut 80/20 into train and
test, an MLP with one logit is trained with BCE (Adam, batches of 64) and its test loss is
read every epoch. Fix: cut first (the 30 positives split with the rest), then repeat the
training positives only. 535 digits (52 positives) held out from everything show what the
model really does.

Measured (400 steps; recall of the positives at p > 0.5): seed 0, the bug's test split
reports 1.00 (on 243 test "positives", copies of the 30 rows) while the 535 held-out digits
give 0.81; the fixed twin's test split (7 positives, so noisy but unbiased) reports 0.86
and the held-out digits 0.71. Seeds shifted by 1000: 1.00 (225 copies) against 0.79;
fixed 0.71 against 0.75. The harm is the estimate: the bug's model is no worse on unseen
digits (it even trains on all 30 positives), but the number the run reports about the rare
class overstates it by 0.19-0.21, and can never fall below 1.00 whatever the model does.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._imb186 import binary_scores, rare_binary

TITLE = "Resampling methods upsample all X, not X_train."
LINK = "https://github.com/vc1492a/henosis/issues/12"
EXPECTED = ("VALIDATION_ROWS_IN_TRAINING", "DUPLICATES_ACROSS_SPLITS")
STEPS = 400
BATCH = 64
TEST_SHARE = 0.2
POSITIVES = 30          # training-pool positives: about six land in an honest test part


def upsample(rows, y):
    """``rows`` with its positives repeated (cycled) up to its negatives' count."""
    pos, neg = rows[y[rows] == 1], rows[y[rows] == 0]
    return np.concatenate([neg, np.resize(pos, len(neg))])


def cut(rows, rng):
    rows = rng.permutation(rows)
    n_test = int(len(rows) * TEST_SHARE)
    return rows[n_test:], rows[:n_test]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_held, y_held = rare_binary(POSITIVES, seed=0)
    rows, labels = np.arange(len(x)), y.numpy()
    if fixed:
        train, test = cut(rows, rng)
        train = upsample(train, labels)               # the training part only
    else:
        train, test = cut(upsample(rows, labels), rng)    # BUG: copies on both sides
    x_train, y_train, x_test, y_test = x[train], y[train], x[test], y[test]
    per_epoch = len(train) // BATCH
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, index in enumerate(index_batches(len(x_train), steps, BATCH, seed=0), 1):
            loss = F.binary_cross_entropy_with_logits(model(x_train[index]).squeeze(1),
                                                      y_train[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            test_loss = None
            if done % per_epoch == 0:
                with torch.no_grad():
                    test_loss = F.binary_cross_entropy_with_logits(
                        model(x_test).squeeze(1), y_test)
            mon.step(loss, val_loss=test_loss)
    model.eval()
    mon.reported_test_recall = binary_scores(model, x_test, y_test)[0]
    mon.reported_test_positives = float(y_test.sum())
    mon.held_out_recall, mon.held_out_f1, _ = binary_scores(model, x_held, y_held)
    return mon
